// A scripted stand-in for llama-server, for client tests only: it answers the completion routes
// with an echo after a delay, can hold or hang requests, serves scripted /slots and /metrics,
// and records what it saw (bodies, peak concurrency, connections).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace bi::test {

struct FakeScript {
    std::chrono::milliseconds completion_delay{2};
    int hold_first = 0;   // the first K completion requests wait until K are in flight together
    int hang_after = -1;  // completion requests after the first `hang_after` never answer
    int completion_status = 200;
    std::string completion_error_body;        // body sent with a non-200 completion_status
    std::vector<std::string> slots_bodies;    // call i answers [min(i, size-1)]; empty: 501
    std::vector<std::string> metrics_bodies;  // likewise; empty: 501
};

class FakeLlamaServer {
public:
    explicit FakeLlamaServer(FakeScript script, int threads = 24);
    ~FakeLlamaServer();
    FakeLlamaServer(const FakeLlamaServer&) = delete;
    FakeLlamaServer& operator=(const FakeLlamaServer&) = delete;

    std::uint16_t port() const;
    int max_in_flight() const;
    int in_flight() const;
    int completion_calls() const;
    int slots_calls() const;
    int metrics_calls() const;
    std::vector<std::string> completion_bodies() const;  // in arrival order
    std::set<std::string> client_addresses() const;      // one per connection seen
    // Blocks until `predicate` holds on this server's counters, or 20 s pass; returns it.
    bool wait_until(const std::function<bool(const FakeLlamaServer&)>& predicate) const;

    struct State;

private:
    std::unique_ptr<State> state_;
};

// A loopback port that was free a moment ago and has no listener: connecting is refused.
std::uint16_t unused_port();

}  // namespace bi::test
