#include "cert_io.hpp"

#include "cert_schema.hpp"
#include "core/sha256.hpp"
#include "files.hpp"
#include "json_text.hpp"

namespace bi::io {

std::string cert_digest(const core::Json& document) {
    core::Json body = document;
    body.erase("digest");
    return core::sha256_hex(to_json_text(body));
}

std::string render_cert(const core::Cert& cert) {
    core::Json document = cert_to_json(cert);
    document.set("digest", cert_digest(document));
    return to_json_text(document, true) + "\n";
}

void write_cert(const std::string& path, const core::Cert& cert) {
    write_file_atomically(path, render_cert(cert));
}

LoadedCert read_cert(const std::string& path) {
    LoadedCert loaded;
    loaded.document = parse_json(read_file(path), path);
    auto parsed = cert_from_json(loaded.document);
    loaded.shape_problem = parsed.problem;
    if (parsed.cert) loaded.cert = std::move(*parsed.cert);
    if (const core::Json* digest = loaded.document.find("digest"); digest && digest->is_string())
        loaded.digest_intact = digest->as_string() == cert_digest(loaded.document);
    return loaded;
}

}  // namespace bi::io
