#include "argv.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "core/error.hpp"

namespace bi::server {

namespace {

constexpr std::array<std::string_view, 16> kManagedFlags = {
    "-m",          "--model",    "--host",    "--port",   "-c",         "--ctx-size",
    "-np",         "--parallel", "--metrics", "--slots",  "--no-slots", "-mu",
    "--model-url", "-hf",        "--hf-repo", "--api-key"};

// "--port=8080" names the flag "--port".
std::string_view flag_name(std::string_view token) {
    const auto eq = token.find('=');
    return eq == std::string_view::npos ? token : token.substr(0, eq);
}

}  // namespace

void check_user_flags(const std::vector<std::string>& flags) {
    for (const auto& token : flags) {
        const auto name = flag_name(token);
        if (std::find(kManagedFlags.begin(), kManagedFlags.end(), name) != kManagedFlags.end())
            throw Error(ErrorCategory::Usage, "--server-flag " + token + ": bi-run sets " +
                                                  std::string(name) + " itself for each arm");
    }
}

std::vector<std::string> build_argv(const ServerCommand& command, int parallel,
                                    std::int64_t ctx_total, std::uint16_t port) {
    std::vector<std::string> argv = {command.binary,
                                     "-m",
                                     command.model_path,
                                     "--host",
                                     "127.0.0.1",
                                     "--port",
                                     std::to_string(port),
                                     "-c",
                                     std::to_string(ctx_total),
                                     "--parallel",
                                     std::to_string(parallel),
                                     "--metrics",
                                     "--slots"};
    argv.insert(argv.end(), command.user_flags.begin(), command.user_flags.end());
    return argv;
}

std::string quote_argv(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& arg : argv) {
        if (!out.empty()) out += ' ';
        const bool plain =
            !arg.empty() && arg.find_first_not_of(
                                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789-_./=:,+@%") == std::string::npos;
        if (plain) {
            out += arg;
            continue;
        }
        out += '\'';
        for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        out += '\'';
    }
    return out;
}

}  // namespace bi::server
