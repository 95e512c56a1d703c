// The cert's one field table (schema bi-cert/2; bi-cert/1 documents read too): core::Cert <-> its
// JSON document.
#pragma once

#include <optional>
#include <string>

#include "core/cert.hpp"
#include "core/json.hpp"

namespace bi::io {

// The cert as a JSON value (keys sorted by core::Json); the digest is included when set.
core::Json cert_to_json(const core::Cert& cert);

struct ParsedCert {
    std::optional<core::Cert> cert;  // set when the document is a well-formed cert
    std::string problem;             // otherwise the first problem, "$.path: message"
};

// Reads a cert document through the field table. A document is well-formed only when every
// required field is there with its type, every word is known, and the cert re-renders to exactly
// the document it was read from (so a derived or duplicated field that was edited, or a key that
// is not part of the schema, is a problem too).
ParsedCert cert_from_json(const core::Json& document);

// Promotion of a cert document: not promotable, with the shape problem as the reason, when the
// document is not a well-formed cert.
core::Promotion check_promotable(const core::Json& document, bool digest_intact);

// The first problem of cert_from_json, or "" for a well-formed cert.
std::string validate_cert_shape(const core::Json& document);

}  // namespace bi::io
