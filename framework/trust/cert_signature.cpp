#include "cert_signature.hpp"

#include "io/cert_io.hpp"

namespace bi::trust {

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
    switch (trusted.verify(io::cert_signed_text(document), key_id->as_string(), *raw)) {
        case TrustedKeys::Check::Verified:
            return SignatureState::Verified;
        case TrustedKeys::Check::UntrustedKey:
            return SignatureState::UntrustedKey;
        case TrustedKeys::Check::BadSignature:
            break;
    }
    return SignatureState::BadSignature;
}

}  // namespace bi::trust
