// bi-run verify-cert: re-checks certs on disk and explains every reason one is not promotable;
// with trusted keys it checks who signed them, with expectations for which deployment. It also
// reads in-toto envelopes written by attest and certs of the upstream Python tool.
#include <cxxopts.hpp>

#include <iostream>

#include "command_line.hpp"
#include "commands.hpp"
#include "core/cert.hpp"
#include "core/cert_consistency.hpp"
#include "core/configuration.hpp"
#include "core/deployment.hpp"
#include "core/error.hpp"
#include "exit_codes.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "report/verdict_headline.hpp"
#include "trust/judge.hpp"
#include "trust_options.hpp"

namespace bi::cli {

namespace {

using VerifyOptions = trust::JudgeOptions;

int invalid(const trust::Judgement& j) {
    std::cout << j.path << ": INVALID (" << trust::name(j.kind) << ")\n";
    std::cerr << "bi-run: " << j.problem << "\n";
    return kExitError;
}

int verify_envelope(const trust::Judgement& j, const VerifyOptions& o) {
    const auto& opened = *j.envelope;
    const core::Json& statement = *opened.statement;
    const std::string result = statement.find("predicate")->string_or("result", "?");
    std::cout << j.path << ": in-toto attestation, result " << result << "\n";
    for (const auto& subject : statement.find("subject")->as_array()) {
        const core::Json* digest = subject.find("digest");
        std::cout << "  subject " << subject.string_or("name", "?") << " sha256 "
                  << (digest ? digest->string_or("sha256", "?") : "?") << "\n";
    }
    bool verified = false;
    for (const auto& s : opened.signatures) {
        std::cout << "  " << trust::judge_signature(s.state, s.key_id, o).line << "\n";
        verified = verified || s.state == trust::SignatureState::Verified;
    }
    if (opened.signatures.empty()) std::cout << "  unsigned\n";
    if (j.kind == trust::FileKind::BadSignature) {
        std::cerr << "bi-run: " << j.problem << "\n";
        return kExitError;
    }
    // The statement is a claim about a cert that is not here to re-check: it counts only when a
    // trusted key vouches for it.
    if (!verified) {
        std::cout << "  - no signature by a trusted key"
                  << (o.require_signature ? " (--require-signature)" : "")
                  << ": the statement's result is not vouched for\n";
        return kExitNotPromotable;
    }
    if (result != "PASSED") std::cout << "  - result " << result << ", not PASSED\n";
    return result == "PASSED" ? kExitPromotable : kExitNotPromotable;
}

int verify_upstream(const trust::Judgement& j) {
    const auto& c = *j.upstream;
    std::cout << j.path << ": " << c.status << " (not promotable)\n"
              << "  model " << c.model << ", ctx " << c.ctx << ", N " << c.dispatch_n << ", source "
              << (c.source.empty() ? "unknown" : c.source) << ", " << trust::kUpstreamLabel << "\n";
    for (const auto& reason : c.decision_reasons) std::cout << "  reason: " << reason << "\n";
    std::cout << "  - " << trust::kUpstreamLabel
              << ": it carries no digest or schema, so nothing here can check it\n";
    std::cerr << "bi-run: note: " << j.problem << "\n";
    return kExitNotPromotable;
}

// A cert, trusted or not: its verdict, gates and every reason it is not promotable.
int verify_cert(const trust::Judgement& j, const VerifyOptions& o) {
    const core::Cert& cert = j.loaded.cert;
    const auto& gates = cert.gates;
    const auto& v = cert.verdict;
    const bool promotable = j.promotable();
    std::cout << j.path << ": "
              << report::verdict_headline(v.status, v.divergence_class, v.anomaly, promotable)
              << (promotable || v.status == core::Status::Green ? "" : ", not promotable") << "\n"
              << "  model " << cert.cell.model << ", ctx " << cert.cell.ctx << ", N "
              << cert.cell.dispatch_n << ", source " << core::name(cert.source) << ", gate "
              << cert.gate << ", rule " << core::deciding_rule(cert).name << "\n"
              << "  overlap " << (gates.overlap.ok ? "ok" : "NOT ok") << ", completion floor "
              << (gates.completion_floor.ok ? "ok" : "NOT ok") << ", co-batch coverage "
              << (gates.cobatch_coverage.ok ? "ok" : "NOT ok") << ", digest "
              << (j.loaded.digest_intact ? "intact" : "MISMATCH") << "\n";
    if (cert.signature || !o.trusted.empty() || o.require_signature)
        std::cout << "  " << j.signature.line << "\n";
    if (!o.expected.empty())
        std::cout << "  configuration " << core::configuration_id(cert) << "\n";
    for (const auto& reason : j.promotion.reasons) std::cout << "  - " << reason << "\n";
    if (!j.trusted()) {
        std::cerr << "bi-run: " << j.problem << "\n";
        return kExitError;
    }
    return promotable ? kExitPromotable : kExitNotPromotable;
}

// The exit code for one file: 0 promotable, 3 not promotable, 1 unusable (unreadable, not a
// cert, edited, disagreeing with itself, or a signature that does not verify).
int verify_one(const std::string& path, const VerifyOptions& o) {
    const trust::Judgement j = trust::judge(path, o);
    switch (j.kind) {
        case trust::FileKind::Attestation:
            return verify_envelope(j, o);
        case trust::FileKind::Upstream:
            return verify_upstream(j);
        case trust::FileKind::Unreadable:
        case trust::FileKind::NotACert:
        case trust::FileKind::Inconsistent:  // its verdict is not what its evidence gives
            return invalid(j);
        case trust::FileKind::BadSignature:
            if (j.envelope) return verify_envelope(j, o);
            return verify_cert(j, o);
        case trust::FileKind::DigestMismatch:
        case trust::FileKind::Cert:
            break;
    }
    return verify_cert(j, o);
}

}  // namespace

int verify_cert_main(int argc, char** argv) {
    cxxopts::Options options(
        "bi-run verify-cert",
        "Re-check certs: prints each verdict, its source and gates, and every "
        "reason a cert is not promotable. Also reads attest's in-toto envelopes and the "
        "upstream tool's v0.1 certs (never promotable).\n\nExit status: 0 when every cert is "
        "promotable, 3 when any is not, 1 when any file is missing, unreadable, "
        "not JSON, not a cert, fails its digest or signature check, or disagrees with itself "
        "(its status, source or gates are not what its own evidence gives), 2 usage error.");
    options.positional_help("CERT.json...");
    auto trust_group = options.add_options();
    add_trusted_key_option(trust_group);
    add_promotion_options(trust_group);
    options.add_options("Output")("h,help", "Show this help");
    options.add_options("Positional")("certs", "Cert files",
                                      cxxopts::value<std::vector<std::string>>());
    options.parse_positional({"certs"});
    const auto args = parse_command_line(options, argc, argv);
    if (args.count("help")) {
        std::cout << options.help({"", "Output"}) << "\n";
        return kExitPromotable;
    }
    if (!args.count("certs")) throw Error(ErrorCategory::Usage, "name at least one cert file");
    const VerifyOptions o = judge_options(args);

    int worst = kExitPromotable;
    for (const auto& path : args["certs"].as<std::vector<std::string>>()) {
        const int code = verify_one(path, o);
        if (code == kExitError || (code == kExitNotPromotable && worst == kExitPromotable))
            worst = code;
    }
    return worst;
}

}  // namespace bi::cli
