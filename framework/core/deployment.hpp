// The deployment a reader is about to switch on, as `KEY=VALUE` expectations, checked against
// what a cert says it was made for (verify-cert --expect / --expect-deployment).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cert.hpp"

namespace bi::core {

struct Expectation {
    std::string key;
    std::string value;
};

// The keys an expectation may name: binary_sha256, model_sha256, model, server_flag (the cert's
// flags contain it; repeatable), server_flags (exactly these, space-separated), ctx, n,
// kv_label, plugin_sha256 (one of the cert's plugins has it; repeatable), workset_sha256,
// scorer, source, configuration_id.
const std::vector<std::string_view>& expectation_keys();
bool known_expectation_key(std::string_view key);

// One line per expectation the cert does not meet: "KEY: expected V, the cert has W".
std::vector<std::string> deployment_mismatches(const Cert& cert,
                                               const std::vector<Expectation>& expected);

}  // namespace bi::core
