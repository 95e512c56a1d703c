#include "configuration.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include "sha256.hpp"

namespace bi::core {

namespace {

std::string text_of(const std::optional<std::string>& value) {
    return value ? *value : std::string();
}

std::string text_of(const std::optional<std::int64_t>& value) {
    return value ? std::to_string(*value) : std::string();
}

std::string joined_flags(const std::optional<std::vector<std::string>>& flags) {
    if (!flags) return {};
    std::string out;
    for (const auto& flag : *flags) {
        if (!out.empty()) out += '\x1f';
        out += flag;
    }
    return out.empty() ? std::string("(none)") : out;
}

// Generator parameters in the order given, joined like the flags; empty when none were recorded.
std::string joined_params(const std::optional<std::vector<std::string>>& params) {
    if (!params || params->empty()) return {};
    return joined_flags(params);
}

std::string model_hash(const Cert& cert) {
    if (!cert.model_file) return {};
    const auto& file = *cert.model_file;
    if (file.sha256) return *file.sha256;
    if (file.sha256_head) return "head:" + *file.sha256_head;
    return file.size > 0 ? "size:" + std::to_string(file.size) : std::string();
}

// The N-slot server runs the arms that decide the cell; fall back to the one-slot server.
std::string binary_hash(const Cert& cert) {
    if (!cert.server) return {};
    if (cert.server->n.binary_sha256) return *cert.server->n.binary_sha256;
    return text_of(cert.server->a.binary_sha256);
}

}  // namespace

std::vector<ConfigurationField> configuration_fields(const Cert& cert) {
    const RunRecord run = cert.run.value_or(RunRecord{});
    const auto& flags =
        cert.promotion_scope.server_flags ? cert.promotion_scope.server_flags : run.server_flags;
    std::vector<ConfigurationField> fields{
        {"source", std::string(name(cert.source))},
        {"model", cert.cell.model},
        {"model_sha256", model_hash(cert)},
        {"binary_sha256", cert.source == Source::Mock ? "mock" : binary_hash(cert)},
        {"ctx", std::to_string(cert.cell.ctx)},
        {"n", std::to_string(cert.cell.dispatch_n)},
        {"kv_label", cert.cell.kv_label},
        {"server_flags", joined_flags(flags)},
        {"workset", text_of(run.workset)},
        {"workset_sha256", cert.provenance ? text_of(cert.provenance->workset_sha256) : ""},
        {"generator", text_of(run.generator)},
        {"generator_params",
         cert.provenance ? joined_params(cert.provenance->generator_params) : std::string()},
        {"profile", text_of(run.profile)},
        {"seed", text_of(run.seed)},
        {"scorer", text_of(run.scorer)},
        {"endpoint", text_of(run.endpoint)},
        {"n_predict", text_of(run.n_predict)},
        {"logprobs", text_of(run.logprobs)},
    };
    // A side run with the server's determinism mode on is another deployment; off is the
    // server as it runs by default, so it stays the configuration it was before the choice.
    if (run.determinism == std::string("on")) fields.push_back({"determinism", "on"});
    // Another prefill chunk is another configuration; a cell without one keeps the id it had
    // before chunks could be set.
    if (run.prefill_chunk) fields.push_back({"prefill_chunk", text_of(run.prefill_chunk)});
    return fields;
}

std::vector<std::string> configuration_changes(const Cert& before, const Cert& after) {
    const auto old_fields = configuration_fields(before);
    const auto new_fields = configuration_fields(after);
    const auto value_in = [](const std::vector<ConfigurationField>& fields,
                             const std::string& key) -> std::optional<std::string> {
        for (const auto& field : fields)
            if (field.key == key) return field.value;
        return std::nullopt;
    };
    const auto shown = [](const std::optional<std::string>& value) {
        return value && !value->empty() ? *value : std::string("(none)");
    };
    std::vector<std::string> changes;
    std::vector<std::string> keys;
    for (const auto* fields : {&old_fields, &new_fields})
        for (const auto& field : *fields)
            if (std::find(keys.begin(), keys.end(), field.key) == keys.end())
                keys.push_back(field.key);
    for (const auto& key : keys) {
        const auto was = value_in(old_fields, key);
        const auto now = value_in(new_fields, key);
        if (shown(was) != shown(now))
            changes.push_back(key + " " + shown(was) + " → " + shown(now));
    }
    return changes;
}

std::string configuration_id(const Cert& cert) {
    Sha256 hash;
    for (const auto& field : configuration_fields(cert))
        hash.update(field.key).update("=").update(field.value).update("\n");
    return "cfg-" + hash.hex_digest().substr(0, 16);
}

std::vector<std::string> unknown_configuration_keys(const Cert& cert) {
    // A cell has a work-set file, a generator or a named profile, not all three; one suffices.
    static constexpr std::string_view kOneOf[] = {"workset", "generator", "profile"};
    const auto fields = configuration_fields(cert);
    bool has_work = false;
    for (const auto& field : fields)
        for (auto key : kOneOf)
            if (field.key == key && !field.value.empty()) has_work = true;
    std::vector<std::string> unknown;
    for (const auto& field : fields) {
        if (!field.value.empty()) continue;
        bool optional_work_key = false;
        for (auto key : kOneOf) optional_work_key = optional_work_key || field.key == key;
        if (optional_work_key && has_work) continue;
        if (field.key == "logprobs" || field.key == "seed") continue;  // absent = off / unseeded
        // Recorded since bi-cert/2; absent means no file was hashed or no parameter was given.
        if (field.key == "workset_sha256" || field.key == "generator_params") continue;
        unknown.push_back(field.key);
    }
    return unknown;
}

}  // namespace bi::core
