#include "readiness.hpp"

#include <algorithm>
#include <thread>

#include "core/error.hpp"
#include "interrupt.hpp"

namespace bi::driver {

namespace {

// One /health request may take this long before the process is looked at again.
constexpr auto kHealthAttempt = std::chrono::seconds(2);

}  // namespace

void wait_until_ready(const http::Endpoint& endpoint, std::chrono::milliseconds deadline,
                      const std::function<bool()>& alive,
                      const std::function<std::string()>& death_report,
                      std::size_t max_response_bytes, const std::string& ready_path) {
    using clock = std::chrono::steady_clock;
    const auto give_up = clock::now() + deadline;
    const auto time_left = [&] {
        return std::chrono::ceil<std::chrono::milliseconds>(give_up - clock::now());
    };
    http::HttpSession session(endpoint, kHealthAttempt, max_response_bytes);
    auto pause = std::chrono::milliseconds(5);
    std::string last = "none";
    while (true) {
        throw_if_interrupted();
        if (!alive())
            throw Error(ErrorCategory::Server,
                        "server exited before it was ready: " + death_report());
        if (time_left().count() <= 0)
            throw Error(ErrorCategory::Server, "server not ready after " +
                                                   http::describe_duration(deadline) + " (last " +
                                                   ready_path + " answer: " + last + ")");
        session.set_timeout(std::min<std::chrono::milliseconds>(kHealthAttempt, time_left()));
        const auto outcome = session.get(ready_path);
        if (outcome.ok() && outcome.response.status == 200) return;
        last = outcome.failure ? outcome.failure->message
                               : "HTTP " + std::to_string(outcome.response.status);
        std::this_thread::sleep_for(std::clamp(time_left(), std::chrono::milliseconds(0), pause));
        pause = std::min(pause * 2, std::chrono::milliseconds(100));
    }
}

}  // namespace bi::driver
