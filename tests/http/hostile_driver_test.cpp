// The callers of HttpSession against a server that drips or never stops: the readiness wait, the
// poller, the dispatcher's arm and /tokenize all end by their own deadlines or limits.
#include <catch2/catch.hpp>

#include <chrono>

#include "core/error.hpp"
#include "core/work_item.hpp"
#include "driver/dispatcher.hpp"
#include "driver/readiness.hpp"
#include "hostile_server.hpp"
#include "http/completion_client.hpp"
#include "http/server_poller.hpp"

using namespace std::chrono_literals;
using bi::test::HostileConnection;
using bi::test::HostileServer;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto kDrip = 300ms;     // a byte every 300 ms: well inside every per-request timeout
constexpr auto kMargin = 1500ms;  // scheduling slack on a loaded machine

bi::http::Endpoint endpoint_of(const HostileServer& server) {
    return bi::http::Endpoint{"127.0.0.1", server.port()};
}

// Every answer is a valid-looking response that never finishes arriving.
bool drip_forever(HostileConnection& c, int) {
    return c.drip("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + std::string(100000, ' '),
                  kDrip);
}

std::chrono::milliseconds since(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
}

}  // namespace

TEST_CASE("readiness ends at --ready-timeout even when /health drips", "[readiness][deadline]") {
    HostileServer server(drip_forever);
    const auto start = Clock::now();
    try {
        bi::driver::wait_until_ready(
            endpoint_of(server), 1500ms, [] { return true; }, [] { return std::string(); });
        FAIL("a dripping /health counted as ready");
    } catch (const bi::Error& e) {
        CHECK_THAT(e.what(), Catch::StartsWith("server not ready after 1.5 s (last /health "
                                               "answer: GET /health: no complete response"));
    }
    const auto elapsed = since(start);
    CHECK(elapsed >= 1500ms);
    CHECK(elapsed < 1500ms + kMargin);
}

TEST_CASE("the poller sends nothing past the arm's deadline", "[poller][deadline]") {
    HostileServer server(drip_forever);
    bi::http::ServerPoller poller(endpoint_of(server), 10ms, 5s);
    const auto start = Clock::now();
    poller.start(start + 800ms);  // its first sample would take 2 x 5 s without the deadline
    const auto evidence = poller.stop();
    CHECK(since(start) < 800ms + kMargin);
    CHECK(evidence.n_samples == 0);
}

TEST_CASE("a dripping server cannot make an arm outlive its deadline", "[dispatcher][deadline]") {
    HostileServer server(drip_forever);
    std::vector<bi::core::WorkItem> items(6);
    for (std::size_t i = 0; i < items.size(); ++i) items[i].test_id = "id" + std::to_string(i);
    bi::driver::ArmRequest request;
    request.arm = "C";
    request.items = &items;
    request.order = {0, 1, 2, 3, 4, 5};
    request.concurrency = 2;
    request.request.timeout = 60s;
    const auto start = Clock::now();
    request.origin = start;
    request.deadline = start + 1s;
    const auto records = bi::driver::run_arm(endpoint_of(server), request);
    CHECK(since(start) < 1s + kMargin);
    REQUIRE(records.size() == 6);
    for (const auto& r : records) {
        CHECK(r.failure_mode == bi::core::FailureMode::Incomplete);
        CHECK_THAT(r.error, Catch::StartsWith("arm deadline"));
    }
}

TEST_CASE("a request timeout is a total deadline for every arm request", "[dispatcher][deadline]") {
    HostileServer server(drip_forever);
    std::vector<bi::core::WorkItem> items(2);
    items[0].test_id = "a";
    items[1].test_id = "b";
    bi::driver::ArmRequest request;
    request.arm = "A";
    request.items = &items;
    request.order = {0, 1};
    request.request.timeout = 700ms;
    const auto start = Clock::now();
    request.origin = start;
    const auto records = bi::driver::run_arm(endpoint_of(server), request);
    CHECK(since(start) < 2 * 700ms + kMargin);
    for (const auto& r : records) {
        CHECK(r.failure_mode == bi::core::FailureMode::HttpTimeout);
        CHECK_THAT(r.error, Catch::EndsWith("no complete response within 700 ms (total deadline)"));
    }
}

TEST_CASE("an endless /tokenize answer is bad_response at the size limit", "[session][limit]") {
    HostileServer server([](HostileConnection& c, int) {
        if (!c.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")) return false;
        while (c.send("400\r\n" + std::string(0x400, '[') + "\r\n")) {
        }
        return false;
    });
    bi::http::HttpSession session(endpoint_of(server), 30s, 200000);
    const auto out = bi::http::tokenize(session, "some text");
    REQUIRE_FALSE(out.ok());
    CHECK(out.failure->mode == bi::core::FailureMode::BadResponse);
    CHECK(out.failure->message == "POST /tokenize: response larger than 200000 bytes");
}
