#include "bundled_plugins.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "core/error.hpp"

#ifndef BI_PLUGIN_DIR_FROM_BINDIR
#error "BI_PLUGIN_DIR_FROM_BINDIR must name the installed plugin directory relative to bindir"
#endif

namespace bi::plugin_host {

namespace fs = std::filesystem;

std::vector<std::string> bundled_plugin_dirs() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    const fs::path bindir = exe.parent_path();
    std::vector<std::string> dirs;
    for (const fs::path& dir : {bindir, (bindir / BI_PLUGIN_DIR_FROM_BINDIR).lexically_normal()}) {
        if (!fs::is_directory(dir, ec)) continue;
        if (std::find(dirs.begin(), dirs.end(), dir.string()) == dirs.end())
            dirs.push_back(dir.string());
    }
    return dirs;
}

std::optional<std::string> find_plugin_file(std::string_view name,
                                            const std::vector<std::string>& dirs) {
    for (const auto& dir : dirs) {
        const fs::path candidate = fs::path(dir) / ("lib" + std::string(name) + ".so");
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
    return std::nullopt;
}

std::vector<std::string> bundled_plugin_files(const std::vector<std::string>& dirs) {
    const auto required = find_plugin_file(kRequiredBundledPlugin, dirs);
    if (!required) {
        std::string searched;
        for (const auto& dir : dirs) searched += (searched.empty() ? "" : ", ") + dir;
        throw Error(ErrorCategory::Plugin,
                    "bi: the bundled plugin lib" + std::string(kRequiredBundledPlugin) +
                        ".so is in none of: " + (searched.empty() ? "(no directories)" : searched));
    }
    std::vector<std::string> files{*required};
    for (const auto name : kOptionalBundledPlugins)
        if (const auto path = find_plugin_file(name, dirs)) files.push_back(*path);
    return files;
}

}  // namespace bi::plugin_host
