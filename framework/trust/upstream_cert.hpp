// Certs written by the upstream Python tool (v0.1.0): no schema, no digest. They are read for
// their verdict, divergence count and reasons and shown as such, never promotable here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/verdict_kinds.hpp"

namespace bi::trust {

inline constexpr const char* kUpstreamLabel = "upstream v0.1 cert (no digest)";

// A document with no "schema" that carries the upstream contract's "status" key.
bool looks_like_upstream_cert(const core::Json& document);

struct UpstreamCert {
    std::string model;
    std::int64_t ctx = 0;
    std::int64_t dispatch_n = 0;
    core::Status verdict = core::Status::GreenUnverified;
    std::string status;            // the cert's own word for `verdict`
    std::string divergence_class;  // the cert's own words ("" when null): upstream spells
    std::string anomaly;           // some of them unlike bi-run ("slot_allocation(+co_batching)")
    std::string source;            // "" when absent
    std::vector<std::string> decision_reasons;
    // A <-> C divergent ids: divergence_report.AC.n_divergent, else sensitivity.n_ac_divergent
    // (upstream's `mismatch` is only a summary sentence).
    std::size_t n_divergent = 0;
};

struct ParsedUpstreamCert {
    std::optional<UpstreamCert> cert;
    std::string problem;  // "$.key: message" when it does not have the upstream shape
};

ParsedUpstreamCert read_upstream_cert(const core::Json& document);

}  // namespace bi::trust
