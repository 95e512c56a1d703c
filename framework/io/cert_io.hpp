// The cert on disk: canonical text, digest, atomic write, validated read.
#pragma once

#include <string>

#include "core/cert.hpp"
#include "core/json.hpp"

namespace bi::io {

// sha256 hex of the compact, key-sorted text of the cert with its "digest" member removed.
std::string cert_digest(const core::Json& document);

// The file form: the cert plus its digest, keys sorted, 2-space indent, trailing newline.
std::string render_cert(const core::Cert& cert);

// Renders, then writes atomically (mode 0644). An existing file is replaced only on success.
void write_cert(const std::string& path, const core::Cert& cert);

struct LoadedCert {
    core::Json document;        // the file's JSON as read
    core::Cert cert;            // its typed value; meaningful only when shape_problem is empty
    std::string shape_problem;  // "$.path: message" when the cert is malformed, else empty
    bool digest_intact = false;
};

// Throws bi::Error(Io) when unreadable and bi::Error(Json) when not JSON; a JSON document that
// is not a well-formed cert comes back with shape_problem set.
LoadedCert read_cert(const std::string& path);

}  // namespace bi::io
