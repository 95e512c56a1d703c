// The field tables of a stored serial baseline (schema bi-baseline/1) and of a baseline check
// report (schema bi-baseline-check/1), on the cert schema's shared tables: core value <-> JSON.
// docs/baseline.md documents both formats.
#pragma once

#include <optional>
#include <string>

#include "core/baseline_documents.hpp"
#include "core/json.hpp"

namespace bi::io {

// A value as a JSON document (keys sorted by core::Json); digest and signature when set.
core::Json baseline_to_json(const core::SerialBaseline& baseline);
core::Json check_to_json(const core::BaselineCheck& check);

template <typename T>
struct Parsed {
    std::optional<T> value;  // set when the document is well-formed
    std::string problem;     // otherwise the first problem, "$.path: message"
};

// Reads a document through its table. Well-formed only when its schema is the one named, every
// required field is there with its type, every word is known, the stored hashes agree with what
// they hash (rows_sha256, each answer's content_sha256), and it re-renders to exactly the
// document it was read from (an edited derived value or a key that is not part of the schema is
// a problem too).
Parsed<core::SerialBaseline> baseline_from_json(const core::Json& document);
Parsed<core::BaselineCheck> check_from_json(const core::Json& document);

// Whether a document's "schema" member names one of the two formats (of any version), so that a
// reader can say what a file is before it reads it.
bool names_baseline_schema(const core::Json& document);
bool names_check_schema(const core::Json& document);

}  // namespace bi::io
