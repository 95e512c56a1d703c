#include "plugin_args.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>

#include "core/error.hpp"
#include "driver/interrupt.hpp"
#include "option_tokens.hpp"
#include "plugin_host/bundled_plugins.hpp"
#include "plugin_host/plugin_fault.hpp"
#include "run_setup.hpp"

namespace bi::cli {

std::string without_bi_prefix(const std::string& message) {
    constexpr std::string_view kPrefix = "bi: ";
    return message.compare(0, kPrefix.size(), kPrefix) == 0 ? message.substr(kPrefix.size())
                                                            : message;
}

namespace {

[[noreturn]] void usage(const std::string& message) {
    throw Error(ErrorCategory::Usage, message);
}

std::vector<std::string> split_path_list(const char* text) {
    std::vector<std::string> dirs;
    if (!text) return dirs;
    std::string list = text;
    std::size_t start = 0;
    while (start <= list.size()) {
        const auto colon = list.find(':', start);
        const auto dir = list.substr(start, colon == std::string::npos ? colon : colon - start);
        if (!dir.empty()) dirs.push_back(dir);
        if (colon == std::string::npos) break;
        start = colon + 1;
    }
    return dirs;
}

std::set<std::string> bundled_paths(const plugin_host::Plugins& plugins) {
    std::set<std::string> paths;
    for (const auto& plugin : plugins.list())
        if (plugin.bundled) paths.insert(plugin.path);
    return paths;
}

}  // namespace

std::string ascii_quotes(std::string text) {
    for (const std::string_view quote : {"\u2018", "\u2019"})
        for (auto at = text.find(quote); at != std::string::npos; at = text.find(quote, at))
            text.replace(at, quote.size(), "'");
    return text;
}

void add_plugin_options(cxxopts::Options& options, const std::string& group) {
    options.add_options(group)(
        "plugin",
        "Plugin .so to load besides the bundled ones (repeatable; a bare name is searched for)",
        cxxopts::value<std::vector<std::string>>())(
        "plugin-dir", "Directory searched first for a bare --plugin name (repeatable)",
        cxxopts::value<std::vector<std::string>>());
}

std::string resolve_plugin_path(const std::string& name,
                                const std::vector<std::string>& plugin_dirs) {
    namespace fs = std::filesystem;
    if (name.find('/') != std::string::npos) return name;
    std::vector<std::string> dirs = plugin_dirs;
    for (auto& dir : split_path_list(std::getenv("BI_PLUGIN_PATH"))) dirs.push_back(dir);
    for (auto& dir : plugin_host::bundled_plugin_dirs()) dirs.push_back(dir);
    dirs.emplace_back(".");
    std::string searched;
    for (const auto& dir : dirs) {
        const fs::path candidate = fs::path(dir) / name;
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec)) return candidate.string();
        searched += (searched.empty() ? "" : ", ") + dir;
    }
    usage("--plugin " + name +
          ": not found in --plugin-dir, $BI_PLUGIN_PATH, the bundled plugin "
          "directory or the current directory (searched: " +
          searched + ")");
}

int read_global_options(int argc, char** argv, GlobalOptions& globals) {
    int i = 1;
    for (; i < argc; ++i) {
        const std::string token = argv[i];
        std::vector<std::string>* target = nullptr;
        std::string name;
        for (const auto& [spelling, list] : {std::pair{"--plugin", &globals.plugins},
                                             std::pair{"--plugin-dir", &globals.plugin_dirs}}) {
            const std::string prefix = std::string(spelling) + "=";
            if (token == spelling || token.compare(0, prefix.size(), prefix) == 0) {
                target = list;
                name = spelling;
            }
        }
        if (!target) break;
        if (token == name) {
            if (i + 1 >= argc) usage(name + " needs a value");
            target->push_back(argv[++i]);
        } else {
            target->push_back(token.substr(name.size() + 1));
        }
    }
    return i;
}

std::vector<std::string> with_global_options(std::vector<std::string> tokens,
                                             const GlobalOptions& globals) {
    std::vector<std::string> inserted;
    for (const auto& dir : globals.plugin_dirs) inserted.push_back("--plugin-dir=" + dir);
    for (const auto& plugin : globals.plugins) inserted.push_back("--plugin=" + plugin);
    tokens.insert(tokens.begin() + (tokens.empty() ? 0 : 1), inserted.begin(), inserted.end());
    return tokens;
}

void add_plugin_timeout_option(cxxopts::Options& options, const std::string& group) {
    options.add_options(group)("plugin-timeout",
                               "Seconds one plugin call (load, create, score, generate) may take "
                               "before its plugin host is killed",
                               cxxopts::value<double>()->default_value(
                                   std::to_string(plugin_host::kDefaultPluginTimeout.count())));
}

void configure_plugin_calls(plugin_host::PluginSet& plugins, const cxxopts::ParseResult& args) {
    plugins.set_call_timeout(seconds_option(args, "plugin-timeout"));
    driver::install_interrupt_handlers();
    plugins.set_interrupt_check(driver::throw_if_interrupted);
}

std::vector<std::string> load_plugins(plugin_host::PluginSet& plugins,
                                      const cxxopts::ParseResult& args) {
    configure_plugin_calls(plugins, args);
    std::vector<std::string> resolved;
    try {
        plugins.load_bundled();
        const auto dirs = args.count("plugin-dir")
                              ? args["plugin-dir"].as<std::vector<std::string>>()
                              : std::vector<std::string>();
        for (const auto& name : option_tokens(args, "plugin")) {
            const std::string path = resolve_plugin_path(name, dirs);
            if (path != name)
                std::cerr << "bi-run: note: --plugin " << name << " is " << path << "\n";
            const auto before = bundled_paths(plugins);
            plugins.load(path);
            resolved.push_back(path);
            const auto after = bundled_paths(plugins);
            for (const auto& bundled : before)
                if (!after.count(bundled))
                    std::cerr << "bi-run: note: " << path << " shadows the bundled " << bundled
                              << " (same ids)\n";
        }
    } catch (const plugin_host::PluginFault&) {
        throw;
    } catch (const Error& e) {
        throw Error(ErrorCategory::Usage, without_bi_prefix(e.what()));
    }
    return resolved;
}

std::vector<std::pair<std::string, std::string>> parse_generator_params(
    const std::vector<std::string>& values) {
    std::vector<std::pair<std::string, std::string>> params;
    for (const auto& piece : values) {
        const auto equals = piece.find('=');
        if (equals == std::string::npos) {
            if (params.empty())
                throw Error(ErrorCategory::Usage,
                            "--generator-param '" + piece + "': expected KEY=VALUE");
            params.back().second += "," + piece;
            continue;
        }
        if (equals == 0)
            throw Error(ErrorCategory::Usage,
                        "--generator-param '" + piece + "': the key is empty");
        params.emplace_back(piece.substr(0, equals), piece.substr(equals + 1));
    }
    return params;
}

}  // namespace bi::cli
