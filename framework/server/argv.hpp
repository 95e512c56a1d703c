// The server command line for one arm group: the server kind's launch template filled with the
// cell's model, host, port, context and capacity, then the user's --server-flag tokens.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/server_kind.hpp"

namespace bi::server {

struct ServerCommand {
    std::string binary;
    std::string model_path;
    std::vector<std::string> user_flags;  // one argv token each, in order
    core::ServerKind kind;                // how a server of this kind is launched
    bool determinism = false;             // its determinism mode on (kind.determinism)
    // Prompt tokens prefilled in one step, set with the kind's prefill-chunk flags in every
    // launch; 0: the server's own (no such flags).
    std::int64_t prefill_chunk = 0;
};

// The argv for `parallel` slots and `ctx_total` tokens of context in all (ctx per slot x
// parallel) on 127.0.0.1:port. For llama-server: [binary, -m, model, --host, 127.0.0.1, --port,
// P, -c, ctx_total, --parallel, N, --metrics, --slots, (-b T -ub T with a prefill chunk T,) user
// flags...]. Arm A uses parallel 1 and ctx; B and C parallel N and ctx * N.
std::vector<std::string> build_argv(const ServerCommand& command, int parallel,
                                    std::int64_t ctx_total, std::uint16_t port,
                                    core::PromptCache cache = core::PromptCache::Off);

// The kind's environment for the same launch ("NAME=value" each; empty for llama-server).
std::vector<std::string> build_env(const ServerCommand& command, int parallel,
                                   std::int64_t ctx_total, std::uint16_t port);

// Shell-quoted for display ("--dry-run", logs); never executed through a shell.
std::string quote_argv(const std::vector<std::string>& argv);

}  // namespace bi::server
