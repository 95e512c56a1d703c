// The value types of the plugin host's API: what a loaded plugin offers, what a generator is
// asked for, and the host services a caller may supply.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bi::plugin_host {

struct ComponentInfo {
    std::string id;
    std::string description;  // may be empty
};

struct PluginInfo {
    std::string path;  // as given to load(), or the bundled file's full path
    std::string name;
    std::string version;
    std::string description;
    std::uint32_t abi_major = 0;
    std::uint32_t abi_minor = 0;
    bool bundled = false;
    std::vector<ComponentInfo> scorers;
    std::vector<ComponentInfo> generators;
};

struct GenerationRequest {
    std::string model_id;
    std::int64_t ctx = 0;
    std::uint64_t seed = 0;
    std::vector<std::pair<std::string, std::string>> parameters;  // --generator-param, in order
};

// The server's token count for a text; nullopt when it cannot say. An empty function means no
// tokenizer at all: generators then estimate.
using TokenCounter = std::function<std::optional<std::int64_t>(std::string_view text)>;

// Receives plugins' log lines; level is BI_LOG_DEBUG (0) .. BI_LOG_ERROR (3).
using PluginLogger =
    std::function<void(int level, std::string_view plugin_name, std::string_view message)>;

}  // namespace bi::plugin_host
