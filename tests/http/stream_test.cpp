// Streamed completions: server-sent events parsed as they arrive, assembled into the answer the
// same request gets unstreamed, with the timing of every token chunk; every way a stream can lie
// or break (a repeated chunk, one after the last, counts that disagree, an error event, a stall, a
// stream that ends early, an answer that is not a stream) fails closed with a reason.
#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "hostile_server.hpp"
#include "http/completion_client.hpp"
#include "http/completion_stream.hpp"
#include "http/sse_reader.hpp"

using namespace bi::http;
using bi::core::FailureMode;
using bi::test::HostileConnection;
using bi::test::HostileServer;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

std::vector<SseEvent> read_all(const std::vector<std::string>& pieces, SseReader& reader) {
    std::vector<SseEvent> events;
    auto at = Clock::now();
    for (const auto& piece : pieces) {
        at += milliseconds(1);
        reader.feed(piece, at, events);
    }
    return events;
}

// A stream of `events` (each a data payload) through CompletionStream.
CompletionOutcome assemble(EndpointKind endpoint, const std::vector<std::string>& events,
                           StreamTrace* trace = nullptr, std::size_t max_chunks = 100) {
    CompletionStream stream(endpoint, "id_slot", max_chunks);
    auto at = Clock::now();
    for (const auto& data : events) {
        at += milliseconds(10);
        stream.add({data, at});
    }
    if (trace) *trace = stream.trace();
    return stream.finish(false);
}

std::string partial(const std::string& text, int id, int n, double ms) {
    return R"({"content":")" + text + R"(","tokens":[)" + std::to_string(id) +
           R"(],"stop":false,"id_slot":1,"tokens_predicted":)" + std::to_string(n) +
           R"(,"timings":{"predicted_n":)" + std::to_string(n) + R"(,"predicted_ms":)" +
           std::to_string(ms) + "}}";
}

const std::string kFinal =
    R"({"content":"","tokens":[],"stop":true,"id_slot":1,"tokens_predicted":3,)"
    R"("tokens_evaluated":5,"stop_type":"limit","timings":{"predicted_n":3,"prompt_n":5,)"
    R"("cache_n":0,"predicted_per_second":100.0}})";

// One chat chunk; with `logprob`, the choice carries one logprobs.content entry.
std::string chat_chunk(const std::string& delta, int n, const std::string& finish = "null",
                       bool logprob = false) {
    const std::string entry = R"(,"logprobs":{"content":[{"id":)" + std::to_string(n) +
                              R"(,"token":"x","logprob":-0.5,"top_logprobs":[]}]})";
    return R"({"choices":[{"index":0,"finish_reason":)" + finish + R"(,"delta":)" + delta +
           (logprob ? entry : "") +
           R"(}],"object":"chat.completion.chunk","timings":{"predicted_n":)" + std::to_string(n) +
           R"(,"predicted_ms":)" + std::to_string(n * 20) + "}}";
}

}  // namespace

TEST_CASE("sse: events split across reads, CRLF, comments and multi-line data", "[http][stream]") {
    SseReader reader;
    const auto events = read_all({"data: {\"a\":", "1}\r", "\n\r\n: ping\n\ndata: x\ndata: y\n",
                                  "\n", "event: e\ndata:z\n\n", "data: part"},
                                 reader);
    REQUIRE(events.size() == 3);
    CHECK(events[0].data == "{\"a\":1}");
    CHECK(events[1].data == "x\ny");
    CHECK(events[2].data == "z");
    CHECK(events[0].arrival < events[1].arrival);
    CHECK(reader.pending());  // "data: part" never ended
    SseReader clean;
    read_all({"data: 1\n\n"}, clean);
    CHECK_FALSE(clean.pending());
}

TEST_CASE("stream: a /completion stream is assembled as the unstreamed answer", "[http][stream]") {
    StreamTrace trace;
    const auto outcome = assemble(
        EndpointKind::Completion,
        {partial("Hel", 11, 1, 0.0), partial("lo", 12, 2, 20.5), partial("!", 13, 3, 41.0), kFinal},
        &trace);
    REQUIRE(outcome.ok());
    CHECK(outcome.result.content == "Hello!");
    CHECK(outcome.result.token_ids == std::vector<std::int64_t>{11, 12, 13});
    CHECK(outcome.result.completion_tokens == 3);
    CHECK(outcome.result.prompt_tokens == 5);
    CHECK(outcome.result.finish_reason == "limit");
    CHECK(outcome.result.id_slot == 1);
    REQUIRE(trace.chunks.size() == 3);
    CHECK(trace.chunks[1].server_ms == Approx(20.5));
    CHECK(trace.chunks[2].tokens == 1);
    CHECK(trace.chunks[0].arrival < trace.chunks[2].arrival);
}

TEST_CASE("stream: a repeated, lost or late chunk and a broken stream fail closed",
          "[http][stream]") {
    const auto p1 = partial("a", 1, 1, 0), p2 = partial("b", 2, 2, 10), p3 = partial("c", 3, 3, 20);
    // The reason a bad_response outcome gives, or "ok".
    // The reason a bad_response outcome gives, or "ok".
    const auto failed = [](const CompletionOutcome& outcome) {
        if (outcome.ok()) return std::string("ok");
        if (outcome.failure->mode != FailureMode::BadResponse) return std::string("another mode");
        return outcome.failure->message;
    };
    using Catch::Contains;
    using K = EndpointKind;
    CHECK_THAT(failed(assemble(K::Completion, {p1, p2, p2, p3, kFinal})),
               Contains("a repeated or lost chunk"));
    CHECK_THAT(failed(assemble(K::Completion, {p1, p3, kFinal})),
               Contains("a repeated or lost chunk"));
    CHECK_THAT(failed(assemble(K::Completion, {p1, p2, p3, kFinal, p3})),
               Contains("a chunk after the final one"));
    CHECK_THAT(failed(assemble(K::Completion, {p1, p2, p3})), Contains("before its final chunk"));
    CHECK_THAT(failed(assemble(K::Completion, {p1, "not json", p3, kFinal})), Contains("chunk 2"));
    CHECK_THAT(failed(assemble(K::Completion, {p1, p2, p3, kFinal}, nullptr, 3)),
               Contains("more than 3 chunks"));
    // Without tokens_predicted in the partials, the final count still catches a lost chunk.
    CHECK_THAT(
        failed(assemble(K::Completion, {R"({"content":"a","tokens":[1],"stop":false})",
                                        R"({"content":"b","tokens":[2],"stop":false})", kFinal})),
        Contains("3 tokens predicted, 2 were streamed"));
    CompletionStream broken(EndpointKind::Completion, "id_slot", 10);
    broken.add({p1, Clock::now()});
    CHECK_THAT(failed(broken.finish(true)), Catch::Contains("in the middle of a chunk"));
}

TEST_CASE("sse: an error field makes an error event, its value the server's words",
          "[http][stream]") {
    SseReader reader;
    const auto events = read_all(
        {"data: {\"a\":1}\n\n", "error: {\"message\":\"out of KV\"}\n\n", "data: x\n\n"}, reader);
    REQUIRE(events.size() == 3);
    CHECK_FALSE(events[0].error_field);
    CHECK(events[1].error_field);
    CHECK(events[1].data == "{\"message\":\"out of KV\"}");
    CHECK_FALSE(events[2].error_field);

    CompletionStream stream(EndpointKind::Completion, "id_slot", 16);
    stream.add(events[1]);
    const auto outcome = stream.finish(false);
    REQUIRE_FALSE(outcome.ok());
    CHECK(outcome.failure->mode == FailureMode::HttpError);
    CHECK(outcome.failure->message == "stream: the server sent an error: out of KV");
}

TEST_CASE("stream: an error event fails with the server's own words", "[http][stream]") {
    const auto outcome =
        assemble(EndpointKind::Completion,
                 {partial("a", 1, 1, 0), R"({"error":{"code":500,"message":"KV cache is full"}})"});
    REQUIRE_FALSE(outcome.ok());
    CHECK(outcome.failure->mode == FailureMode::HttpError);
    CHECK(outcome.failure->message == "stream: the server sent an error: KV cache is full");
}

TEST_CASE("stream: a chat stream with reasoning, tool-call pieces, logprobs and usage",
          "[http][stream]") {
    StreamTrace trace;
    const auto outcome = assemble(
        EndpointKind::Chat,
        {R"({"choices":[{"index":0,"finish_reason":null,"delta":{"role":"assistant","content":null}}]})",
         chat_chunk(R"({"reasoning_content":"think"})", 1, "null", true),
         chat_chunk(R"({"content":"Hi"})", 2, "null", true),
         chat_chunk(
             R"({"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\""}}]})",
             3, "null", true),
         chat_chunk(R"({"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]})", 4, "null",
                    true),
         chat_chunk("{}", 4, "\"tool_calls\""),
         R"({"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4}})", "[DONE]"},
        &trace);
    INFO((outcome.failure ? outcome.failure->message : std::string()));
    REQUIRE(outcome.ok());
    CHECK(outcome.result.content == "Hi");
    CHECK(outcome.result.reasoning_content == "think");
    CHECK(outcome.result.finish_reason == "tool_calls");
    CHECK(outcome.result.completion_tokens == 4);
    CHECK(outcome.result.prompt_tokens == 9);
    REQUIRE(outcome.result.token_logprobs);
    CHECK(outcome.result.token_logprobs->size() == 4);
    CHECK(outcome.result.token_ids == std::vector<std::int64_t>{1, 2, 3, 4});
    const auto& call = outcome.result.tool_calls.as_array().front();
    CHECK(call.find("id") == nullptr);  // made up by the server, as unstreamed
    CHECK(call.find("function")->string_or("arguments", "") == "{\"a\":1}");
    CHECK(trace.chunks.size() == 4);  // the role chunk and the final one carry no token
}

TEST_CASE("stream: a chat stream whose counts disagree, or that goes on, fails closed",
          "[http][stream]") {
    const auto content = [](int n) { return chat_chunk(R"({"content":"w"})", n); };
    const std::string finish = chat_chunk("{}", 2, "\"stop\"");
    const auto usage = [](int n) {
        return R"({"choices":[],"usage":{"completion_tokens":)" + std::to_string(n) + "}}";
    };
    const auto message = [](const CompletionOutcome& outcome) {
        return outcome.failure ? outcome.failure->message : std::string("ok");
    };
    CHECK(assemble(EndpointKind::Chat, {content(1), content(2), finish, usage(2), "[DONE]"}).ok());
    CHECK_THAT(message(assemble(EndpointKind::Chat, {content(1), content(1), finish})),
               Catch::Contains("did not advance"));
    CHECK_THAT(message(assemble(EndpointKind::Chat, {content(1), content(2), finish, usage(3)})),
               Catch::Contains("usage.completion_tokens 3 but 2 tokens were streamed"));
    CHECK_THAT(message(assemble(EndpointKind::Chat, {content(1), content(2), finish, content(3)})),
               Catch::Contains("a chunk after the final one"));
    CHECK_THAT(message(assemble(EndpointKind::Chat, {content(1), finish, "[DONE]", usage(1)})),
               Catch::Contains("a chunk after [DONE]"));
    CHECK_THAT(message(assemble(EndpointKind::Chat, {content(1), content(2)})),
               Catch::Contains("before its final chunk"));
    // A token whose logprobs entry went missing.
    CHECK_THAT(
        message(assemble(EndpointKind::Chat, {chat_chunk(R"({"content":"w"})", 1, "null", true),
                                              content(2), finish, usage(2)})),
        Catch::Contains("usage.completion_tokens 2 but 1 logprob entries were streamed"));
}

TEST_CASE("stream: chunk times use the server's clock, anchored by the soonest arrival",
          "[http][stream]") {
    const auto origin = Clock::now();
    StreamTrace trace;
    // Made at 100, 120, 140 ms; the second read 15 ms late, the first and third on time (+1).
    trace.chunks = {{origin + milliseconds(101), 1, 0.0},
                    {origin + milliseconds(135), 1, 20.0},
                    {origin + milliseconds(141), 1, 40.0}};
    const auto made = chunk_times_ms(trace, origin);
    REQUIRE(made.size() == 3);
    CHECK(made[0] == Approx(101.0));
    CHECK(made[1] == Approx(121.0));
    CHECK(made[2] == Approx(141.0));
    // One chunk without the server's clock: the arrival times, as read.
    trace.chunks[1].server_ms.reset();
    const auto read = chunk_times_ms(trace, origin);
    CHECK(read[1] == Approx(135.0));
}

namespace {

std::string event_stream_head() {
    return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
}

RequestOptions completion_options() {
    RequestOptions options;
    options.endpoint = EndpointKind::Completion;
    options.n_predict = 3;
    return options;
}

}  // namespace

TEST_CASE("stream: over HTTP, each chunk is stamped when it arrives", "[http][stream][session]") {
    HostileServer server([](HostileConnection& c, int) {
        if (!c.send(event_stream_head())) return false;
        for (int n = 1; n <= 3; ++n) {
            if (!c.send("data: " + partial("t", n, n, 30.0 * (n - 1)) + "\n\n")) return false;
            if (!c.pause(milliseconds(30))) return false;
        }
        c.send("data: " + kFinal + "\n\n");
        return false;
    });
    HttpSession session({"127.0.0.1", server.port()}, std::chrono::seconds(10));
    const auto done = complete_streamed(session, completion_options(), "", "p", 1);
    INFO((done.outcome.failure ? done.outcome.failure->message : ""));
    REQUIRE(done.outcome.ok());
    CHECK(done.outcome.result.content == "ttt");
    REQUIRE(done.trace.chunks.size() == 3);
    // The pauses separate the arrivals (at least most of them: 30 ms each).
    CHECK(done.trace.chunks[2].arrival - done.trace.chunks[0].arrival >= milliseconds(50));
    CHECK(done.trace.chunks[0].arrival >= done.sent);
}

TEST_CASE("stream: a piece is stamped when it reached the machine, not when a busy reader read it",
          "[http][stream][session]") {
    // The reader is held in its sink on the first piece until the second has been sent: a loaded
    // client whose thread runs late. The second piece was on the machine before the reader was
    // let go, and its arrival must say so.
    std::mutex mutex;
    std::condition_variable changed;
    bool first_read = false;
    bool second_sent = false;
    // Bounded waits: a failing client must not leave the server's script waiting for ever.
    HostileServer server([&](HostileConnection& c, int) {
        if (!c.send(event_stream_head() + "data: 1\n\n")) return false;
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait_for(lock, std::chrono::seconds(10), [&] { return first_read; });
        lock.unlock();
        c.send("data: 2\n\n");
        lock.lock();
        second_sent = true;
        changed.notify_all();
        return false;
    });
    HttpSession session({"127.0.0.1", server.port()}, std::chrono::seconds(10));
    std::string body;
    std::vector<Clock::time_point> arrivals;
    Clock::time_point released{};
    const auto outcome = session.post_stream(
        "/completion", "{}",
        [&](std::string_view bytes, Clock::time_point arrival) {
            body.append(bytes);
            arrivals.push_back(arrival);
            if (arrivals.size() != 1) return;
            std::unique_lock<std::mutex> lock(mutex);
            first_read = true;
            changed.notify_all();
            changed.wait_for(lock, std::chrono::seconds(10), [&] { return second_sent; });
            released = Clock::now();
        },
        std::chrono::seconds(10));
    INFO((outcome.failure ? outcome.failure->message : ""));
    REQUIRE(outcome.ok());
    CHECK(body == "data: 1\n\ndata: 2\n\n");
    REQUIRE(arrivals.size() == 2);
    CHECK(arrivals[1] < released);
    CHECK(arrivals[0] <= arrivals[1]);
}

TEST_CASE("stream: a stall, an early end and an answer that is not a stream fail closed",
          "[http][stream][session]") {
    const auto run = [](bi::test::HostileScript script, milliseconds gap) {
        HostileServer server(std::move(script));
        HttpSession session({"127.0.0.1", server.port()}, std::chrono::seconds(10));
        StreamLimits limits;
        limits.max_gap = gap;
        return complete_streamed(session, completion_options(), "", "p", 1, limits).outcome;
    };
    const auto stalled = run(
        [](HostileConnection& c, int) {
            c.send(event_stream_head() + "data: " + partial("t", 1, 1, 0) + "\n\n");
            c.pause(milliseconds(3000));
            return false;
        },
        milliseconds(200));
    REQUIRE_FALSE(stalled.ok());
    CHECK(stalled.failure->mode == FailureMode::HttpTimeout);
    CHECK_THAT(stalled.failure->message, Catch::Contains("no data for 200 ms (stream stalled)"));
    const auto ended = run(
        [](HostileConnection& c, int) {
            c.send(event_stream_head() + "data: " + partial("t", 1, 1, 0) + "\n\n");
            return false;
        },
        milliseconds(2000));
    REQUIRE_FALSE(ended.ok());
    CHECK_THAT(ended.failure->message, Catch::Contains("ended before its final chunk"));
    const auto plain = run(
        [](HostileConnection& c, int) {
            c.send(bi::test::http_response(kFinal, 200, "Content-Type: application/json\r\n"));
            return false;
        },
        milliseconds(2000));
    REQUIRE_FALSE(plain.ok());
    CHECK(plain.failure->message == "asked to stream, the server answered application/json");
}
