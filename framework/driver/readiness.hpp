// Waits for a freshly started server to answer GET /health with 200, polling, never sleeping
// longer than one short interval, and giving up at once when the server process is gone.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "http/http_session.hpp"

namespace bi::driver {

// The whole wait ends by `deadline`, however the server answers: each /health request gets at
// most the time that is left (and its answer at most `max_response_bytes`), so a server that
// drips or never finishes its answer cannot stretch it. Throws bi::Error(Server) naming the
// deadline when it passes, or with `death_report()` when `alive()` turns false;
// driver::Interrupted on a signal.
void wait_until_ready(const http::Endpoint& endpoint, std::chrono::milliseconds deadline,
                      const std::function<bool()>& alive,
                      const std::function<std::string()>& death_report,
                      std::size_t max_response_bytes = http::kDefaultMaxResponseBytes,
                      const std::string& ready_path = "/health");

}  // namespace bi::driver
