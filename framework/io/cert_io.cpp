#include "cert_io.hpp"

#include "core/cert.hpp"
#include "core/sha256.hpp"
#include "files.hpp"
#include "json_text.hpp"

namespace bi::io {

std::string cert_digest(const core::Json& cert) {
    core::Json body = cert;
    body.erase("digest");
    return core::sha256_hex(to_json_text(body));
}

std::string render_cert(core::Json cert) {
    cert.set("digest", cert_digest(cert));
    return to_json_text(cert, true) + "\n";
}

void write_cert(const std::string& path, const core::Json& cert) {
    write_file_atomically(path, render_cert(cert));
}

LoadedCert read_cert(const std::string& path) {
    LoadedCert loaded;
    loaded.cert = parse_json(read_file(path), path);
    loaded.shape_problem = core::validate_cert_shape(loaded.cert);
    if (const core::Json* digest = loaded.cert.find("digest"); digest && digest->is_string())
        loaded.digest_intact = digest->as_string() == cert_digest(loaded.cert);
    return loaded;
}

}  // namespace bi::io
