// A cert's signature: the state of its "signature" member against the keys a reader trusts.
#pragma once

#include "core/json.hpp"
#include "signing.hpp"

namespace bi::trust {

enum class SignatureState { Unsigned, Verified, UntrustedKey, BadSignature, Malformed };

// Checks a cert document's signature (over io::cert_signed_text) against the trusted keys.
SignatureState check_cert_signature(const core::Json& document, const TrustedKeys& trusted);

}  // namespace bi::trust
