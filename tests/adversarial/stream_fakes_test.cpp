// fake_llama_server.py streamed through the real client (http::complete_streamed), every surface
// in its kind's own dialect: an honest stream assembles to exactly what the same request gets
// unstreamed, its llama events have the real captures' shape, and every stream misbehaviour knob
// ends in the failure CompletionStream gives for it, never in an accepted answer (but for the
// leniencies named here).
#include <catch2/catch.hpp>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "http/completion_client.hpp"
#include "http/sse_reader.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "stream_fake_server.hpp"

using namespace bi;
using bi::core::FailureMode;
using bi::http::EndpointKind;
using Catch::Contains;

namespace {

constexpr int kTokens = 4;

struct Both {
    http::CompletionOutcome whole;
    http::StreamedCompletion streamed;
};

// The request unstreamed, then streamed, on one session; pinned to slot 0 where the kind has
// slots, so that both name the same slot whatever an earlier request still holds.
Both ask(const testing::StreamFakeServer& fake, http::RequestOptions options,
         std::chrono::milliseconds timeout = std::chrono::seconds(20),
         http::StreamLimits limits = {}) {
    if (!options.dialect.slot_field.empty()) options.id_slot = 0;
    http::HttpSession session(fake.endpoint(), std::chrono::seconds(20));
    Both both;
    both.whole = http::complete(session, options, "", "the river runs", 7);
    session.set_timeout(timeout);
    both.streamed = http::complete_streamed(session, options, "", "the river runs", 7, limits);
    return both;
}

std::string why(const http::CompletionOutcome& outcome) {
    return outcome.failure ? outcome.failure->message : std::string("ok");
}

void check_same_alternatives(const http::CompletionResult& a, const http::CompletionResult& b) {
    REQUIRE(a.top_alternatives.has_value() == b.top_alternatives.has_value());
    if (!a.top_alternatives) return;
    REQUIRE(a.top_alternatives->size() == b.top_alternatives->size());
    for (std::size_t i = 0; i < a.top_alternatives->size(); ++i) {
        const auto& x = (*a.top_alternatives)[i];
        const auto& y = (*b.top_alternatives)[i];
        REQUIRE(x.size() == y.size());
        for (std::size_t j = 0; j < x.size(); ++j) {
            CHECK(x[j].id == y[j].id);
            CHECK(x[j].text == y[j].text);
            CHECK(x[j].logprob == y[j].logprob);
        }
    }
}

// The streamed answer is the unstreamed one, field by field (the speed aside: the stream's is
// measured), and its trace has one chunk per token, on the server's clock when `server_clock`.
void check_honest(const Both& both, bool server_clock) {
    INFO("unstreamed: " << why(both.whole) << "; streamed: " << why(both.streamed.outcome));
    REQUIRE(both.whole.ok());
    REQUIRE(both.streamed.outcome.ok());
    const auto& whole = both.whole.result;
    const auto& streamed = both.streamed.outcome.result;
    CHECK(streamed.content == whole.content);
    CHECK(streamed.reasoning_content == whole.reasoning_content);
    CHECK(streamed.tool_calls == whole.tool_calls);
    CHECK(streamed.token_ids == whole.token_ids);
    CHECK(streamed.token_logprobs == whole.token_logprobs);
    CHECK(streamed.token_texts == whole.token_texts);
    check_same_alternatives(streamed, whole);
    CHECK(streamed.prompt_tokens == whole.prompt_tokens);
    CHECK(streamed.completion_tokens == whole.completion_tokens);
    CHECK(streamed.id_slot == whole.id_slot);
    CHECK(streamed.finish_reason == whole.finish_reason);
    CHECK(whole.completion_tokens == kTokens);
    const auto& chunks = both.streamed.trace.chunks;
    CHECK(chunks.size() == static_cast<std::size_t>(kTokens));
    for (const auto& chunk : chunks) {
        CHECK(chunk.tokens == 1);
        CHECK(chunk.server_ms.has_value() == server_clock);
        CHECK(chunk.arrival >= both.streamed.sent);
    }
}

// A chat request of `kind` answered honestly by the fake serving `surface`, with logprobs and
// without.
void check_honest_chat(const std::string& kind, const std::vector<std::string>& surface,
                       bool server_clock) {
    testing::StreamFakeServer fake(surface);
    for (const int logprobs : {0, 2}) {
        INFO(kind << " logprobs " << logprobs);
        check_honest(ask(fake, testing::kind_request(kind, EndpointKind::Chat, kTokens, logprobs)),
                     server_clock);
    }
}

// The failure a misbehaving stream ends in: its mode and message.
void check_fails(const Both& both, FailureMode mode, const std::string& words) {
    INFO("streamed: " << why(both.streamed.outcome));
    REQUIRE(both.whole.ok());  // the knobs touch streams only
    REQUIRE_FALSE(both.streamed.outcome.ok());
    CHECK(both.streamed.outcome.failure->mode == mode);
    CHECK_THAT(both.streamed.outcome.failure->message, Contains(words));
}

http::RequestOptions llama(EndpointKind endpoint, int logprobs = 2) {
    return testing::kind_request("llama-server", endpoint, kTokens, logprobs);
}

// The events of one streamed answer, read raw.
std::vector<core::Json> raw_events(const testing::StreamFakeServer& fake,
                                   const http::RequestOptions& options) {
    http::HttpSession session(fake.endpoint(), std::chrono::seconds(20));
    http::RequestOptions streamed = options;
    streamed.stream = true;
    http::SseReader reader;
    std::vector<http::SseEvent> events;
    const auto sent = session.post_stream(
        http::request_path(options), http::build_request_body(streamed, "", "the river runs", 7),
        [&](std::string_view bytes, std::chrono::steady_clock::time_point at) {
            reader.feed(bytes, at, events);
        },
        std::chrono::seconds(20));
    REQUIRE(sent.ok());
    std::vector<core::Json> out;
    for (const auto& event : events)
        out.push_back(event.data == "[DONE]" ? core::Json("[DONE]")
                                             : io::parse_json(event.data, "event"));
    return out;
}

// The events of a captured real stream.
std::vector<core::Json> captured_events(const std::string& name) {
    const std::string bytes = io::read_file(std::string(BI_FIXTURES_DIR) + "/" + name);
    http::SseReader reader;
    std::vector<http::SseEvent> events;
    reader.feed(bytes, std::chrono::steady_clock::now(), events);
    std::vector<core::Json> out;
    for (const auto& event : events)
        out.push_back(event.data == "[DONE]" ? core::Json("[DONE]")
                                             : io::parse_json(event.data, "capture"));
    return out;
}

std::set<std::string> keys(const core::Json& object, const std::set<std::string>& except = {}) {
    std::set<std::string> names;
    if (object.is_object())
        for (const auto& [name, value] : object.as_object())
            if (!except.count(name)) names.insert(name);
    return names;
}

const core::Json& choice(const core::Json& chunk) {
    return chunk.find("choices")->as_array().front();
}

}  // namespace

TEST_CASE("stream fake: llama /completion and chat streams assemble to the unstreamed answer",
          "[adversarial][stream]") {
    testing::StreamFakeServer fake({"--fake-tick-ms=2"});
    for (const auto endpoint : {EndpointKind::Completion, EndpointKind::Chat})
        for (const int logprobs : {0, 2}) {
            INFO(http::endpoint_name(endpoint) << " logprobs " << logprobs);
            check_honest(ask(fake, llama(endpoint, logprobs)), true);
        }
}

TEST_CASE("stream fake: the llama streams have the real captures' shape", "[adversarial][stream]") {
    testing::StreamFakeServer fake({"--fake-tick-ms=2"});
    // /completion: the same keys in every partial (timings and probabilities included); the
    // final one sends only keys the real one sends.
    const auto real = captured_events("stream_completion.sse");
    const auto ours = raw_events(fake, llama(EndpointKind::Completion));
    REQUIRE(ours.size() == static_cast<std::size_t>(kTokens + 1));
    for (std::size_t i = 0; i < kTokens; ++i) {
        CHECK(keys(ours[i]) == keys(real.front()));
        CHECK(keys(*ours[i].find("timings")) == keys(*real.front().find("timings")));
        CHECK(ours[i].find("id_slot")->as_int() == -1);
    }
    for (const auto& key : keys(ours.back())) {
        INFO(key);
        CHECK(real.back().find(key) != nullptr);
    }
    CHECK(ours.back().find("stop")->as_bool());
    // Chat: a role chunk, token chunks, the finish chunk (which names the slot, as the fake's
    // unstreamed chat answer does), the usage chunk, [DONE].
    const auto real_chat = captured_events("stream_chat.sse");
    const auto chat = raw_events(fake, llama(EndpointKind::Chat));
    REQUIRE(chat.size() == static_cast<std::size_t>(kTokens + 4));
    REQUIRE(real_chat.size() >= 5);
    const auto last = [](const std::vector<core::Json>& events, std::size_t back) {
        return events[events.size() - 1 - back];
    };
    CHECK(keys(chat[0]) == keys(real_chat[0]));
    CHECK(keys(choice(chat[0])) == keys(choice(real_chat[0])));
    CHECK(keys(*choice(chat[0]).find("delta")) == keys(*choice(real_chat[0]).find("delta")));
    for (std::size_t i = 1; i <= kTokens; ++i) {
        CHECK(keys(chat[i]) == keys(real_chat[1]));
        CHECK(keys(choice(chat[i])) == keys(choice(real_chat[1])));
        CHECK(keys(*chat[i].find("timings")) == keys(*real_chat[1].find("timings")));
    }
    CHECK(keys(last(chat, 2), {"id_slot"}) == keys(last(real_chat, 2)));
    CHECK(keys(last(chat, 1)) == keys(last(real_chat, 1)));
    CHECK(keys(*last(chat, 1).find("usage")) == keys(*last(real_chat, 1).find("usage")));
    CHECK(last(chat, 0) == core::Json("[DONE]"));
    // Each token's server clock is the tick that made it: it never runs backwards.
    for (std::size_t i = 2; i <= kTokens; ++i)
        CHECK(chat[i].find("timings")->find("predicted_ms")->as_double() >=
              chat[i - 1].find("timings")->find("predicted_ms")->as_double());
}

TEST_CASE("stream fake: ik_llama.cpp's chat stream assembles to the unstreamed answer",
          "[adversarial][stream]") {
    check_honest_chat("ik_llama.cpp", {"--fake-ik-surface", "--fake-tick-ms=2"}, true);
}

TEST_CASE("stream fake: vllm's chat stream, usage on every chunk", "[adversarial][stream]") {
    check_honest_chat("vllm", {"--fake-surface=vllm", "--fake-tick-ms=2"}, false);
    testing::StreamFakeServer fake({"--fake-surface=vllm", "--fake-tick-ms=2"});
    const auto events =
        raw_events(fake, testing::kind_request("vllm", EndpointKind::Chat, kTokens));
    REQUIRE(events.size() == static_cast<std::size_t>(kTokens + 3));
    for (std::size_t i = 0; i + 1 < events.size(); ++i)
        CHECK(events[i].find("usage")->find("completion_tokens")->as_int() ==
              static_cast<std::int64_t>(std::min<std::size_t>(i, kTokens)));
    CHECK(choice(events[kTokens]).find("finish_reason")->as_string() == "length");
}

TEST_CASE("stream fake: sglang's chat stream assembles to the unstreamed answer",
          "[adversarial][stream]") {
    check_honest_chat("sglang", {"--fake-surface=sglang", "--fake-tick-ms=2"}, false);
}

TEST_CASE("stream fake: tgi's chat stream assembles to the unstreamed answer",
          "[adversarial][stream]") {
    check_honest_chat("tgi", {"--fake-surface=tgi", "--fake-tick-ms=2"}, false);
}

TEST_CASE("stream fake: trtllm-serve's chat stream assembles to the unstreamed answer",
          "[adversarial][stream]") {
    check_honest_chat("trtllm-serve", {"--fake-surface=trtllm", "--fake-tick-ms=2"}, false);
}

TEST_CASE("stream fake: ollama's chat stream assembles to the unstreamed answer",
          "[adversarial][stream]") {
    check_honest_chat("ollama", {"--fake-surface=ollama", "--fake-tick-ms=2"}, false);
}

TEST_CASE("stream fake: openai-generic's chat stream assembles to the unstreamed answer",
          "[adversarial][stream]") {
    check_honest_chat("openai-generic", {"--fake-surface=generic", "--fake-tick-ms=2"}, false);
}

TEST_CASE("stream fake: reasoning and tool-call drift stream as they answer unstreamed",
          "[adversarial][stream]") {
    testing::StreamFakeServer fake(
        {"--fake-reasoning-drift", "--fake-toolcall-drift", "--fake-tick-ms=2"});
    const auto both = ask(fake, llama(EndpointKind::Chat));
    check_honest(both, true);
    CHECK(both.streamed.outcome.result.reasoning_content == "thinking once");
    CHECK(both.streamed.outcome.result.tool_calls.is_array());
}

TEST_CASE("stream fake: a stalled llama stream times out", "[adversarial][stream]") {
    http::StreamLimits limits;
    limits.max_gap = std::chrono::milliseconds(300);
    testing::StreamFakeServer fake({"--fake-stream-stall=2", "--fake-tick-ms=2"});
    for (const auto endpoint : {EndpointKind::Completion, EndpointKind::Chat}) {
        INFO(http::endpoint_name(endpoint));
        const auto both = ask(fake, llama(endpoint), std::chrono::seconds(20), limits);
        check_fails(both, FailureMode::HttpTimeout, "no data for 300 ms (stream stalled)");
        CHECK(both.streamed.trace.chunks.size() == 2);  // those before the stall
    }
}

TEST_CASE("stream fake: a dripped llama stream is read within the deadline, not past it",
          "[adversarial][stream]") {
    // Every byte on its own, 0.1 ms apart.
    testing::StreamFakeServer fake({"--fake-stream-drip=0.1", "--fake-tick-ms=2"});
    for (const auto endpoint : {EndpointKind::Completion, EndpointKind::Chat}) {
        INFO(http::endpoint_name(endpoint));
        check_honest(ask(fake, llama(endpoint)), true);
        check_fails(ask(fake, llama(endpoint), std::chrono::milliseconds(100)),
                    FailureMode::HttpTimeout, "no complete response within 100 ms");
    }
}

TEST_CASE("stream fake: a repeated chunk or one after the final is refused, llama dialects",
          "[adversarial][stream]") {
    {
        testing::StreamFakeServer fake({"--fake-stream-duplicate=2", "--fake-tick-ms=2"});
        check_fails(ask(fake, llama(EndpointKind::Completion)), FailureMode::BadResponse,
                    "tokens_predicted 2 after 3 streamed tokens (a repeated or lost chunk?)");
        check_fails(ask(fake, llama(EndpointKind::Chat)), FailureMode::BadResponse,
                    "timings.predicted_n 2 did not advance from 2 (a repeated chunk?)");
    }
    testing::StreamFakeServer fake({"--fake-stream-after-final", "--fake-tick-ms=2"});
    for (const auto endpoint : {EndpointKind::Completion, EndpointKind::Chat})
        check_fails(ask(fake, llama(endpoint)), FailureMode::BadResponse,
                    "a chunk after the final one");
}

TEST_CASE("stream fake: totals that disagree with the streamed tokens are refused, llama",
          "[adversarial][stream]") {
    testing::StreamFakeServer fake({"--fake-stream-miscount", "--fake-tick-ms=2"});
    check_fails(ask(fake, llama(EndpointKind::Completion)), FailureMode::BadResponse,
                "the final chunk counts 5 tokens predicted, 4 were streamed");
    check_fails(ask(fake, llama(EndpointKind::Chat, 0)), FailureMode::BadResponse,
                "usage.completion_tokens 5 but 4 tokens were streamed");
}

TEST_CASE("stream fake: an error event fails with the server's words, in either form",
          "[adversarial][stream]") {
    {
        testing::StreamFakeServer fake({"--fake-stream-error", "--fake-tick-ms=2"});
        for (const auto endpoint : {EndpointKind::Completion, EndpointKind::Chat})
            check_fails(ask(fake, llama(endpoint)), FailureMode::HttpError,
                        "stream: the server sent an error: the fake failed mid-stream");
    }
    // The older form, `error: {...}` instead of a data line, as ik_llama.cpp sends it.
    testing::StreamFakeServer fake({"--fake-stream-error=field", "--fake-tick-ms=2"});
    for (const auto endpoint : {EndpointKind::Completion, EndpointKind::Chat})
        check_fails(ask(fake, llama(endpoint)), FailureMode::HttpError,
                    "stream: the server sent an error: the fake failed mid-stream");
}

TEST_CASE("stream fake: a chat stream that never sends [DONE] is read up to its finish chunk",
          "[adversarial][stream]") {
    // CompletionStream's documented leniency: the finish chunk ends a chat answer, and [DONE]
    // is optional (ik_llama.cpp sent none until 2025). The answer is complete and the same.
    testing::StreamFakeServer fake({"--fake-stream-no-done", "--fake-tick-ms=2"});
    check_honest(ask(fake, llama(EndpointKind::Chat)), true);
}

namespace {

// The knobs on a surface without a server clock: with logprobs on, every token's logprobs
// entry is what the usage count is checked against.
void check_knobs_without_clock(const std::string& kind, const std::string& surface) {
    const auto options = testing::kind_request(kind, EndpointKind::Chat, kTokens, 2);
    const std::string flag = "--fake-surface=" + surface;
    {
        testing::StreamFakeServer fake({flag, "--fake-stream-duplicate=2", "--fake-tick-ms=2"});
        check_fails(ask(fake, options), FailureMode::BadResponse,
                    "usage.completion_tokens 4 but 5 logprob entries were streamed");
    }
    {
        testing::StreamFakeServer fake({flag, "--fake-stream-miscount", "--fake-tick-ms=2"});
        check_fails(ask(fake, options), FailureMode::BadResponse,
                    "usage.completion_tokens 5 but 4 logprob entries were streamed");
    }
    {
        testing::StreamFakeServer fake({flag, "--fake-stream-after-final", "--fake-tick-ms=2"});
        check_fails(ask(fake, options), FailureMode::BadResponse, "a chunk after the final one");
    }
    testing::StreamFakeServer fake({flag, "--fake-stream-error", "--fake-tick-ms=2"});
    check_fails(ask(fake, options), FailureMode::HttpError,
                "stream: the server sent an error: the fake failed mid-stream");
}

}  // namespace

TEST_CASE("stream fake: vllm's misbehaving streams are refused", "[adversarial][stream]") {
    check_knobs_without_clock("vllm", "vllm");
}

TEST_CASE("stream fake: tgi's misbehaving streams are refused", "[adversarial][stream]") {
    check_knobs_without_clock("tgi", "tgi");
}

TEST_CASE("stream fake: ollama's misbehaving streams are refused", "[adversarial][stream]") {
    check_knobs_without_clock("ollama", "ollama");
}

TEST_CASE("stream fake: sglang, trtllm-serve and generic misbehaving streams are refused",
          "[adversarial][stream]") {
    for (const auto& [kind, surface] : std::vector<std::pair<std::string, std::string>>{
             {"sglang", "sglang"}, {"trtllm-serve", "trtllm"}, {"openai-generic", "generic"}}) {
        INFO(kind);
        const auto options = testing::kind_request(kind, EndpointKind::Chat, kTokens, 2);
        testing::StreamFakeServer fake(
            {"--fake-surface=" + surface, "--fake-stream-duplicate=2", "--fake-tick-ms=2"});
        check_fails(ask(fake, options), FailureMode::BadResponse,
                    "usage.completion_tokens 4 but 5 logprob entries were streamed");
    }
}

TEST_CASE(
    "stream fake: without a server clock or logprobs, a repeated chunk or a wrong usage "
    "count is not caught",
    "[adversarial][stream][!shouldfail]") {
    // A known gap, kept visible: a chat stream of a kind that sends neither timings nor (with
    // logprobs off) logprobs gives CompletionStream nothing to count its chunks against, so a
    // repeated token chunk, or usage.completion_tokens off by one, is accepted. Remove
    // [!shouldfail] once CompletionStream counts the token chunks (or reads the per-chunk usage
    // vLLM sends with continuous_usage_stats).
    const auto options = testing::kind_request("vllm", EndpointKind::Chat, kTokens, 0);
    {
        testing::StreamFakeServer fake(
            {"--fake-surface=vllm", "--fake-stream-duplicate=2", "--fake-tick-ms=2"});
        const auto both = ask(fake, options);
        CHECK_FALSE(both.streamed.outcome.ok());
    }
    testing::StreamFakeServer fake(
        {"--fake-surface=vllm", "--fake-stream-miscount", "--fake-tick-ms=2"});
    const auto both = ask(fake, options);
    CHECK_FALSE(both.streamed.outcome.ok());
}
