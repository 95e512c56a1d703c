// The experiment server as the driver sees it: launched per arm group, torn down on destruction.
// run-mock starts the in-process mock; run-live launches one real server process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/cert.hpp"

namespace bi::driver {

struct ServerAddress {
    std::string host = "127.0.0.1";
    std::uint16_t port = 0;
};

class ServerHandle {
public:
    virtual ~ServerHandle() = default;  // tears the server down
    virtual ServerAddress address() const = 0;
    // False once the server is gone; checked during readiness and after every failed request.
    virtual bool alive() = 0;
    // Why the server died (exit status, log tail); empty while it is alive.
    virtual std::string death_report() = 0;
    // What the cert records about this server (argv, pid, log path ...).
    virtual core::ServerLaunch describe() const = 0;
    // Stops the server now and reports how long teardown took; idempotent.
    virtual void shutdown() = 0;
};

class ServerLauncher {
public:
    virtual ~ServerLauncher() = default;
    // Starts a server with `parallel` slots and `ctx_total` tokens of context, its prompt cache
    // off (every arm) or on (the cache arm), and returns once it answers /health; throws
    // bi::Error(Server) when it dies or misses its deadline.
    virtual std::unique_ptr<ServerHandle> launch(int parallel, std::int64_t ctx_total,
                                                 core::PromptCache cache) = 0;
    // True only for a real server binary; the cert's source is "live" only when this holds AND
    // the server does not identify itself as the mock.
    virtual bool launches_real_binary() const = 0;
};

}  // namespace bi::driver
