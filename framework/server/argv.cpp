#include "argv.hpp"

namespace bi::server {

namespace {

core::LaunchValues values_of(const ServerCommand& command, int parallel, std::int64_t ctx_total,
                             std::uint16_t port) {
    core::LaunchValues values;
    values.model = command.model_path;
    values.port = port;
    values.n = parallel;
    values.ctx = parallel > 0 ? ctx_total / parallel : ctx_total;
    values.prefill_chunk = command.prefill_chunk;
    return values;
}

}  // namespace

std::vector<std::string> build_argv(const ServerCommand& command, int parallel,
                                    std::int64_t ctx_total, std::uint16_t port,
                                    core::PromptCache cache) {
    return core::launch_argv(command.kind, command.binary,
                             values_of(command, parallel, ctx_total, port), command.user_flags,
                             cache, command.determinism);
}

std::vector<std::string> build_env(const ServerCommand& command, int parallel,
                                   std::int64_t ctx_total, std::uint16_t port) {
    return core::launch_env(command.kind, values_of(command, parallel, ctx_total, port),
                            command.determinism);
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
