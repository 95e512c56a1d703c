#include "host_services.hpp"

#include <utility>

namespace bi::plugin_host {

HostServicesBridge::HostServicesBridge(std::string plugin_name, TokenCounter count_tokens,
                                       PluginLogger logger)
    : plugin_name_(std::move(plugin_name)),
      count_tokens_(std::move(count_tokens)),
      logger_(std::move(logger)) {
    services_.struct_size = sizeof services_;
    services_.host_data = this;
    // NULL, not a stub that always fails: the header tells generators to estimate then.
    services_.count_tokens = count_tokens_ ? &HostServicesBridge::count_tokens : nullptr;
    services_.log = &HostServicesBridge::log;
}

std::int32_t HostServicesBridge::count_tokens(void* host_data, const char* text, std::size_t size,
                                              std::int64_t* out_count) noexcept {
    try {
        auto* self = static_cast<HostServicesBridge*>(host_data);
        if (!self || !text || !out_count) return BI_STATUS_INVALID_ARGUMENT;
        const auto count = self->count_tokens_(std::string_view(text, size));
        if (!count) return BI_STATUS_UNAVAILABLE;
        *out_count = *count;
        return BI_STATUS_OK;
    } catch (...) {
        return BI_STATUS_UNAVAILABLE;
    }
}

void HostServicesBridge::log(void* host_data, std::int32_t level, const char* message) noexcept {
    try {
        auto* self = static_cast<HostServicesBridge*>(host_data);
        if (self && self->logger_ && message) self->logger_(level, self->plugin_name_, message);
    } catch (...) {
        // A log line is not worth failing the plugin's call over.
    }
}

}  // namespace bi::plugin_host
