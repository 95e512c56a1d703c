// The cert on disk: canonical text, digest, optional Ed25519 signature, atomic write, validated
// read.
#pragma once

#include <memory>
#include <string>

#include "core/cert.hpp"
#include "core/json.hpp"
#include "signing.hpp"

namespace bi::io {

// The compact, key-sorted text of the cert without its "digest" and "signature" members: what
// the digest hashes and what a signature signs.
std::string cert_signed_text(const core::Json& document);

// sha256 hex of cert_signed_text(document).
std::string cert_digest(const core::Json& document);

// The file form: the cert plus its digest (and, with a key, its signature), keys sorted, 2-space
// indent, trailing newline.
std::string render_cert(const core::Cert& cert, const SigningKey* key = nullptr);

// Renders, then writes atomically (mode 0644). An existing file is replaced only on success.
void write_cert(const std::string& path, const core::Cert& cert, const SigningKey* key = nullptr);

struct LoadedCert {
    core::Json document;        // the file's JSON as read
    core::Cert cert;            // its typed value; meaningful only when shape_problem is empty
    std::string shape_problem;  // "$.path: message" when the cert is malformed, else empty
    bool digest_intact = false;
};

// Throws bi::Error(Io) when unreadable and bi::Error(Json) when not JSON; a JSON document that
// is not a well-formed cert comes back with shape_problem set.
LoadedCert read_cert(const std::string& path);

enum class SignatureState { Unsigned, Verified, UntrustedKey, BadSignature, Malformed };

// Checks a cert document's signature against the trusted keys.
SignatureState check_cert_signature(const core::Json& document, const TrustedKeys& trusted);

}  // namespace bi::io
