// The cert as an in-toto attestation: a Statement v1 with the test-result v0.1 predicate, in a
// DSSE envelope whose signatures (Ed25519, the cert's key) are over the PAE encoding.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cert_signature.hpp"
#include "core/cert.hpp"
#include "core/json.hpp"
#include "signing.hpp"
#include "upstream_cert.hpp"

namespace bi::trust {

inline constexpr std::string_view kStatementType = "https://in-toto.io/Statement/v1";
inline constexpr std::string_view kTestResultPredicate =
    "https://in-toto.io/attestation/test-result/v0.1";
inline constexpr std::string_view kDssePayloadType = "application/vnd.in-toto+json";

// DSSE's pre-authentication encoding: "DSSEv1 <len(type)> <type> <len(body)> <body>".
std::string dsse_pae(std::string_view payload_type, std::string_view payload);

// PASSED for a promotable GREEN, FAILED for RED, WARNED for everything else.
std::string_view attestation_result(core::Status status, bool promotable);

// Subjects: the cert file (the sha256 of its bytes, as in-toto verifiers match an artifact,
// with the cert's internal digest as the annotation bi_cert_digest) and every file it names
// with a sha256 (model, server binaries, work-set, plugins). `cert_name` is the file's name.
core::Json attestation_statement(const core::Cert& cert, const std::string& cert_name,
                                 const std::string& cert_file_sha256, bool promotable);

// An upstream cert has no digest and names no files: its one subject is the file, by the sha256
// of its bytes (`file_sha256`); the result follows its status, never PASSED.
core::Json upstream_attestation_statement(const UpstreamCert& cert, const std::string& cert_name,
                                          const std::string& file_sha256);

// The envelope of a statement, signed when `key` is given (signatures: [] otherwise).
core::Json dsse_envelope(const core::Json& statement, const SigningKey* key);

bool looks_like_dsse_envelope(const core::Json& document);

struct EnvelopeSignature {
    std::string key_id;
    SignatureState state = SignatureState::Malformed;
};

struct OpenedEnvelope {
    std::optional<core::Json> statement;  // set when the payload is an in-toto statement
    std::string problem;                  // otherwise why not
    std::vector<EnvelopeSignature> signatures;
};

OpenedEnvelope open_envelope(const core::Json& envelope, const TrustedKeys& trusted);

}  // namespace bi::trust
