// The one-line messages the host reports about a plugin: "bi: PATH: what went wrong".
#pragma once

#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace bi::plugin_host {

// bi::Error(Plugin, "bi: PATH: text").
Error plugin_error(const std::string& path, const std::string& text);

// How a failed plugin call reads: "failed with status 2 (invalid argument): MESSAGE", or
// "threw an exception: MESSAGE" for the C++ helper's BI_STATUS_EXCEPTION.
std::string describe_call_failure(std::int32_t status, const std::string& message);

}  // namespace bi::plugin_host
