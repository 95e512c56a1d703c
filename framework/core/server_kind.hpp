// A server kind: a declared, versioned description of one family of servers (llama-server,
// ik_llama.cpp, ...), read from one TOML file per kind (docs/servers.md). This part says how
// bi-run launches a server of the kind: the argv template of the serial (capacity 1) and the
// N-capacity server, and the flags bi-run manages, which --server-flag may not give.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bi::core {

inline constexpr std::string_view kServerKindSchema = "bi-server-kind/1";

// The placeholders a launch template may hold: {model} (the model file), {host}, {port}, {n}
// (the capacity: 1 for arms A and A', N for B and C), {ctx} (context per slot) and {ctx_total}
// ({ctx} x {n}).
inline constexpr std::string_view kLaunchPlaceholders[] = {"model", "host", "port",
                                                           "n",     "ctx",  "ctx_total"};

struct KindLaunch {
    std::vector<std::string> argv;           // after the binary, one template per token
    std::vector<std::string> managed_flags;  // refused in --server-flag
};

struct ServerKind {
    std::string name;  // what --server-kind and models.toml's server_kind say
    std::string description;
    KindLaunch launch;
    std::string source;  // the file it was read from, or "built-in"
    std::string sha256;  // of that file's bytes
};

// What one launch fills the placeholders with.
struct LaunchValues {
    std::string model;
    std::string host = "127.0.0.1";
    std::uint16_t port = 0;
    std::int64_t n = 1;
    std::int64_t ctx = 0;  // per slot
};

// The placeholder in `text` that is not one of kLaunchPlaceholders, or an unclosed '{'; ""
// when every placeholder is known.
std::string unknown_placeholder(std::string_view text);

// `text` with every placeholder replaced by its value.
std::string fill_placeholders(std::string_view text, const LaunchValues& values);

// [binary, the kind's argv filled, the user's flags...]; bi::Error(Internal) for a kind with no
// argv (one that was never read).
std::vector<std::string> launch_argv(const ServerKind& kind, const std::string& binary,
                                     const LaunchValues& values,
                                     const std::vector<std::string>& user_flags);

// bi::Error(Usage) when a user flag is one the kind manages ("--port=8080" counts as --port),
// naming it and the kind.
void check_user_flags(const ServerKind& kind, const std::vector<std::string>& flags);

}  // namespace bi::core
