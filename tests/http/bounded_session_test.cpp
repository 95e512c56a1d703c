// HttpSession against servers that drip, never stop or announce more than they send: the request
// ends at its total deadline or its size limit, whatever the server does, and the session
// recovers on a fresh connection.
#include <catch2/catch.hpp>

#include <chrono>

#include "hostile_server.hpp"
#include "http/http_session.hpp"
#include "wait_until.hpp"

using namespace bi::http;
using bi::test::HostileConnection;
using bi::test::HostileServer;
using bi::test::http_response;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

// Gaps shorter than the timeout: a per-receive timeout would never fire against these.
constexpr milliseconds kTimeout{500};
constexpr milliseconds kDrip{400};
// Scheduling slack on a loaded 2-core machine; the point is "not minutes".
constexpr milliseconds kMargin{1500};

Endpoint endpoint_of(const HostileServer& server) {
    return Endpoint{"127.0.0.1", server.port()};
}

struct Timed {
    HttpOutcome outcome;
    milliseconds elapsed{0};
};

Timed timed_get(HttpSession& session, const char* path = "/health") {
    const auto start = Clock::now();
    Timed t;
    t.outcome = session.get(path);
    t.elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
    return t;
}

const std::string kBody = R"({"status":"ok"})";

}  // namespace

TEST_CASE("headers dripped one byte at a time end at the total deadline", "[session][deadline]") {
    HostileServer server([](HostileConnection& c, int) {
        return c.drip("HTTP/1.1 200 OK\r\nX-Pad: " + std::string(1000, 'a') + "\r\n\r\n", kDrip);
    });
    HttpSession session(endpoint_of(server), kTimeout);
    const Timed t = timed_get(session);
    REQUIRE_FALSE(t.outcome.ok());
    CHECK(t.outcome.failure->mode == bi::core::FailureMode::HttpTimeout);
    CHECK(t.outcome.failure->message ==
          "GET /health: no complete response within 500 ms (total deadline)");
    CHECK(t.elapsed >= kTimeout);
    CHECK(t.elapsed < kTimeout + kMargin);
}

TEST_CASE("a body dripped one byte at a time ends at the total deadline", "[session][deadline]") {
    SECTION("with a Content-Length") {
        HostileServer server([](HostileConnection& c, int) {
            const std::string body(1000, ' ');
            const std::string all = http_response(body);
            return c.send(all.substr(0, all.size() - body.size())) && c.drip(body, kDrip);
        });
        HttpSession session(endpoint_of(server), kTimeout);
        const Timed t = timed_get(session);
        REQUIRE_FALSE(t.outcome.ok());
        CHECK(t.outcome.failure->mode == bi::core::FailureMode::HttpTimeout);
        CHECK(t.elapsed < kTimeout + kMargin);
    }
    SECTION("read until the server closes: the cut-off body is not taken as complete") {
        HostileServer server([](HostileConnection& c, int) {
            return c.send("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{") &&
                   c.drip(std::string(1000, ' '), kDrip);
        });
        HttpSession session(endpoint_of(server), kTimeout);
        const Timed t = timed_get(session);
        REQUIRE_FALSE(t.outcome.ok());
        CHECK(t.outcome.failure->mode == bi::core::FailureMode::HttpTimeout);
        CHECK(t.elapsed < kTimeout + kMargin);
    }
    SECTION("chunked") {
        HostileServer server([](HostileConnection& c, int) {
            if (!c.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")) return false;
            for (;;)
                if (!c.drip("1\r\n \r\n", kDrip)) return false;
        });
        HttpSession session(endpoint_of(server), kTimeout);
        const Timed t = timed_get(session);
        REQUIRE_FALSE(t.outcome.ok());
        CHECK(t.outcome.failure->mode == bi::core::FailureMode::HttpTimeout);
        CHECK(t.elapsed < kTimeout + kMargin);
    }
}

TEST_CASE("one deadline covers the whole request, not each wait", "[session][deadline]") {
    // Each piece arrives well within the timeout; together they take far longer.
    HostileServer server([](HostileConnection& c, int) {
        const std::string all = http_response(kBody);
        for (char byte : all)
            if (!c.send(std::string(1, byte)) || !c.pause(milliseconds(150))) return false;
        return true;
    });
    HttpSession session(endpoint_of(server), kTimeout);
    const Timed t = timed_get(session);
    REQUIRE_FALSE(t.outcome.ok());
    CHECK(t.outcome.failure->mode == bi::core::FailureMode::HttpTimeout);
    CHECK(t.elapsed < kTimeout + kMargin);
}

TEST_CASE("an endless chunked body stops at the size limit and drops the connection",
          "[session][limit]") {
    HostileServer server([](HostileConnection& c, int index) {
        if (index > 0) return c.send(http_response(kBody));
        if (!c.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")) return false;
        const std::string chunk = "1000\r\n" + std::string(0x1000, '[') + "\r\n";
        while (c.send(chunk)) {
        }
        return false;
    });
    HttpSession session(endpoint_of(server), std::chrono::seconds(30), 64 * 1024);
    const Timed t = timed_get(session, "/props");
    REQUIRE_FALSE(t.outcome.ok());
    CHECK(t.outcome.failure->mode == bi::core::FailureMode::BadResponse);
    CHECK(t.outcome.failure->message == "GET /props: response larger than 65536 bytes");
    CHECK(t.outcome.response.body.empty());
    CHECK(t.elapsed < std::chrono::seconds(10));  // far from the 30 s deadline
    // The server sees the connection go, and the next request opens a new one.
    const Timed next = timed_get(session);
    REQUIRE(next.outcome.ok());
    CHECK(next.outcome.response.body == kBody);
    CHECK(bi::testing::wait_until([&] { return server.disconnects() >= 1; }));
}

TEST_CASE("an endless body without a length stops at the size limit", "[session][limit]") {
    HostileServer server([](HostileConnection& c, int) {
        if (!c.send("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")) return false;
        while (c.send(std::string(0x1000, ' '))) {
        }
        return false;
    });
    HttpSession session(endpoint_of(server), std::chrono::seconds(30), 100000);
    const Timed t = timed_get(session);
    REQUIRE_FALSE(t.outcome.ok());
    CHECK(t.outcome.failure->mode == bi::core::FailureMode::BadResponse);
    CHECK(t.outcome.failure->message == "GET /health: response larger than 100000 bytes");
    CHECK(t.elapsed < std::chrono::seconds(10));
}

TEST_CASE("a Content-Length above the limit is refused without reading the body",
          "[session][limit]") {
    // The server announces 1 TiB and then sends nothing: waiting for it would hit the deadline.
    HostileServer server([](HostileConnection& c, int) {
        return c.send("HTTP/1.1 200 OK\r\nContent-Length: 1099511627776\r\n\r\n") &&
               c.pause(std::chrono::seconds(60));
    });
    HttpSession session(endpoint_of(server), std::chrono::seconds(30), 1 << 20);
    const Timed t = timed_get(session);
    REQUIRE_FALSE(t.outcome.ok());
    CHECK(t.outcome.failure->mode == bi::core::FailureMode::BadResponse);
    CHECK(t.outcome.failure->message == "GET /health: response larger than 1048576 bytes");
    CHECK(t.elapsed < std::chrono::seconds(10));
}

TEST_CASE("the size limit counts headers and body: exactly at it passes, one byte over fails",
          "[session][limit]") {
    const std::string body(5000, 'x');
    const std::string wire = http_response(body);
    HostileServer server([&wire](HostileConnection& c, int) { return c.send(wire); });

    HttpSession at_limit(endpoint_of(server), std::chrono::seconds(30), wire.size());
    const HttpOutcome ok = at_limit.get("/health");
    REQUIRE(ok.ok());
    CHECK(ok.response.body == body);

    HttpSession under(endpoint_of(server), std::chrono::seconds(30), wire.size() - 1);
    const HttpOutcome over = under.get("/health");
    REQUIRE_FALSE(over.ok());
    CHECK(over.failure->mode == bi::core::FailureMode::BadResponse);
    CHECK(over.failure->message ==
          "GET /health: response larger than " + std::to_string(wire.size() - 1) + " bytes");

    // A Content-Length equal to the limit is read (the headers then push it over).
    HttpSession body_sized(endpoint_of(server), std::chrono::seconds(30), body.size());
    const HttpOutcome headers_too = body_sized.get("/health");
    REQUIRE_FALSE(headers_too.ok());
    CHECK(headers_too.failure->mode == bi::core::FailureMode::BadResponse);
}

TEST_CASE("a bounded session still keeps one connection for well-behaved answers",
          "[session][limit]") {
    HostileServer server([](HostileConnection& c, int) { return c.send(http_response(kBody)); });
    HttpSession session(endpoint_of(server), kTimeout, 4096);
    for (int i = 0; i < 5; ++i) {
        const HttpOutcome out = session.post_json("/tokenize", R"({"content":"a"})");
        REQUIRE(out.ok());
        CHECK(out.response.body == kBody);
    }
    CHECK(server.connections() == 1);
    CHECK(server.requests() == 5);
}
