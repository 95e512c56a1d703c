// A server kind's evidence, one row per field: its key in a kind file's [evidence] and in a cert's
// server.kind.evidence, in the cert's order. The kind file reader and the cert schema both walk
// these rows, so an evidence field is one KindEvidence member plus one row.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/server_kind.hpp"

namespace bi::io {

struct EvidenceField {
    std::string_view key;
    std::string core::KindEvidence::*text;  // null for metrics_format, the one enum field
    bool path = false;                      // an endpoint path: "" or "/..."
    bool in_kind_file = true;  // false: props_path, which a kind file gives as identity.props_path
    bool cert_when_set = false;  // written in a cert only when set (fields added later)
};

const std::vector<EvidenceField>& evidence_fields();

}  // namespace bi::io
