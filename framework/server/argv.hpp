// The llama-server command line for one arm group: the cell decides model, host, port, context,
// slots, metrics and slots endpoints; the user adds the rest with --server-flag.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bi::server {

struct ServerCommand {
    std::string binary;
    std::string model_path;
    std::vector<std::string> user_flags;  // one argv token each, in order
};

// Throws bi::Error(Usage) when a user flag is one bi-run manages itself (-m, --host, --port, -c,
// --parallel, --metrics, --slots ...), naming it.
void check_user_flags(const std::vector<std::string>& flags);

// [binary, -m, model, --host, 127.0.0.1, --port, P, -c, ctx_total, --parallel, N, --metrics,
//  --slots, user flags...]. Arm A uses parallel 1 and ctx; B and C parallel N and ctx * N.
std::vector<std::string> build_argv(const ServerCommand& command, int parallel,
                                    std::int64_t ctx_total, std::uint16_t port);

// Shell-quoted for display ("--dry-run", logs); never executed through a shell.
std::string quote_argv(const std::vector<std::string>& argv);

}  // namespace bi::server
