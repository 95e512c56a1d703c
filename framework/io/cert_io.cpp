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

std::string render_cert(const core::Cert& cert, const SigningKey* key) {
    core::Json document = cert_to_json(cert);
    document.erase("signature");
    const std::string text = cert_signed_text(document);
    document.set("digest", core::sha256_hex(text));
    if (key)
        document.set("signature", core::Json::Object{{"alg", "ed25519"},
                                                     {"key_id", key->key_id()},
                                                     {"value", base64_encode(key->sign(text))}});
    return to_json_text(document, true) + "\n";
}

void write_cert(const std::string& path, const core::Cert& cert, const SigningKey* key) {
    write_file_atomically(path, render_cert(cert, key));
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

SignatureState check_cert_signature(const core::Json& document, const TrustedKeys& trusted) {
    const core::Json* signature = document.find("signature");
    if (!signature || signature->is_null()) return SignatureState::Unsigned;
    const core::Json* alg = signature->find("alg");
    const core::Json* key_id = signature->find("key_id");
    const core::Json* value = signature->find("value");
    if (!alg || !alg->is_string() || alg->as_string() != "ed25519" || !key_id ||
        !key_id->is_string() || !value || !value->is_string())
        return SignatureState::Malformed;
    const auto raw = base64_decode(value->as_string());
    if (!raw) return SignatureState::Malformed;
    switch (trusted.verify(cert_signed_text(document), key_id->as_string(), *raw)) {
        case TrustedKeys::Check::Verified:
            return SignatureState::Verified;
        case TrustedKeys::Check::UntrustedKey:
            return SignatureState::UntrustedKey;
        case TrustedKeys::Check::BadSignature:
            break;
    }
    return SignatureState::BadSignature;
}

}  // namespace bi::io
