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
#include "io/attestation.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "io/upstream_cert.hpp"
#include "option_tokens.hpp"
#include "verdict_headline.hpp"

namespace bi::cli {

namespace {

struct VerifyOptions {
    io::TrustedKeys trusted;
    bool require_signature = false;
    std::vector<core::Expectation> expected;
};

int invalid(const std::string& path, const std::string& message) {
    std::cout << path << ": INVALID\n";
    std::cerr << "bi-run: " << path << ": " << message << "\n";
    return kExitError;
}

// The signature's line and, when it keeps the cert from being promotable, the reason; an
// invalid signature is an error (the text was changed after it was signed).
struct SignatureVerdict {
    std::string line;
    std::optional<std::string> reason;
    bool broken = false;
};

SignatureVerdict judge_signature(io::SignatureState state, const std::string& key_id,
                                 const VerifyOptions& o) {
    using S = io::SignatureState;
    switch (state) {
        case S::Verified:
            return {"signature ok, ed25519 key " + key_id, std::nullopt, false};
        case S::Unsigned:
            return {"unsigned",
                    o.require_signature
                        ? std::optional<std::string>("unsigned, and --require-signature asks for a "
                                                     "signature by a trusted key")
                        : std::nullopt,
                    false};
        case S::UntrustedKey:
            return {"signed by key " + key_id +
                        (o.trusted.empty() ? " (not checked: no --trusted-key)"
                                           : ", not a --trusted-key"),
                    o.require_signature || !o.trusted.empty()
                        ? std::optional<std::string>("signed by key " + key_id +
                                                     ", which is not among the trusted keys")
                        : std::nullopt,
                    false};
        case S::BadSignature:
            return {"signature by key " + key_id + " does NOT verify",
                    "the signature does not verify", true};
        case S::Malformed:
            break;
    }
    return {"signature malformed", "the signature is malformed", true};
}

std::string signer_of(const core::Json& document, const char* id_key = "key_id") {
    const core::Json* signature = document.find("signature");
    return signature ? signature->string_or(id_key, "?") : "";
}

int verify_envelope(const std::string& path, const core::Json& document, const VerifyOptions& o) {
    const auto opened = io::open_envelope(document, o.trusted);
    if (!opened.statement) return invalid(path, "not an in-toto attestation: " + opened.problem);
    const core::Json& statement = *opened.statement;
    const std::string result = statement.find("predicate")->string_or("result", "?");
    std::cout << path << ": in-toto attestation, result " << result << "\n";
    for (const auto& subject : statement.find("subject")->as_array()) {
        const core::Json* digest = subject.find("digest");
        std::cout << "  subject " << subject.string_or("name", "?") << " sha256 "
                  << (digest ? digest->string_or("sha256", "?") : "?") << "\n";
    }
    bool verified = false;
    for (const auto& s : opened.signatures) {
        const auto verdict = judge_signature(s.state, s.key_id, o);
        std::cout << "  " << verdict.line << "\n";
        if (verdict.broken)
            return invalid(path, "DSSE signature of key " + s.key_id +
                                     " does not verify over the envelope's payload");
        verified = verified || s.state == io::SignatureState::Verified;
    }
    if (opened.signatures.empty()) std::cout << "  unsigned\n";
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

int verify_upstream(const std::string& path, const core::Json& document) {
    const auto parsed = io::read_upstream_cert(document);
    if (!parsed.cert)
        return invalid(
            path, std::string("not a cert: ") + io::kUpstreamLabel + " without " + parsed.problem);
    const auto& c = *parsed.cert;
    std::cout << path << ": " << c.status << " (not promotable)\n"
              << "  model " << c.model << ", ctx " << c.ctx << ", N " << c.dispatch_n << ", source "
              << (c.source.empty() ? "unknown" : c.source) << ", " << io::kUpstreamLabel << "\n";
    for (const auto& reason : c.decision_reasons) std::cout << "  reason: " << reason << "\n";
    std::cout << "  - " << io::kUpstreamLabel
              << ": it carries no digest or schema, so nothing here can check it\n";
    return kExitNotPromotable;
}

// Returns the exit code for one file: 0 promotable, 3 not promotable, 1 unusable (a cert that
// disagrees with itself is unusable: its digest was recomputed over an edited verdict).
int verify_loaded(const std::string& path, const VerifyOptions& o) {
    io::LoadedCert loaded;
    try {
        loaded = io::read_cert(path);
    } catch (const Error& e) {
        std::cout << path << ": INVALID\n";
        std::cerr << "bi-run: " << e.what() << "\n";
        return kExitError;
    }
    if (io::looks_like_dsse_envelope(loaded.document))
        return verify_envelope(path, loaded.document, o);
    if (!loaded.shape_problem.empty()) {
        if (io::looks_like_upstream_cert(loaded.document))
            return verify_upstream(path, loaded.document);
        return invalid(path, "not a cert: " + loaded.shape_problem);
    }
    const core::Cert& cert = loaded.cert;
    if (loaded.digest_intact) {
        const auto disagreements = core::cert_disagreements(cert);
        if (!disagreements.empty())
            return invalid(path, "the cert disagrees with itself: " + disagreements.front());
    }
    auto promotion = core::check_promotable(cert, loaded.digest_intact);
    const auto signature = judge_signature(io::check_cert_signature(loaded.document, o.trusted),
                                           signer_of(loaded.document), o);
    if (signature.reason) promotion.reasons.push_back(*signature.reason);
    for (const auto& line : core::deployment_mismatches(cert, o.expected))
        promotion.reasons.push_back("made for another deployment: " + line);
    promotion.promotable = promotion.reasons.empty();
    const auto& gates = cert.gates;
    const auto& v = cert.verdict;
    std::cout << path << ": "
              << verdict_headline(v.status, v.divergence_class, v.anomaly, promotion.promotable)
              << (promotion.promotable || v.status == core::Status::Green ? "" : ", not promotable")
              << "\n"
              << "  model " << cert.cell.model << ", ctx " << cert.cell.ctx << ", N "
              << cert.cell.dispatch_n << ", source " << core::name(cert.source) << ", gate "
              << cert.gate << "\n"
              << "  overlap " << (gates.overlap.ok ? "ok" : "NOT ok") << ", completion floor "
              << (gates.completion_floor.ok ? "ok" : "NOT ok") << ", co-batch coverage "
              << (gates.cobatch_coverage.ok ? "ok" : "NOT ok") << ", digest "
              << (loaded.digest_intact ? "intact" : "MISMATCH") << "\n";
    if (cert.signature || !o.trusted.empty() || o.require_signature)
        std::cout << "  " << signature.line << "\n";
    if (!o.expected.empty())
        std::cout << "  configuration " << core::configuration_id(cert) << "\n";
    for (const auto& reason : promotion.reasons) std::cout << "  - " << reason << "\n";
    if (!loaded.digest_intact) {
        std::cerr << "bi-run: " << path << ": digest mismatch: the cert was edited or corrupted\n";
        return kExitError;
    }
    if (signature.broken) {
        std::cerr << "bi-run: " << path << ": " << *signature.reason
                  << ": the cert was changed after it was signed\n";
        return kExitError;
    }
    return promotion.promotable ? kExitPromotable : kExitNotPromotable;
}

// Anything that goes wrong while judging one file names that file and marks it INVALID.
int verify_one(const std::string& path, const VerifyOptions& o) {
    try {
        return verify_loaded(path, o);
    } catch (const Error& e) {
        return invalid(path, e.what());
    }
}

core::Expectation expectation(const std::string& text, const std::string& where) {
    const auto eq = text.find('=');
    const std::string key = eq == std::string::npos ? text : text.substr(0, eq);
    if (eq == std::string::npos || key.empty())
        throw Error(ErrorCategory::Usage, where + " " + text + ": expected KEY=VALUE");
    if (!core::known_expectation_key(key)) {
        std::string keys;
        for (auto k : core::expectation_keys()) keys += (keys.empty() ? "" : ", ") + std::string(k);
        throw Error(ErrorCategory::Usage,
                    where + " " + text + ": unknown key '" + key + "' (one of " + keys + ")");
    }
    return {key, text.substr(eq + 1)};
}

// A JSON object of the same keys: strings or integers, or lists of them for repeatable keys.
std::vector<core::Expectation> deployment_file(const std::string& path) {
    const std::string where = "--expect-deployment " + path;
    core::Json document;
    try {
        document = io::parse_json(io::read_file(path), path);
    } catch (const Error& e) {
        throw Error(ErrorCategory::Usage, "--expect-deployment: " + std::string(e.what()));
    }
    if (!document.is_object()) throw Error(ErrorCategory::Usage, where + ": not a JSON object");
    std::vector<core::Expectation> out;
    const auto add = [&](const std::string& key, const core::Json& value) {
        if (value.is_string())
            out.push_back(expectation(key + "=" + value.as_string(), where));
        else if (value.is_int())
            out.push_back(expectation(key + "=" + std::to_string(value.as_int()), where));
        else
            throw Error(ErrorCategory::Usage,
                        where + ": " + key + " must be a string, an integer or a list of them");
    };
    for (const auto& [key, value] : document.as_object()) {
        if (value.is_array())
            for (const auto& item : value.as_array()) add(key, item);
        else
            add(key, value);
    }
    return out;
}

VerifyOptions verify_options(const cxxopts::ParseResult& args) {
    VerifyOptions o;
    // Whole tokens: a key path or an expected flag list may hold a comma.
    for (const auto& path : option_tokens(args, "trusted-key")) o.trusted.add(path);
    o.require_signature = args.count("require-signature") > 0;
    if (o.require_signature && o.trusted.empty())
        throw Error(ErrorCategory::Usage,
                    "--require-signature needs --trusted-key (the keys a signature must be by)");
    for (const auto& text : option_tokens(args, "expect"))
        o.expected.push_back(expectation(text, "--expect"));
    if (args.count("expect-deployment"))
        for (auto& e : deployment_file(args["expect-deployment"].as<std::string>()))
            o.expected.push_back(std::move(e));
    return o;
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
    options.add_options()("trusted-key",
                          "A public key file (or a directory of *.pub / *.pem) whose signatures "
                          "are trusted (repeatable)",
                          cxxopts::value<std::vector<std::string>>())(
        "require-signature", "A cert not signed by a trusted key is not promotable")(
        "expect",
        "KEY=VALUE the cert must have been made for (repeatable): binary_sha256, model_sha256, "
        "model, server_flag, server_flags, ctx, n, kv_label, plugin_sha256, workset_sha256, "
        "scorer, source, configuration_id",
        cxxopts::value<std::vector<std::string>>())(
        "expect-deployment", "A JSON object of the same keys (lists for repeatable ones)",
        cxxopts::value<std::string>());
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
    const VerifyOptions o = verify_options(args);

    int worst = kExitPromotable;
    for (const auto& path : args["certs"].as<std::vector<std::string>>()) {
        const int code = verify_one(path, o);
        if (code == kExitError || (code == kExitNotPromotable && worst == kExitPromotable))
            worst = code;
    }
    return worst;
}

}  // namespace bi::cli
