// The mock llama-server as an in-process object: a Poco HTTP server on 127.0.0.1 in front of the
// continuous-batching scheduler. RAII: destroying it stops it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mock_config.hpp"
#include "scheduler.hpp"

namespace bi::mock {

class MockServer {
public:
    // Throws bi::Error(Usage) for a bad config (see validate()); nothing runs until start().
    explicit MockServer(MockConfig config);
    ~MockServer();
    MockServer(const MockServer&) = delete;
    MockServer& operator=(const MockServer&) = delete;

    // Binds 127.0.0.1:config.port (0 picks a free port), starts serving, returns the bound port.
    // Throws bi::Error(Server) when the port cannot be bound or start() was already called.
    std::uint16_t start();
    // Fails in-flight requests, stops listening and joins every thread; idempotent.
    void stop();

    std::uint16_t port() const;  // 0 before start()
    bool crashed() const;        // crash_after was reached (in-process: no longer answering)

    // Holds the scheduler's ticks while requests still take slots, so a test can line up N
    // requests and know they are co-batched from their first token.
    void pause();
    void resume();

    SchedulerStats stats() const;
    std::vector<SlotView> slots() const;
    const MockConfig& config() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bi::mock
