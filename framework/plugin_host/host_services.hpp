// The C bi_host_services a plugin call receives, backed by C++ callables. Internal.
#pragma once

#include <string>

#include "bi/plugin.h"
#include "plugin_info.hpp"

namespace bi::plugin_host {

// Lives at a fixed address for as long as the plugin may call it (the call, or a scorer's life).
class HostServicesBridge {
public:
    HostServicesBridge(std::string plugin_name, TokenCounter count_tokens, PluginLogger logger);
    HostServicesBridge(const HostServicesBridge&) = delete;
    HostServicesBridge& operator=(const HostServicesBridge&) = delete;

    const bi_host_services* services() const { return &services_; }

private:
    static std::int32_t count_tokens(void* host_data, const char* text, std::size_t size,
                                     std::int64_t* out_count) noexcept;
    static void log(void* host_data, std::int32_t level, const char* message) noexcept;

    std::string plugin_name_;
    TokenCounter count_tokens_;
    PluginLogger logger_;
    bi_host_services services_{};
};

}  // namespace bi::plugin_host
