#include "verification_text.hpp"

#include <sstream>

#include "core/cert_consistency.hpp"
#include "core/configuration.hpp"
#include "verdict_headline.hpp"

namespace bi::report {

namespace {

using Outcome = VerificationOutcome;

// The first line of everything a person reads about a file that cannot be trusted.
std::string invalid_line(const trust::Judgement& j) {
    return j.path + ": INVALID (" + std::string(trust::name(j.kind)) + ")\n";
}

Verification invalid(const trust::Judgement& j) {
    return {Outcome::Invalid, invalid_line(j), j.problem};
}

// An attestation: a claim about a cert that is not here to re-check, so it counts only when a
// trusted key vouches for it.
Verification envelope(const trust::Judgement& j, const trust::JudgeOptions& o) {
    const auto& opened = *j.envelope;
    const core::Json& statement = *opened.statement;
    const std::string result = statement.find("predicate")->string_or("result", "?");
    std::ostringstream out;
    if (j.kind == trust::FileKind::BadSignature) out << invalid_line(j);
    out << (j.kind == trust::FileKind::BadSignature ? "  claims: " : j.path + ": ")
        << "in-toto attestation, result " << result << "\n";
    for (const auto& subject : statement.find("subject")->as_array()) {
        const core::Json* digest = subject.find("digest");
        out << "  subject " << subject.string_or("name", "?") << " sha256 "
            << (digest ? digest->string_or("sha256", "?") : "?") << "\n";
    }
    bool verified = false;
    for (const auto& s : opened.signatures) {
        out << "  " << trust::judge_signature(s.state, s.key_id, o).line << "\n";
        verified = verified || s.state == trust::SignatureState::Verified;
    }
    if (opened.signatures.empty()) out << "  unsigned\n";
    if (j.kind == trust::FileKind::BadSignature) return {Outcome::Invalid, out.str(), j.problem};
    if (!verified) {
        out << "  - no signature by a trusted key"
            << (o.require_signature ? " (--require-signature)" : "")
            << ": the statement's result is not vouched for\n";
        return {Outcome::NotPromotable, out.str(), ""};
    }
    if (result != "PASSED") out << "  - result " << result << ", not PASSED\n";
    return {result == "PASSED" ? Outcome::Promotable : Outcome::NotPromotable, out.str(), ""};
}

Verification upstream(const trust::Judgement& j) {
    const auto& c = *j.upstream;
    std::ostringstream out;
    out << j.path << ": " << upstream_headline(c)
        << (c.verdict == core::Status::Green ? "" : ", not promotable") << "\n"
        << "  model " << c.model << ", ctx " << c.ctx << ", N " << c.dispatch_n << ", source "
        << (c.source.empty() ? "unknown" : c.source) << ", diverged " << c.n_divergent << ", "
        << trust::kUpstreamLabel << "\n";
    for (const auto& reason : c.decision_reasons) out << "  reason: " << reason << "\n";
    out << "  - " << trust::kUpstreamLabel
        << ": it carries no digest or schema, so nothing here can check it\n";
    return {Outcome::NotPromotable, out.str(), j.problem, true};
}

// A cert, trusted or not: its verdict, gates and every reason it is not promotable.
Verification cert(const trust::Judgement& j, const trust::JudgeOptions& o) {
    const core::Cert& cert = j.loaded.cert;
    const auto& gates = cert.gates;
    const auto& v = cert.verdict;
    const bool promotable = j.promotable();
    std::ostringstream out;
    // A cert that fails its digest or signature claims a verdict; it is not one.
    if (!j.trusted())
        out << invalid_line(j)
            << "  claims: " << verdict_headline(v.status, v.divergence_class, v.anomaly, false)
            << "\n";
    else
        out << j.path << ": "
            << verdict_headline(v.status, v.divergence_class, v.anomaly, promotable)
            << (promotable || v.status == core::Status::Green ? "" : ", not promotable") << "\n";
    out << "  model " << cert.cell.model << ", ctx " << cert.cell.ctx << ", N "
        << cert.cell.dispatch_n << ", source " << core::name(cert.source) << ", gate " << cert.gate
        << ", rule " << core::deciding_rule(cert).name << "\n"
        << "  overlap " << (gates.overlap.ok ? "ok" : "NOT ok") << ", completion floor "
        << (gates.completion_floor.ok ? "ok" : "NOT ok") << ", co-batch coverage "
        << (gates.cobatch_coverage.ok ? "ok" : "NOT ok") << ", digest "
        << (j.loaded.digest_intact ? "intact" : "MISMATCH") << "\n";
    // Beside the verdict, never part of it: the exit status stays the verdict's.
    if (cert.cache_check)
        out << "  cache check: " << core::cache_check_line(*cert.cache_check) << "\n";
    if (cert.signature || !o.trusted.empty() || o.require_signature)
        out << "  " << j.signature.line << "\n";
    if (!o.expected.empty()) out << "  configuration " << core::configuration_id(cert) << "\n";
    for (const auto& reason : j.promotion.reasons) out << "  - " << reason << "\n";
    if (!j.trusted()) return {Outcome::Invalid, out.str(), j.problem};
    return {promotable ? Outcome::Promotable : Outcome::NotPromotable, out.str(), ""};
}

// A baseline or a check report that is intact: what it is, and that there is nothing to promote.
Verification baseline_document(const trust::Judgement& j) {
    std::ostringstream out;
    out << j.path << ": ";
    if (j.baseline) {
        const auto& b = *j.baseline->value;
        out << "a baseline of " << b.model << ", ctx " << b.ctx << ": " << b.answers.size()
            << " answers recorded " << b.ts_utc << " (source " << core::name(b.source)
            << "), not a cert\n";
    } else {
        const auto& c = *j.check->value;
        out << "a baseline check of " << c.model << ", ctx " << c.ctx << ": "
            << core::status_word(c.status) << " (" << c.ts_utc << "), not a cert\n";
    }
    out << "  " << j.signature.line << "\n";
    return {Outcome::NotPromotable, out.str(), j.problem, true};
}

}  // namespace

Verification verification(const trust::Judgement& j, const trust::JudgeOptions& o) {
    if ((j.baseline || j.check) && j.kind != trust::FileKind::Baseline &&
        j.kind != trust::FileKind::BaselineCheck)
        return invalid(j);
    switch (j.kind) {
        case trust::FileKind::Baseline:
        case trust::FileKind::BaselineCheck:
            return baseline_document(j);
        case trust::FileKind::Attestation:
            return envelope(j, o);
        case trust::FileKind::Upstream:
            return upstream(j);
        case trust::FileKind::Unreadable:
        case trust::FileKind::NotACert:
        case trust::FileKind::Inconsistent:  // its verdict is not what its evidence gives
            return invalid(j);
        case trust::FileKind::BadSignature:
            return j.envelope ? envelope(j, o) : cert(j, o);
        case trust::FileKind::DigestMismatch:
        case trust::FileKind::Cert:
            break;
    }
    return cert(j, o);
}

}  // namespace bi::report
