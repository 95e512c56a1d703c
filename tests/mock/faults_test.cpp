// Fault knobs (empty, crash-after, hang, loading) and hostile input: the server answers 400/404
// and keeps serving; it never crashes on what a client sends.
#include <catch2/catch.hpp>

#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/error.hpp"
#include "io/json_text.hpp"
#include "test_client.hpp"
#include "wait_until.hpp"

using namespace bi::mock;
using namespace bi::mock::test;
using bi::core::Json;
using bi::testing::wait_until;

namespace {

const Json kPrompt = Json::Object{{"prompt", "Tell me something."}, {"n_predict", 4}};

// Raw bytes in, whatever comes back until the server closes or goes quiet.
std::string raw_exchange(std::uint16_t port, const std::string& bytes) {
    Poco::Net::StreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", port));
    socket.setReceiveTimeout(Poco::Timespan(2, 0));
    socket.sendBytes(bytes.data(), static_cast<int>(bytes.size()));
    socket.shutdownSend();
    std::string reply;
    char buffer[4096];
    try {
        for (int n; (n = socket.receiveBytes(buffer, sizeof buffer)) > 0;)
            reply.append(buffer, static_cast<std::size_t>(n));
    } catch (const Poco::Exception&) {
        // A reset or a timeout ends the exchange; the caller checks the server still answers.
    }
    return reply;
}

// POSTs `body` with "Expect: 100-continue". Poco's server answers 100 Continue just before it
// hands the request to the mock's handler, so `in_handler` turns true once the request has
// reached it; then waits for the final answer.
void post_once_handled(std::uint16_t port, const Json& body, std::atomic<bool>& in_handler) {
    Poco::Net::HTTPClientSession session("127.0.0.1", port);
    session.setTimeout(Poco::Timespan(20, 0));
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, "/completion",
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    const std::string text = bi::io::to_json_text(body);
    request.setContentType("application/json");
    request.setContentLength(static_cast<std::streamsize>(text.size()));
    request.setExpectContinue(true);
    std::ostream& out = session.sendRequest(request);
    Poco::Net::HTTPResponse response;
    if (!session.peekResponse(response)) return;  // answered without 100 Continue
    out << text << std::flush;
    in_handler = true;
    session.receiveResponse(response);
}

}  // namespace

TEST_CASE("empty: every completion comes back empty", "[mock][faults]") {
    auto config = fast_config();
    config.empty = true;
    MockServer server(config);
    Client client(server.start());
    const auto body = client.post("/completion", kPrompt).json();
    CHECK(body.string_or("content", "x").empty());
    CHECK(body.int_or("tokens_predicted", -1) == 0);
    CHECK(body.string_or("stop_type", "") == "eos");
    const auto chat =
        client
            .post("/v1/chat/completions",
                  Json(Json::Object{{"messages", Json::Array{Json::Object{{"role", "user"},
                                                                          {"content", "hi"}}}}}))
            .json();
    const auto& choice = chat.find("choices")->as_array()[0];
    CHECK(choice.find("message")->string_or("content", "x").empty());
    CHECK(choice.string_or("finish_reason", "") == "stop");
}

TEST_CASE("crash-after: K answers, then the server is gone", "[mock][faults]") {
    auto config = fast_config();
    config.crash_after = 2;
    MockServer server(config);
    const auto port = server.start();
    Client client(port);
    CHECK(client.post("/completion", kPrompt).status == 200);
    CHECK(client.get("/health").status == 200);  // only completions count
    CHECK(client.post("/completion", kPrompt).status == 200);
    CHECK_FALSE(server.crashed());

    Client third(port, 5000);
    CHECK_THROWS_AS(third.post("/completion", kPrompt), Poco::Exception);
    CHECK(server.crashed());
    Client after(port, 5000);
    CHECK_THROWS_AS(after.get("/health"), Poco::Exception);
    server.stop();
}

TEST_CASE("hang: completions never answer, stop() still ends cleanly", "[mock][faults]") {
    auto config = fast_config();
    config.hang = true;
    MockServer server(config);
    const auto port = server.start();
    Client impatient(port, 200);
    CHECK_THROWS_AS(impatient.post("/completion", kPrompt), Poco::TimeoutException);
    Client other(port);
    CHECK(other.get("/health").status == 200);  // the server is alive, only completions hang

    // A second hung request is still waiting when stop() runs; stop() must release it.
    std::atomic<bool> in_handler{false};
    std::thread waiting([port, &in_handler] {
        try {
            post_once_handled(port, kPrompt, in_handler);
        } catch (const Poco::Exception&) {
            // The server went away under it: expected.
        }
    });
    REQUIRE(wait_until([&] { return in_handler.load(); }));
    server.stop();
    waiting.join();
    Client late(port, 2000);
    CHECK_THROWS_AS(late.get("/health"), Poco::Exception);
}

TEST_CASE("loading: 503 until the loading time has passed, then 200", "[mock][faults]") {
    auto config = fast_config();
    config.loading_seconds = 1.0;
    MockServer server(config);
    Client client(server.start());
    const auto first = client.get("/health");
    CHECK(first.status == 503);
    const auto parsed = first.json();
    const auto* error = parsed.find("error");
    REQUIRE(error);
    CHECK(error->int_or("code", 0) == 503);
    CHECK(error->string_or("message", "") == "Loading model");
    CHECK(error->string_or("type", "") == "unavailable_error");
    CHECK(client.post("/completion", kPrompt).status == 503);

    int status = 0;
    wait_until([&] { return (status = client.get("/health").status) == 200; },
               std::chrono::seconds(10), std::chrono::milliseconds(10));
    CHECK(status == 200);
    CHECK(client.post("/completion", kPrompt).status == 200);
}

TEST_CASE("bad bodies get 400 with llama-server's error envelope", "[mock][faults]") {
    MockServer server(fast_config());
    Client client(server.start());
    const std::pair<const char*, std::string> cases[] = {
        {"/completion", "not json"},
        {"/completion", ""},
        {"/completion", "[]"},
        {"/completion", "{\"prompt\":\"x\"} trailing"},
        {"/completion", "\xff\xfe\x00garbage"},
        {"/completion", std::string(100000, '[')},
        {"/completion", "{\"n_predict\": 3}"},
        {"/completion", "{\"prompt\": 5}"},
        {"/completion", "{\"prompt\": [\"a\", 99999999]}"},
        {"/completion", "{\"prompt\": [\"a\", 1.5]}"},
        {"/completion", "{\"prompt\": [\"a\", true]}"},
        {"/completion", "{\"prompt\": [99999999]}"},
        {"/completion", "{\"prompt\": \"x\", \"n_predict\": \"ten\"}"},
        {"/completion", "{\"prompt\": \"x\", \"n_predict\": 1.5}"},
        {"/completion", "{\"prompt\": \"x\", \"n_probs\": -1}"},
        {"/completion", "{\"prompt\": \"x\", \"return_tokens\": 1}"},
        {"/completion", "{\"prompt\": \"x\", \"temperature\": \"hot\"}"},
        {"/completion", "{\"prompt\": \"x\", \"stream\": \"yes\"}"},
        {"/completion", "{\"prompt\": \"x\", \"stream_options\": 1}"},
        {"/completion", "{\"prompt\": \"x\", \"stop\": [1]}"},
        {"/v1/completions", "{\"prompt\": [\"a\", \"b\"]}"},
        {"/v1/completions", "{\"prompt\": \"x\", \"n\": 2}"},
        {"/v1/chat/completions", "{\"messages\": \"hi\"}"},
        {"/v1/chat/completions", "{\"messages\": []}"},
        {"/v1/chat/completions", "{\"messages\": [{\"role\": 1, \"content\": \"x\"}]}"},
        {"/v1/chat/completions", "{\"messages\": [{\"role\": \"user\", \"content\": 7}]}"},
        {"/v1/chat/completions",
         "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"top_logprobs\": 2}"},
        {"/tokenize", "{\"content\": 3}"},
        {"/tokenize", "{}"},
    };
    for (const auto& [path, body] : cases) {
        INFO(path << " " << body.substr(0, 60));
        const auto reply = client.post(path, body);
        CHECK(reply.status == 400);
        const auto parsed = reply.json();
        const auto* error = parsed.find("error");
        REQUIRE(error);
        CHECK(error->int_or("code", 0) == 400);
        CHECK(error->string_or("type", "") == "invalid_request_error");
        CHECK_FALSE(error->string_or("message", "").empty());
    }
    CHECK(client.post("/completion", kPrompt).status == 200);
}

TEST_CASE("unknown routes and methods get 404 JSON", "[mock][faults]") {
    MockServer server(fast_config());
    Client client(server.start());
    for (const auto& reply :
         {client.get("/nope"), client.get("/completion"), client.post("/health", std::string("{}")),
          client.get("/v1/models/extra")}) {
        CHECK(reply.status == 404);
        const auto parsed = reply.json();
        const auto* error = parsed.find("error");
        REQUIRE(error);
        CHECK(error->string_or("type", "") == "not_found_error");
    }
    CHECK(client.get("/health?probe=1").status == 200);  // query strings are fine
}

TEST_CASE("malformed HTTP never takes the server down", "[mock][faults]") {
    MockServer server(fast_config());
    const auto port = server.start();
    raw_exchange(port, "GARBAGE\r\n\r\n");
    raw_exchange(port, std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11));
    raw_exchange(port, "POST /completion HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"pro");
    const auto too_big = raw_exchange(
        port, "POST /completion HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\n");
    CHECK(too_big.rfind("HTTP/1.1 413", 0) == 0);
    Client client(port);
    CHECK(client.get("/health").status == 200);
    CHECK(client.post("/completion", kPrompt).status == 200);
}

TEST_CASE("a port already in use is an error, never a shared port", "[mock][faults]") {
    MockServer first(fast_config());
    auto config = fast_config();
    config.port = first.start();
    MockServer second(config);
    CHECK_THROWS_AS(second.start(), bi::Error);
    Client client(first.port());
    CHECK(client.get("/health").status == 200);
}
