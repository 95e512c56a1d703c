// The cert as a value (schema bi-cert/1) and the promotion rules that read it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "json.hpp"
#include "verdict.hpp"

namespace bi::core {

inline constexpr std::string_view kCertSchema = "bi-cert/1";

struct CellIdentity {
    std::string model;  // the alias written as the cert's "model"
    std::int64_t ctx = 0;
    std::int64_t dispatch_n = 0;
    std::string kv_label = "f16";
    std::int64_t reps = 1;
};

// Everything the driver knows that the verdict does not: decided outside the core and passed in.
struct CertContext {
    CellIdentity cell;
    std::string source;  // "mock" or "live"; decided by the driver, never by the user
    std::string ts_utc;  // ISO-8601, from the caller's clock
    bool stopped_early = false;
    // Additive sections copied verbatim when present: server, model_file, host, run, timings.
    Json extras = Json::object();
};

// The cert without its "digest"; framework/io adds the digest over the canonical text.
Json build_cert(const CertContext& context, const Verdict& verdict);

// `{model}__ctx{C}__N{N}.json`, with '/' in the model name turned into '_'.
std::string cert_file_name(std::string_view model, std::int64_t ctx, std::int64_t dispatch_n);

// A hint when the model name looks like a mixture-of-experts model; empty otherwise.
std::string moe_hint(std::string_view model);

// True only for the literal status "green" produced by the given source.
bool cert_is_green(const Json& cert, std::string_view require_source = "live");

struct Promotion {
    bool promotable = false;
    std::vector<std::string> reasons;  // every reason it is not promotable
};

// The promotion rules of DESIGN.md §5; `digest_intact` comes from io, which can hash text.
Promotion check_promotable(const Json& cert, bool digest_intact);

// Checks the types of the fields every reader relies on; returns the first problem as
// "$.path: message", or an empty string when the cert is well-formed.
std::string validate_cert_shape(const Json& cert);

}  // namespace bi::core
