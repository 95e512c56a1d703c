// Samples /slots and /metrics on its own connection while an arm runs, so the cert can say
// whether the server itself ever held two requests at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>

#include "core/coverage.hpp"
#include "core/server_kind.hpp"
#include "http_session.hpp"
#include "io/server_kind_io.hpp"

namespace bi::http {

// start() takes one sample before it returns (the window's baseline, before any request of the
// arm), then a thread samples every `interval`, five times as often (at most every 1 ms) while
// the latest round saw work; stop() joins it, takes a final sample and
// returns the evidence. The destructor stops a running poller. One sampling round asks the
// kind's per-slot and metrics endpoints (llama-server: /slots and /metrics; a kind without
// either is never asked); a 404 or 501 from one (llama-server without --slots / --metrics)
// marks that endpoint unavailable for the rest of the window: not an error, just no evidence.
// Other failures (timeouts, unparsable bodies, answers over `max_response_bytes`) skip that
// round's answer. n_samples counts the rounds in which at least one endpoint answered usefully.
// Each request ends within `request_timeout` (a total deadline, however the server drips), and
// none outlives the deadline given to start(): past it no request is sent, so a hostile server
// cannot keep an arm's poller, or its final sample, running beyond the arm's deadline.
class ServerPoller {
public:
    // Samples are timestamped in steady-clock ns since `origin` (the run's start), the clock the
    // dispatcher uses for request intervals.
    explicit ServerPoller(Endpoint endpoint,
                          std::chrono::milliseconds interval = std::chrono::milliseconds(10),
                          std::chrono::milliseconds request_timeout = std::chrono::seconds(5),
                          std::chrono::steady_clock::time_point origin = {},
                          std::size_t max_response_bytes = kDefaultMaxResponseBytes,
                          core::KindEvidence spec = io::default_server_kind().evidence);
    ~ServerPoller();
    ServerPoller(const ServerPoller&) = delete;
    ServerPoller& operator=(const ServerPoller&) = delete;

    // No-op when already running.
    void start(std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);
    core::ServerOverlapEvidence stop();            // safe to call when not running
    core::ServerOverlapEvidence evidence() const;  // what the window holds so far
    bool running() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bi::http
