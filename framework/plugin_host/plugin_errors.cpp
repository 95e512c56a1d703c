#include "plugin_errors.hpp"

#include "bi/plugin.h"

namespace bi::plugin_host {

namespace {

const char* status_name(std::int32_t status) {
    switch (status) {
        case BI_STATUS_ERROR:
            return "error";
        case BI_STATUS_INVALID_ARGUMENT:
            return "invalid argument";
        case BI_STATUS_UNAVAILABLE:
            return "unavailable";
        case BI_STATUS_EXCEPTION:
            return "exception";
        default:
            return "unknown status";
    }
}

}  // namespace

Error plugin_error(const std::string& path, const std::string& text) {
    return Error(ErrorCategory::Plugin, "bi: " + path + ": " + text);
}

std::string describe_call_failure(std::int32_t status, const std::string& message) {
    const std::string detail = message.empty() ? "(no message)" : message;
    if (status == BI_STATUS_EXCEPTION) return "threw an exception: " + detail;
    return "failed with status " + std::to_string(status) + " (" + status_name(status) +
           "): " + detail;
}

}  // namespace bi::plugin_host
