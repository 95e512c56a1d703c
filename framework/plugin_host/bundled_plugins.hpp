// Where the plugins shipped with bi-run live: beside the running executable (the build tree's
// bin/) and the installed plugin directory relative to it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bi::plugin_host {

// The plugins bi-run ships, by name (lib<name>.so). "exact" must be found; the others load
// when present.
inline constexpr std::string_view kRequiredBundledPlugin = "exact";
inline constexpr std::string_view kOptionalBundledPlugins[] = {"spark"};

// The directory of /proc/self/exe, then the installed plugin directory relative to it
// (<prefix>/bin/../lib/<multiarch>/bi-run/plugins). Existing directories only, in search order.
std::vector<std::string> bundled_plugin_dirs();

// The first lib<name>.so in `dirs`, if any.
std::optional<std::string> find_plugin_file(std::string_view name,
                                            const std::vector<std::string>& dirs);

// The bundled plugin files found in `dirs`, the required one first. Throws bi::Error(Plugin)
// naming the directories searched when the required one is in none of them.
std::vector<std::string> bundled_plugin_files(const std::vector<std::string>& dirs);

}  // namespace bi::plugin_host
