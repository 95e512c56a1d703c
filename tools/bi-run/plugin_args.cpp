#include "plugin_args.hpp"

#include "core/error.hpp"

namespace bi::cli {

std::string without_bi_prefix(const std::string& message) {
    constexpr std::string_view kPrefix = "bi: ";
    return message.compare(0, kPrefix.size(), kPrefix) == 0 ? message.substr(kPrefix.size())
                                                            : message;
}

void load_plugins(plugin_host::PluginSet& plugins, const std::vector<std::string>& paths) {
    try {
        plugins.load_bundled();
        for (const auto& path : paths) plugins.load(path);
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
