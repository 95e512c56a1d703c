// Streams captured from a real llama-server build (tests/fixtures/llama-server/stream_*): the
// answer assembled from the chunks is the answer the same request got unstreamed, and every token
// chunk carries the server's generation clock.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "http/completion_stream.hpp"
#include "http/sse_reader.hpp"
#include "io/files.hpp"

using namespace bi::http;

namespace {

std::string fixture(const std::string& name) {
    return bi::io::read_file(std::string(BI_FIXTURES_DIR) + "/" + name);
}

// The captured bytes fed as they might arrive: in pieces of 7 bytes, splitting lines and events.
CompletionOutcome assemble_capture(EndpointKind endpoint, const std::string& name,
                                   StreamTrace& trace) {
    const std::string bytes = fixture(name);
    SseReader reader;
    CompletionStream stream(endpoint, "id_slot", 1000);
    std::vector<SseEvent> events;
    auto at = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < bytes.size(); i += 7) {
        at += std::chrono::microseconds(100);
        events.clear();
        reader.feed(std::string_view(bytes).substr(i, 7), at, events);
        for (const auto& event : events) stream.add(event);
    }
    trace = stream.trace();
    return stream.finish(reader.pending());
}

void check_same(const CompletionOutcome& streamed, const CompletionOutcome& whole) {
    INFO((streamed.failure ? streamed.failure->message : std::string()));
    REQUIRE(streamed.ok());
    REQUIRE(whole.ok());
    CHECK(streamed.result.content == whole.result.content);
    CHECK(streamed.result.token_ids == whole.result.token_ids);
    CHECK(streamed.result.token_logprobs == whole.result.token_logprobs);
    CHECK(streamed.result.completion_tokens == whole.result.completion_tokens);
    CHECK(streamed.result.finish_reason == whole.result.finish_reason);
}

}  // namespace

TEST_CASE("real stream: /completion chunks assemble into the unstreamed answer",
          "[http][stream][fixture]") {
    StreamTrace trace;
    const auto streamed =
        assemble_capture(EndpointKind::Completion, "stream_completion.sse", trace);
    const auto whole =
        parse_completion(EndpointKind::Completion, fixture("stream_completion_unstreamed.json"));
    check_same(streamed, whole);
    REQUIRE(whole.result.completion_tokens);
    CHECK(trace.chunks.size() == static_cast<std::size_t>(*whole.result.completion_tokens));
    for (const auto& chunk : trace.chunks) CHECK(chunk.server_ms.has_value());
}

TEST_CASE("real stream: chat chunks assemble into the unstreamed answer",
          "[http][stream][fixture]") {
    StreamTrace trace;
    const auto streamed = assemble_capture(EndpointKind::Chat, "stream_chat.sse", trace);
    const auto whole = parse_completion(EndpointKind::Chat, fixture("stream_chat_unstreamed.json"));
    check_same(streamed, whole);
    CHECK_FALSE(trace.chunks.empty());
    for (const auto& chunk : trace.chunks) CHECK(chunk.server_ms.has_value());
}
