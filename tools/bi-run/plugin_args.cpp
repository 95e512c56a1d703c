#include "plugin_args.hpp"

#include "core/error.hpp"
#include "driver/interrupt.hpp"
#include "plugin_host/plugin_fault.hpp"
#include "run_setup.hpp"

namespace bi::cli {

std::string without_bi_prefix(const std::string& message) {
    constexpr std::string_view kPrefix = "bi: ";
    return message.compare(0, kPrefix.size(), kPrefix) == 0 ? message.substr(kPrefix.size())
                                                            : message;
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

void load_plugins(plugin_host::PluginSet& plugins, const cxxopts::ParseResult& args) {
    configure_plugin_calls(plugins, args);
    try {
        plugins.load_bundled();
        if (args.count("plugin"))
            for (const auto& path : args["plugin"].as<std::vector<std::string>>())
                plugins.load(path);
    } catch (const plugin_host::PluginFault&) {
        throw;
    } catch (const Error& e) {
        throw Error(ErrorCategory::Usage, without_bi_prefix(e.what()));
    }
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
