// Opens a plugin file with Poco::SharedLibrary and finds its entry point, with one distinct
// message per way that can fail. Internal to plugin_host.
#pragma once

#include <Poco/SharedLibrary.h>

#include <memory>
#include <string>

#include "bi/plugin.h"

namespace bi::plugin_host {

struct OpenedLibrary {
    std::unique_ptr<Poco::SharedLibrary> library;
    std::string canonical_path;
    const bi_plugin_descriptor* descriptor = nullptr;  // what bi_plugin_entry returned, non-NULL
};

// Throws bi::Error(Plugin) "bi: PATH: no such file", "not a shared object", "cannot load: ...",
// "missing entry symbol bi_plugin_entry" or "bi_plugin_entry returned no descriptor".
OpenedLibrary open_plugin_library(const std::string& path);

// The canonical form of `path`, or `path` itself when it cannot be resolved.
std::string canonical_plugin_path(const std::string& path);

}  // namespace bi::plugin_host
