#include "readiness.hpp"

#include <thread>

#include "core/error.hpp"
#include "interrupt.hpp"

namespace bi::driver {

void wait_until_ready(const http::Endpoint& endpoint, std::chrono::milliseconds deadline,
                      const std::function<bool()>& alive,
                      const std::function<std::string()>& death_report) {
    using clock = std::chrono::steady_clock;
    const auto give_up = clock::now() + deadline;
    http::HttpSession session(endpoint, std::chrono::milliseconds(1000));
    auto pause = std::chrono::milliseconds(5);
    std::string last;
    while (true) {
        throw_if_interrupted();
        if (!alive())
            throw Error(ErrorCategory::Server,
                        "server exited before it was ready: " + death_report());
        const auto outcome = session.get("/health");
        if (outcome.ok() && outcome.response.status == 200) return;
        last = outcome.failure ? outcome.failure->message
                               : "HTTP " + std::to_string(outcome.response.status);
        if (clock::now() >= give_up)
            throw Error(ErrorCategory::Server, "server not ready after " +
                                                   std::to_string(deadline.count() / 1000) +
                                                   "s (last /health answer: " + last + ")");
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(100));
    }
}

}  // namespace bi::driver
