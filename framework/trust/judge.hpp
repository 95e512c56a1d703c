// The one judgement of a file that every command reading certs asks for (verify-cert, report,
// attest, baseline check): is it readable, a cert, an attestation, an upstream cert, a baseline
// or a baseline check report; is its digest intact;
// does it agree with itself; who signed it; was it made for the expected deployment; and so is
// it promotable. Commands differ only in how they print a judgement and map it to an exit code.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attestation.hpp"
#include "cert_signature.hpp"
#include "core/cert.hpp"
#include "core/deployment.hpp"
#include "io/baseline_io.hpp"
#include "io/cert_io.hpp"
#include "signing.hpp"
#include "upstream_cert.hpp"

namespace bi::trust {

// What a file is, in the order the checks run: the first that applies.
enum class FileKind {
    Unreadable,      // missing, not a regular file, too large, not JSON
    Attestation,     // an in-toto DSSE envelope (bi-run attest's output)
    Upstream,        // a cert of the upstream Python tool: shown with its words, never promotable
    NotACert,        // JSON, but none of the above and not a bi-cert document
    DigestMismatch,  // a cert whose text changed after its digest was computed
    Inconsistent,    // a cert whose verdict or gates are not what its own evidence gives
    BadSignature,    // a cert whose signature is malformed or does not verify
    Cert,            // a cert that agrees with its digest, itself and its signature
    // A stored serial baseline, or a check report against one (docs/baseline.md), that agrees
    // with its digest and its signature; one that does not is DigestMismatch, BadSignature or
    // NotACert (malformed) with `baseline` or `check` set.
    Baseline,
    BaselineCheck,
};

// "unreadable", "attestation", "upstream", "not a cert", "digest mismatch", "inconsistent",
// "bad signature", "cert".
std::string_view name(FileKind kind);

struct JudgeOptions {
    TrustedKeys trusted;             // empty: a signature is reported, its key not checked
    bool require_signature = false;  // a cert not signed by a trusted key is not promotable
    std::vector<core::Expectation> expected;  // the deployment the cert must have been made for
};

// A signature as a reader sees it: its one line and, when it keeps the cert from being
// promotable, the reason.
struct SignatureFinding {
    SignatureState state = SignatureState::Unsigned;
    std::string key_id;
    std::string line;                   // "signature ok, ed25519 key ...", "unsigned", ...
    std::optional<std::string> reason;  // set when it costs the cert its promotion
};

SignatureFinding judge_signature(SignatureState state, const std::string& key_id,
                                 const JudgeOptions& options);

struct Judgement {
    std::string path;
    FileKind kind = FileKind::Unreadable;
    // One line naming the file, for every kind but Cert: "PATH: digest mismatch: the cert was
    // edited or corrupted", "PATH: upstream v0.1 cert (no digest), status green: never
    // promotable here", ...
    std::string problem;
    io::LoadedCert loaded;  // the document for every JSON file; the typed cert when has_cert()
    std::optional<UpstreamCert> upstream;    // Upstream
    std::optional<OpenedEnvelope> envelope;  // Attestation (and an envelope with a bad signature)
    std::optional<io::LoadedBaseline> baseline;  // a file whose schema names a baseline
    std::optional<io::LoadedCheck> check;        // a file whose schema names a baseline check
    SignatureFinding signature;  // a cert's, a baseline's or a check report's own signature
    core::Promotion promotion;   // a cert's: every reason it is not promotable, signature and
                                 // deployment included
    std::vector<std::string> deployment_mismatches;  // the expected keys the cert does not meet

    // A typed cert is there to show, trusted or not.
    bool has_cert() const;
    const core::Cert& cert() const { return loaded.cert; }
    // A cert whose verdict a reader may rely on (promotable or not).
    bool trusted() const { return kind == FileKind::Cert; }
    // A baseline check report a reader may rely on: well-formed, digest and signature intact.
    bool trusted_check() const { return kind == FileKind::BaselineCheck; }
    bool promotable() const { return trusted() && promotion.promotable; }
};

// Judges one file; never throws for what is in the file (the judgement says it).
Judgement judge(const std::string& path, const JudgeOptions& options = {});

// The in-toto statement of a judged file named `name`: a trusted cert's, or an upstream cert's
// (shown for what it is, never PASSED). bi::Error(Io) with the problem for any other file.
core::Json attestation_of(const Judgement& judgement, const std::string& name);

}  // namespace bi::trust
