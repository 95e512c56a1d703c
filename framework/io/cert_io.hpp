// The cert on disk: canonical text, digest, an optional signature (made by a CertSigner, which
// framework/trust implements), atomic write, validated read. Baselines and their check reports
// are signed documents of the same kind (render_signed).
#pragma once

#include <string>
#include <string_view>

#include "core/cert.hpp"
#include "core/json.hpp"

namespace bi::io {

// The compact, key-sorted text of the cert without its "digest" and "signature" members: what
// the digest hashes and what a signature signs.
std::string cert_signed_text(const core::Json& document);

// sha256 hex of cert_signed_text(document).
std::string cert_digest(const core::Json& document);

// Makes a cert's "signature" member over the text the digest hashes (cert_signed_text).
class CertSigner {
public:
    virtual ~CertSigner() = default;
    virtual core::Json signature_for(std::string_view signed_text) const = 0;
};

// The file form of any signed document: `document` with its digest over cert_signed_text (and,
// with a signer, its signature), keys sorted, 2-space indent, trailing newline.
std::string render_signed(core::Json document, const CertSigner* signer = nullptr);

// The file form: the cert plus its digest (and, with a signer, its signature), keys sorted,
// 2-space indent, trailing newline.
std::string render_cert(const core::Cert& cert, const CertSigner* signer = nullptr);

// Renders, then writes atomically (mode 0644). An existing file is replaced only on success.
void write_cert(const std::string& path, const core::Cert& cert,
                const CertSigner* signer = nullptr);

struct LoadedCert {
    core::Json document;        // the file's JSON as read
    std::string file_sha256;    // of the file's bytes, as read (what an in-toto subject names)
    core::Cert cert;            // its typed value; meaningful only when shape_problem is empty
    std::string shape_problem;  // "$.path: message" when the cert is malformed, else empty
    bool digest_intact = false;
};

// Throws bi::Error(Io) when unreadable and bi::Error(Json) when not JSON; a JSON document that
// is not a well-formed cert comes back with shape_problem set.
LoadedCert read_cert(const std::string& path);

}  // namespace bi::io
