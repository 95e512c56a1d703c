#include "judge.hpp"

#include "core/cert_consistency.hpp"
#include "core/error.hpp"
#include "io/baseline_schema.hpp"
#include "io/server_kind_io.hpp"

namespace bi::trust {

namespace {

std::string signer_of(const core::Json& document) {
    const core::Json* signature = document.find("signature");
    return signature && signature->is_object() ? signature->string_or("key_id", "?") : "";
}

void judge_envelope(Judgement& j, const JudgeOptions& options) {
    auto opened = open_envelope(j.loaded.document, options.trusted);
    if (!opened.statement) {
        j.kind = FileKind::NotACert;
        j.problem = j.path + ": not an in-toto attestation: " + opened.problem;
        return;
    }
    j.kind = FileKind::Attestation;
    for (const auto& s : opened.signatures)
        if (s.state == SignatureState::BadSignature || s.state == SignatureState::Malformed) {
            j.kind = FileKind::BadSignature;
            j.problem = j.path + ": DSSE signature of key " + s.key_id +
                        " does not verify over the envelope's payload";
            break;
        }
    if (j.kind == FileKind::Attestation)
        j.problem = j.path + ": an in-toto attestation, not a cert";
    j.envelope = std::move(opened);
}

void judge_other(Judgement& j) {
    if (looks_like_upstream_cert(j.loaded.document)) {
        auto parsed = read_upstream_cert(j.loaded.document);
        if (parsed.cert) {
            j.kind = FileKind::Upstream;
            j.problem = j.path + ": " + kUpstreamLabel + ", status " + parsed.cert->status +
                        ": never promotable here";
            j.upstream = std::move(parsed.cert);
            return;
        }
        j.kind = FileKind::NotACert;
        j.problem = j.path + ": not a cert: " + kUpstreamLabel + " without " + parsed.problem;
        return;
    }
    j.kind = FileKind::NotACert;
    j.problem = j.path + ": not a cert: " + j.loaded.shape_problem;
}

// A baseline or a check report: well-formed, its digest intact, its signature verifying.
template <typename T>
void judge_signed_document(Judgement& j, const io::LoadedDocument<T>& loaded, const char* what,
                           FileKind valid, const JudgeOptions& options) {
    j.kind = valid;
    j.signature = judge_signature(check_cert_signature(loaded.document, options.trusted),
                                  signer_of(loaded.document), options);
    const auto state = j.signature.state;
    if (!loaded.value) {
        j.kind = FileKind::NotACert;
        j.problem = j.path + ": not a well-formed " + what + ": " + loaded.shape_problem;
    } else if (!loaded.digest_intact) {
        j.kind = FileKind::DigestMismatch;
        j.problem = j.path + ": digest mismatch: the " + what + " was edited or corrupted";
    } else if (state == SignatureState::BadSignature || state == SignatureState::Malformed) {
        j.kind = FileKind::BadSignature;
        j.problem = j.path + ": " + *j.signature.reason + ": the " + what +
                    " was changed after it was signed";
    } else {
        j.problem = j.path + ": a " + std::string(what) + ", not a cert";
    }
}

void judge_baseline(Judgement& j, const JudgeOptions& options) {
    j.baseline = io::baseline_from_document(j.loaded.document, j.loaded.file_sha256);
    judge_signed_document(j, *j.baseline, "baseline", FileKind::Baseline, options);
}

void judge_check(Judgement& j, const JudgeOptions& options) {
    j.check = io::check_from_document(j.loaded.document, j.loaded.file_sha256);
    judge_signed_document(j, *j.check, "baseline check report", FileKind::BaselineCheck, options);
}

void judge_cert(Judgement& j, const JudgeOptions& options) {
    const core::Cert& cert = j.loaded.cert;
    j.kind = FileKind::Cert;
    if (!j.loaded.digest_intact) {
        j.kind = FileKind::DigestMismatch;
        j.problem = j.path + ": digest mismatch: the cert was edited or corrupted";
    } else if (const auto lines = core::cert_disagreements(cert); !lines.empty()) {
        j.kind = FileKind::Inconsistent;
        j.problem = j.path + ": the cert disagrees with itself: " + lines.front();
    }
    const std::string kind_problem =
        cert.server && cert.server->kind ? io::builtin_kind_problem(*cert.server->kind) : "";
    if (j.kind == FileKind::Cert && !kind_problem.empty()) {
        j.kind = FileKind::Inconsistent;
        j.problem = j.path + ": the cert disagrees with itself: " + kind_problem;
    }
    j.signature = judge_signature(check_cert_signature(j.loaded.document, options.trusted),
                                  signer_of(j.loaded.document), options);
    const auto state = j.signature.state;
    if (j.kind == FileKind::Cert &&
        (state == SignatureState::BadSignature || state == SignatureState::Malformed)) {
        j.kind = FileKind::BadSignature;
        j.problem =
            j.path + ": " + *j.signature.reason + ": the cert was changed after it was signed";
    }
    j.promotion = core::check_promotable(cert, j.loaded.digest_intact);
    if (!kind_problem.empty()) {
        j.promotion.reasons.push_back("the cert disagrees with itself: " + kind_problem);
        j.promotion.promotable = false;
    }
    if (j.signature.reason) j.promotion.reasons.push_back(*j.signature.reason);
    j.deployment_mismatches = core::deployment_mismatches(cert, options.expected);
    for (const auto& line : j.deployment_mismatches)
        j.promotion.reasons.push_back("made for another deployment: " + line);
    j.promotion.promotable = j.kind == FileKind::Cert && j.promotion.reasons.empty();
}

}  // namespace

std::string_view name(FileKind kind) {
    switch (kind) {
        case FileKind::Unreadable:
            return "unreadable";
        case FileKind::Attestation:
            return "attestation";
        case FileKind::Upstream:
            return "upstream";
        case FileKind::NotACert:
            return "not a cert";
        case FileKind::DigestMismatch:
            return "digest mismatch";
        case FileKind::Inconsistent:
            return "disagrees with itself";
        case FileKind::BadSignature:
            return "signature does not verify";
        case FileKind::Baseline:
            return "baseline";
        case FileKind::BaselineCheck:
            return "baseline check";
        case FileKind::Cert:
            break;
    }
    return "cert";
}

SignatureFinding judge_signature(SignatureState state, const std::string& key_id,
                                 const JudgeOptions& o) {
    using S = SignatureState;
    SignatureFinding f{state, key_id, {}, std::nullopt};
    switch (state) {
        case S::Verified:
            f.line = "signature ok, ed25519 key " + key_id;
            return f;
        case S::Unsigned:
            f.line = "unsigned";
            if (o.require_signature)
                f.reason =
                    "unsigned, and --require-signature asks for a signature by a trusted key";
            return f;
        case S::UntrustedKey:
            f.line =
                "signed by key " + key_id +
                (o.trusted.empty() ? " (not checked: no --trusted-key)" : ", not a --trusted-key");
            if (o.require_signature || !o.trusted.empty())
                f.reason = "signed by key " + key_id + ", which is not among the trusted keys";
            return f;
        case S::BadSignature:
            f.line = "signature by key " + key_id + " does NOT verify";
            f.reason = "the signature does not verify";
            return f;
        case S::Malformed:
            break;
    }
    f.line = "signature malformed";
    f.reason = "the signature is malformed";
    return f;
}

bool Judgement::has_cert() const {
    if (envelope || baseline || check) return false;
    return kind == FileKind::Cert || kind == FileKind::DigestMismatch ||
           kind == FileKind::Inconsistent || kind == FileKind::BadSignature;
}

Judgement judge(const std::string& path, const JudgeOptions& options) {
    Judgement j;
    j.path = path;
    try {
        j.loaded = io::read_cert(path);
    } catch (const Error& e) {
        j.kind = FileKind::Unreadable;
        j.problem = without_bi_prefix(e.what());
        if (j.problem.rfind(path, 0) != 0) j.problem = path + ": " + j.problem;
        return j;
    }
    try {
        if (looks_like_dsse_envelope(j.loaded.document))
            judge_envelope(j, options);
        else if (io::names_baseline_schema(j.loaded.document))
            judge_baseline(j, options);
        else if (io::names_check_schema(j.loaded.document))
            judge_check(j, options);
        else if (!j.loaded.shape_problem.empty())
            judge_other(j);
        else
            judge_cert(j, options);
    } catch (const Error& e) {
        j.kind = FileKind::NotACert;
        j.problem = path + ": " + without_bi_prefix(e.what());
    }
    return j;
}

core::Json attestation_of(const Judgement& judgement, const std::string& name) {
    if (judgement.kind == FileKind::Upstream)
        return upstream_attestation_statement(*judgement.upstream, name,
                                              judgement.loaded.file_sha256);
    if (!judgement.trusted()) throw Error(ErrorCategory::Io, judgement.problem);
    return attestation_statement(judgement.loaded.cert, name, judgement.loaded.file_sha256,
                                 judgement.promotable());
}

}  // namespace bi::trust
