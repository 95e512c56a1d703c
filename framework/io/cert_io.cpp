#include "cert_io.hpp"

#include "cert_schema.hpp"
#include "core/sha256.hpp"
#include "files.hpp"
#include "json_text.hpp"

namespace bi::io {

std::string cert_signed_text(const core::Json& document) {
    core::Json body = document;
    body.erase("digest");
    body.erase("signature");
    return to_json_text(body);
}

std::string cert_digest(const core::Json& document) {
    return core::sha256_hex(cert_signed_text(document));
}

std::string render_signed(core::Json document, const CertSigner* signer) {
    document.erase("signature");
    const std::string text = cert_signed_text(document);
    document.set("digest", core::sha256_hex(text));
    if (signer) document.set("signature", signer->signature_for(text));
    return to_json_text(document, true) + "\n";
}

std::string render_cert(const core::Cert& cert, const CertSigner* signer) {
    return render_signed(cert_to_json(cert), signer);
}

void write_cert(const std::string& path, const core::Cert& cert, const CertSigner* signer) {
    write_file_atomically(path, render_cert(cert, signer));
}

LoadedCert read_cert(const std::string& path) {
    LoadedCert loaded;
    const std::string bytes = read_file(path);
    loaded.file_sha256 = core::sha256_hex(bytes);
    loaded.document = parse_json(bytes, path);
    auto parsed = cert_from_json(loaded.document);
    loaded.shape_problem = parsed.problem;
    if (parsed.cert) loaded.cert = std::move(*parsed.cert);
    if (const core::Json* digest = loaded.document.find("digest"); digest && digest->is_string())
        loaded.digest_intact = digest->as_string() == cert_digest(loaded.document);
    return loaded;
}

}  // namespace bi::io
