#include <catch2/catch.hpp>

#include <thread>

#include "fake_llama_server.hpp"
#include "http/completion_client.hpp"
#include "http/http_session.hpp"

using namespace bi::http;
using bi::test::FakeLlamaServer;
using bi::test::FakeScript;

namespace {

Endpoint endpoint_of(const FakeLlamaServer& server) {
    return Endpoint{"127.0.0.1", server.port()};
}

}  // namespace

TEST_CASE("a session keeps one connection alive across requests", "[session]") {
    FakeLlamaServer server(FakeScript{});
    HttpSession session(endpoint_of(server));
    for (int i = 0; i < 5; ++i) {
        const HttpOutcome out = session.post_json("/tokenize", R"({"content":"a b c"})");
        REQUIRE(out.ok());
        CHECK(out.response.status == 200);
    }
    CHECK(server.client_addresses().size() == 1);
}

TEST_CASE("tokenize counts the server's tokens", "[session]") {
    FakeLlamaServer server(FakeScript{});
    HttpSession session(endpoint_of(server));
    const TokenCountOutcome out = tokenize(session, "one two three four");
    REQUIRE(out.ok());
    CHECK(out.count == 4);
}

TEST_CASE("a request that outlives its timeout is http_timeout and the session recovers",
          "[session]") {
    FakeScript script;
    script.hang_after = 0;
    FakeLlamaServer server(script);
    HttpSession session(endpoint_of(server), std::chrono::milliseconds(200));
    const HttpOutcome out = session.post_json("/completion", R"({"prompt":"x"})");
    REQUIRE_FALSE(out.ok());
    CHECK(out.failure->mode == bi::core::FailureMode::HttpTimeout);
    CHECK_THAT(out.failure->message, Catch::Contains("no complete response within 200 ms"));
    const HttpOutcome next = session.post_json("/tokenize", R"({"content":"a"})");
    CHECK(next.ok());
    CHECK(server.client_addresses().size() == 2);  // the timed-out connection was dropped
}

TEST_CASE("a refused connection is http_error", "[session]") {
    HttpSession session(Endpoint{"127.0.0.1", bi::test::unused_port()});
    const HttpOutcome out = session.get("/slots");
    REQUIRE_FALSE(out.ok());
    CHECK(out.failure->mode == bi::core::FailureMode::HttpError);
    CHECK(out.response.status == 0);
}

TEST_CASE("a 500 about memory is oom and other statuses are http_error", "[session]") {
    CHECK(classify_status(500, R"({"error":{"message":"failed to allocate buffer"}})")->mode ==
          bi::core::FailureMode::Oom);
    CHECK(classify_status(500, "CUDA error: out of memory")->mode == bi::core::FailureMode::Oom);
    CHECK(classify_status(500, "something else")->mode == bi::core::FailureMode::HttpError);
    CHECK(classify_status(400, "out of memory")->mode == bi::core::FailureMode::HttpError);
    CHECK(classify_status(404, "")->mode == bi::core::FailureMode::HttpError);
    CHECK_FALSE(classify_status(200, "out of memory"));
}

TEST_CASE("a failed status says the server's own words, with its status", "[http]") {
    using bi::http::classify_status;
    // llama-server's answer to a prompt longer than its context.
    const auto too_long = classify_status(
        400, R"({"error":{"code":400,"message":"the request exceeds the available context size, )"
             R"(try increasing it","type":"exceed_context_size_error","n_prompt_tokens":600,)"
             R"("n_ctx":512}})");
    REQUIRE(too_long);
    CHECK(too_long->message ==
          "HTTP 400: the request exceeds the available context size, try increasing it "
          "(n_prompt_tokens 600, n_ctx 512)");
    CHECK(too_long->http_status == 400);
    // Ollama's error is a string; a body that is no JSON is its own words, on one line and cut.
    CHECK(classify_status(404, R"({"error":"model 'x' not found"})")->message ==
          "HTTP 404: model 'x' not found");
    const auto plain = classify_status(503, "busy\nnow" + std::string(300, 'x'));
    CHECK(plain->message.find('\n') == std::string::npos);
    CHECK(plain->message.size() == std::string("HTTP 503: ").size() + 200 + 3);

    FakeScript script;
    script.completion_status = 500;
    script.completion_error_body = R"({"error":{"code":500,"message":"Out Of Memory"}})";
    FakeLlamaServer server(script);
    HttpSession session(endpoint_of(server));
    RequestOptions options;
    const CompletionOutcome out = complete(session, options, "", "hello", 1);
    REQUIRE_FALSE(out.ok());
    CHECK(out.failure->mode == bi::core::FailureMode::Oom);
    CHECK_THAT(out.failure->message, Catch::Contains("HTTP 500"));
}

TEST_CASE("cancel ends a request in flight and refuses later ones", "[session]") {
    FakeScript script;
    script.hang_after = 0;
    FakeLlamaServer server(script);
    HttpSession session(endpoint_of(server), std::chrono::seconds(60));
    HttpOutcome out;
    std::thread caller([&] { out = session.post_json("/completion", R"({"prompt":"x"})"); });
    REQUIRE(server.wait_until([](const FakeLlamaServer& s) { return s.in_flight() == 1; }));
    session.cancel();
    caller.join();
    REQUIRE_FALSE(out.ok());
    CHECK(out.failure->message == "request cancelled");
    CHECK(session.cancelled());
    const HttpOutcome later = session.get("/slots");
    REQUIRE_FALSE(later.ok());
    CHECK(later.failure->message == "request cancelled");
    CHECK(server.slots_calls() == 0);
}
