// The error for a plugin that crashed, aborted, called exit(), hung or garbled its channel while
// the plugin host ran it. Not a bad argument but a failure before any verdict: bi-run exits 1.
#pragma once

#include <string>

#include "core/error.hpp"

namespace bi::plugin_host {

class PluginFault : public Error {
public:
    explicit PluginFault(const std::string& message) : Error(ErrorCategory::Internal, message) {}
};

}  // namespace bi::plugin_host
