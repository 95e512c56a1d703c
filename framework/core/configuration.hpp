// The configuration a cert certifies: everything that, changed, makes it another deployment.
// Two certs of the same configuration answer the same question, so a later one may skip the
// work (sharded sweeps) and an earlier RED stays binding on it (cert history).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cert.hpp"

namespace bi::core {

// One named part of a configuration; `value` is empty when the cert does not record it.
struct ConfigurationField {
    std::string key;
    std::string value;
};

// The fields in a fixed order: source, model, model_sha256, binary_sha256, ctx, n, kv_label,
// server_flags, workset, workset_sha256, generator, generator_params, profile, seed, scorer,
// endpoint, n_predict, logprobs (workset_sha256 and generator_params from the provenance), then
// prefill_chunk only when the run set one, and determinism = on for a cell run with the server's
// determinism mode on.
// model_sha256 is the full hash when the cert has one, else "head:" + the first-MiB hash, else
// "size:" + the file size; server_flags are the extra flags in order, joined by U+001F.
std::vector<ConfigurationField> configuration_fields(const Cert& cert);

// One "key before → after" per field whose value differs between two certs ("endpoint chat →
// completion"), an empty value written "(none)"; empty when they are one configuration.
std::vector<std::string> configuration_changes(const Cert& before, const Cert& after);

// "cfg-" + the first 16 hex digits of sha256 over "key=value\n" of every field; stable across
// runs, ports, PIDs, timestamps and verdicts.
std::string configuration_id(const Cert& cert);

// The keys whose value is unknown: a configuration with any of them cannot be proven equal to
// another, so callers that need proof (skip-existing) must not treat it as the same.
std::vector<std::string> unknown_configuration_keys(const Cert& cert);

}  // namespace bi::core
