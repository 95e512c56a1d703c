// Load-time validation of a plugin's descriptor: ABI, struct sizes, names, ids and required
// functions, each failure with its own one-line message. Internal to plugin_host.
#pragma once

#include <string>

#include "bi/plugin.h"
#include "loaded_plugin.hpp"

namespace bi::plugin_host {

// Struct sizes past this are taken for garbage rather than a future minor.
inline constexpr std::uint32_t kMaxStructSize = 64 * 1024;
// Likewise for table lengths: the host refuses rather than walks a garbage count.
inline constexpr std::uint32_t kMaxTableEntries = 1024;

// Fills name, version, ABI and the size-normalised tables of `plugin` from `descriptor`, or
// throws bi::Error(Plugin) naming plugin.path. Ids are checked for duplicates within the
// plugin only; the PluginSet checks them across plugins.
void read_descriptor(const bi_plugin_descriptor* descriptor, LoadedPlugin& plugin);

}  // namespace bi::plugin_host
