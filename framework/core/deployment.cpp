#include "deployment.hpp"

#include <algorithm>
#include <optional>

#include "configuration.hpp"
#include "text.hpp"

namespace bi::core {

namespace {

std::string or_none(const std::optional<std::string>& value) {
    return value ? *value : std::string("none");
}

std::vector<std::string> flags_of(const Cert& cert) {
    if (cert.promotion_scope.server_flags) return *cert.promotion_scope.server_flags;
    if (cert.run && cert.run->server_flags) return *cert.run->server_flags;
    return {};
}

std::string joined(const std::vector<std::string>& items) {
    const std::string out = join(items);
    return out.empty() ? "none" : out;
}

// Every binary the cert ran (the A and N servers), for keys that must match each.
std::vector<std::string> binary_hashes(const Cert& cert) {
    if (!cert.server) return {"none"};
    return {or_none(cert.server->a.binary_sha256), or_none(cert.server->n.binary_sha256)};
}

std::vector<std::string> plugin_hashes(const Cert& cert) {
    std::vector<std::string> out;
    if (cert.provenance)
        for (const auto& plugin : cert.provenance->plugins) out.push_back(or_none(plugin.sha256));
    return out;
}

// The cert's value for a single-valued key.
std::string value_of(const Cert& cert, const std::string& key) {
    if (key == "model_sha256") return cert.model_file ? or_none(cert.model_file->sha256) : "none";
    if (key == "model") return cert.cell.model;
    if (key == "server_flags") return joined(flags_of(cert));
    if (key == "ctx") return std::to_string(cert.cell.ctx);
    if (key == "n") return std::to_string(cert.cell.dispatch_n);
    if (key == "kv_label") return cert.cell.kv_label;
    if (key == "workset_sha256")
        return cert.provenance ? or_none(cert.provenance->workset_sha256) : "none";
    if (key == "scorer") return cert.run ? or_none(cert.run->scorer) : "none";
    if (key == "source") return std::string(name(cert.source));
    if (key == "configuration_id") return configuration_id(cert);
    // The server's determinism mode: "on" only for a side run with it; any other cert ran off.
    if (key == "determinism")
        return cert.run && cert.run->determinism ? *cert.run->determinism : "off";
    return "none";
}

bool contains(const std::vector<std::string>& items, const std::string& value) {
    return std::find(items.begin(), items.end(), value) != items.end();
}

}  // namespace

const std::vector<std::string_view>& expectation_keys() {
    static const std::vector<std::string_view> keys{"binary_sha256",
                                                    "model_sha256",
                                                    "model",
                                                    "server_flag",
                                                    "server_flags",
                                                    "ctx",
                                                    "n",
                                                    "kv_label",
                                                    "plugin_sha256",
                                                    "workset_sha256",
                                                    "scorer",
                                                    "source",
                                                    "configuration_id",
                                                    "determinism"};
    return keys;
}

bool known_expectation_key(std::string_view key) {
    const auto& keys = expectation_keys();
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::vector<std::string> deployment_mismatches(const Cert& cert,
                                               const std::vector<Expectation>& expected) {
    std::vector<std::string> out;
    for (const auto& e : expected) {
        const std::string want = e.key + ": expected " + e.value + ", the cert has ";
        if (e.key == "binary_sha256") {
            const auto have = binary_hashes(cert);
            if (std::any_of(have.begin(), have.end(), [&](const auto& h) { return h != e.value; }))
                out.push_back(want + joined(have));
        } else if (e.key == "server_flag") {
            if (!contains(flags_of(cert), e.value))
                out.push_back(e.key + ": expected " + e.value +
                              " among the server flags, the cert has " + joined(flags_of(cert)));
        } else if (e.key == "plugin_sha256") {
            if (!contains(plugin_hashes(cert), e.value))
                out.push_back(e.key + ": expected " + e.value +
                              " among the plugins, the cert has " + joined(plugin_hashes(cert)));
        } else if (const auto have = value_of(cert, e.key); have != e.value) {
            out.push_back(want + have);
        }
    }
    return out;
}

}  // namespace bi::core
