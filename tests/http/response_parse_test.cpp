#include <catch2/catch.hpp>

#include "http/completion_response.hpp"
#include "io/files.hpp"

using namespace bi::http;

namespace {

std::string fixture(const std::string& name) {
    return bi::io::read_file(std::string(BI_FIXTURES_DIR) + "/" + name);
}

std::string bad_message(EndpointKind kind, const std::string& body) {
    const CompletionOutcome out = parse_completion(kind, body);
    REQUIRE_FALSE(out.ok());
    CHECK(out.failure->mode == "bad_response");
    return out.failure->message;
}

}  // namespace

TEST_CASE("a real /completion answer yields tokens and logprobs and counts", "[parse]") {
    const CompletionOutcome out =
        parse_completion(EndpointKind::Completion, fixture("completion.json"));
    REQUIRE(out.ok());
    const CompletionResult& r = out.result;
    CHECK(r.content == " seeer my being with me being beenhi time its so saidDes may");
    REQUIRE(r.token_ids);
    CHECK(r.token_ids->size() == 16);
    CHECK(r.token_ids->front() == 538);
    CHECK(r.token_ids->back() == 491);
    REQUIRE(r.token_logprobs);
    CHECK(r.token_logprobs->size() == 16);
    CHECK(r.token_logprobs->front() == -4.28374719619751);
    CHECK(r.prompt_tokens == 31);
    CHECK(r.completion_tokens == 16);
    CHECK(r.id_slot == 3);
    CHECK(r.finish_reason == "limit");
    CHECK(r.tokens_per_second == Approx(42.37898680318351));
}

TEST_CASE("a real chat answer yields content and usage and timings", "[parse]") {
    const CompletionOutcome out =
        parse_completion(EndpointKind::Chat, fixture("v1_chat_completions.json"));
    REQUIRE(out.ok());
    const CompletionResult& r = out.result;
    CHECK(r.content == "G has> t par these\\");
    CHECK(r.prompt_tokens == 48);
    CHECK(r.completion_tokens == 8);
    CHECK(r.finish_reason == "length");
    CHECK_FALSE(r.id_slot);
    CHECK_FALSE(r.token_ids);
    CHECK_FALSE(r.token_logprobs);
    CHECK(r.tokens_per_second == Approx(2.2965540206919517));
}

TEST_CASE("prompt tokens count the whole prompt even when the cache served most of it", "[parse]") {
    // v1_completions.json: usage.prompt_tokens 15, but timings.prompt_n 1 (14 came from cache).
    const CompletionOutcome out =
        parse_completion(EndpointKind::Chat, fixture("v1_completions.json"));
    REQUIRE(out.ok());
    CHECK(out.result.content == " the the the, with where e an");
    CHECK(out.result.prompt_tokens == 15);
    CHECK_FALSE(out.result.token_logprobs);  // "logprobs": null
}

TEST_CASE("chat logprobs give chosen-token logprobs and ids", "[parse]") {
    const std::string body = R"({"choices":[{"finish_reason":"stop","index":0,
        "message":{"role":"assistant","content":"ab"},
        "logprobs":{"content":[
          {"id":11,"token":"a","bytes":[97],"logprob":-0.25,"top_logprobs":[]},
          {"id":12,"token":"b","bytes":[98],"logprob":-1.5,"top_logprobs":[]}]}}],
        "usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6}})";
    const CompletionOutcome out = parse_completion(EndpointKind::Chat, body);
    REQUIRE(out.ok());
    CHECK(out.result.token_ids == std::vector<std::int64_t>{11, 12});
    CHECK(out.result.token_logprobs == std::vector<double>{-0.25, -1.5});
    CHECK(out.result.finish_reason == "stop");
}

TEST_CASE("chat reasoning and tool calls are read, without the server's call ids", "[parse]") {
    const std::string body = R"({"choices":[{"finish_reason":"tool_calls","index":0,
        "message":{"role":"assistant","content":null,"reasoning_content":"Look it up.",
          "tool_calls":[{"type":"function","id":"k3FqQ0cRz1",
            "function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}}],
        "usage":{"prompt_tokens":30,"completion_tokens":12,"total_tokens":42}})";
    const CompletionOutcome out = parse_completion(EndpointKind::Chat, body);
    REQUIRE(out.ok());
    const CompletionResult& r = out.result;
    CHECK(r.content.empty());
    CHECK(r.reasoning_content == "Look it up.");
    CHECK(r.finish_reason == "tool_calls");
    CHECK(r.completion_tokens == 12);
    REQUIRE(r.tool_calls.is_array());
    REQUIRE(r.tool_calls.size() == 1);
    const bi::core::Json& call = r.tool_calls.as_array()[0];
    CHECK_FALSE(call.find("id"));  // random per request: never part of what was generated
    CHECK(call.string_or("type", "") == "function");
    CHECK(call.find("function")->string_or("name", "") == "get_weather");
    CHECK(call.find("function")->string_or("arguments", "") == R"({"city":"Paris"})");
}

TEST_CASE("no reasoning and no tool calls read as empty and null", "[parse]") {
    const auto plain = parse_completion(EndpointKind::Chat, fixture("v1_chat_completions.json"));
    REQUIRE(plain.ok());
    CHECK(plain.result.reasoning_content.empty());
    CHECK(plain.result.tool_calls.is_null());
    const auto empty_list = parse_completion(
        EndpointKind::Chat, R"({"choices":[{"message":{"content":"x","tool_calls":[]}}]})");
    REQUIRE(empty_list.ok());
    CHECK(empty_list.result.tool_calls.is_null());
    const auto completion = parse_completion(EndpointKind::Completion, fixture("completion.json"));
    REQUIRE(completion.ok());
    CHECK(completion.result.reasoning_content.empty());
    CHECK(completion.result.tool_calls.is_null());
}

TEST_CASE("missing optional fields are absent and fallbacks apply", "[parse]") {
    const CompletionOutcome chat = parse_completion(EndpointKind::Chat,
                                                    R"({"choices":[{"message":{"content":null}}],
            "timings":{"prompt_n":3,"cache_n":2,"predicted_n":7}})");
    REQUIRE(chat.ok());
    CHECK(chat.result.content.empty());
    CHECK(chat.result.prompt_tokens == 5);
    CHECK(chat.result.completion_tokens == 7);
    const CompletionOutcome plain =
        parse_completion(EndpointKind::Completion, R"({"content":"x"})");
    REQUIRE(plain.ok());
    CHECK_FALSE(plain.result.prompt_tokens);
    CHECK_FALSE(plain.result.token_ids);
    CHECK_FALSE(plain.result.completion_tokens);
}

TEST_CASE("an empty tokens list is no evidence of ids unless nothing was generated", "[parse]") {
    const auto ignored = parse_completion(EndpointKind::Completion,
                                          R"({"content":"abc","tokens":[],"tokens_predicted":3})");
    REQUIRE(ignored.ok());
    CHECK_FALSE(ignored.result.token_ids);
    const auto nothing = parse_completion(EndpointKind::Completion,
                                          R"({"content":"","tokens":[],"tokens_predicted":0})");
    REQUIRE(nothing.ok());
    CHECK(nothing.result.token_ids == std::vector<std::int64_t>{});
}

TEST_CASE("malformed answers are bad_response with a reason", "[parse]") {
    CHECK_THAT(bad_message(EndpointKind::Chat, "not json"), Catch::Contains("invalid JSON"));
    CHECK_THAT(bad_message(EndpointKind::Chat, "[1,2]"), Catch::Contains("expected object"));
    CHECK_THAT(bad_message(EndpointKind::Chat, "{}"), Catch::Contains("choices is missing"));
    CHECK_THAT(bad_message(EndpointKind::Chat, R"({"choices":[]})"), Catch::Contains("empty"));
    CHECK_THAT(bad_message(EndpointKind::Chat, R"({"choices":[{"message":{}}]})"),
               Catch::Contains("content is missing"));
    CHECK_THAT(bad_message(EndpointKind::Chat, R"({"choices":[{"message":{"content":5}}]})"),
               Catch::Contains("expected string"));
    CHECK_THAT(
        bad_message(EndpointKind::Chat,
                    R"({"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":"7"}})"),
        Catch::Contains("usage.prompt_tokens"));
    CHECK_THAT(bad_message(EndpointKind::Chat,
                           R"({"choices":[{"message":{"content":"x","tool_calls":{}}}]})"),
               Catch::Contains("tool_calls is object, expected array"));
    CHECK_THAT(bad_message(EndpointKind::Chat,
                           R"({"choices":[{"message":{"content":"x","tool_calls":[1]}}]})"),
               Catch::Contains("tool_calls holds a non-object"));
    CHECK_THAT(bad_message(EndpointKind::Chat,
                           R"({"choices":[{"message":{"content":"x","reasoning_content":7}}]})"),
               Catch::Contains("reasoning_content is integer"));
    CHECK_THAT(bad_message(EndpointKind::Completion, R"({"tokens":[1]})"),
               Catch::Contains("content is missing"));
    CHECK_THAT(bad_message(EndpointKind::Completion, R"({"content":"x","tokens":[1,"2"]})"),
               Catch::Contains("non-integer"));
    CHECK_THAT(bad_message(EndpointKind::Completion,
                           R"({"content":"x","completion_probabilities":[{"id":1}]})"),
               Catch::Contains("logprob is missing"));
    CHECK_THAT(bad_message(EndpointKind::Completion, R"({"error":{"code":500,"message":"boom"}})"),
               Catch::Contains("boom"));
}

TEST_CASE("prompt token counts whose sum overflows are bad_response", "[parse]") {
    for (const char* timings : {R"("prompt_n":9223372036854775807,"cache_n":1)",
                                R"("prompt_n":-9223372036854775808,"cache_n":-1)"}) {
        CAPTURE(timings);
        CHECK_THAT(bad_message(EndpointKind::Completion,
                               std::string(R"({"content":"x","timings":{)") + timings + "}}"),
                   Catch::Contains("timings.prompt_n + timings.cache_n is beyond"));
    }
}
