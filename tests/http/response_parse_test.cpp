#include <catch2/catch.hpp>

#include "core/forensics.hpp"
#include "http/completion_response.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"

using namespace bi::http;

namespace {

std::string fixture(const std::string& name) {
    return bi::io::read_file(std::string(BI_FIXTURES_DIR) + "/" + name);
}

std::string bad_message(EndpointKind kind, const std::string& body) {
    const CompletionOutcome out = parse_completion(kind, body);
    REQUIRE_FALSE(out.ok());
    CHECK(out.failure->mode == bi::core::FailureMode::BadResponse);
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

TEST_CASE("the drafted tokens are read from the kind's draft fields, the first present",
          "[parse]") {
    const std::vector<std::string> fields{"timings.draft_n", "usage.draft_tokens"};
    const auto drafted =
        parse_completion(EndpointKind::Chat,
                         R"({"choices":[{"message":{"content":"x"}}],"usage":{"draft_tokens":3},
            "timings":{"draft_n":24,"draft_n_accepted":20}})",
                         "id_slot", {}, fields);
    REQUIRE(drafted.ok());
    CHECK(drafted.result.drafted == 24);
    // An answer that states none drafted nothing; a kind with no fields reads none.
    const auto none =
        parse_completion(EndpointKind::Completion, R"({"content":"x","timings":{"predicted_n":1}})",
                         "id_slot", {}, fields);
    REQUIRE(none.ok());
    CHECK_FALSE(none.result.drafted);
    CHECK_FALSE(
        parse_completion(EndpointKind::Completion, R"({"content":"x","timings":{"draft_n":5}})")
            .result.drafted);
    // A count that is not one is a bad answer, naming the field.
    const auto bad =
        parse_completion(EndpointKind::Completion,
                         R"({"content":"x","timings":{"draft_n":"many"}})", "id_slot", {}, fields);
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.failure->message,
               Catch::Contains("timings.draft_n is string, expected a count of drafted tokens"));
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

TEST_CASE("chat logprobs keep token texts and the best two alternatives", "[parse]") {
    const std::string body = R"({"choices":[{"finish_reason":"stop","index":0,
        "message":{"role":"assistant","content":"ab"},
        "logprobs":{"content":[
          {"token":"a","bytes":[97],"logprob":-0.25,"top_logprobs":[
            {"token":"c","logprob":-3.0},{"token":"a","logprob":-0.25},{"token":"d","logprob":-2.0}]},
          {"token":"b","bytes":[98],"logprob":-1.5,"top_logprobs":[]}]}}]})";
    const CompletionOutcome out = parse_completion(EndpointKind::Chat, body);
    REQUIRE(out.ok());
    const CompletionResult& r = out.result;
    CHECK_FALSE(r.token_ids);  // the OpenAI shape has no ids
    CHECK(r.token_texts == std::vector<std::string>{"a", "b"});
    REQUIRE(r.top_alternatives);
    REQUIRE(r.top_alternatives->size() == 2);
    const auto& first = r.top_alternatives->front();
    REQUIRE(first.size() == bi::core::kKeptAlternatives);
    CHECK(first[0].text == "a");  // sorted by logprob, the rest dropped
    CHECK(first[1].text == "d");
    CHECK_FALSE(first[0].id);
    CHECK(r.top_alternatives->back().empty());
    CHECK(bad_message(EndpointKind::Chat,
                      R"({"choices":[{"message":{"content":"a"},"logprobs":{"content":[
                          {"token":"a","logprob":-1,"top_logprobs":[{"token":"a"}]}]}}]})") ==
          "choices[0].logprobs.content[].top_logprobs.logprob is missing");
}

TEST_CASE("forensics from real-shaped chat responses: first divergent position and margin",
          "[parse][forensics]") {
    const std::string serial = fixture("v1_chat_completions_logprobs.json");
    const auto a = parse_completion(EndpointKind::Chat, serial);
    REQUIRE(a.ok());
    REQUIRE(a.result.token_texts);
    CHECK(a.result.token_texts->at(3) == " being");
    REQUIRE(a.result.top_alternatives);
    CHECK(a.result.top_alternatives->at(3).at(1).text == " up");

    // The batched answer took A's runner-up at a position: parse both, compare as trials.
    const auto trial_of = [](const CompletionResult& r) {
        bi::core::TrialRecord t;
        t.content = r.content;
        t.token_ids = r.token_ids;
        t.token_logprobs = r.token_logprobs;
        t.token_texts = r.token_texts;
        t.top_alternatives = r.top_alternatives;
        return t;
    };
    const auto batched = [&](std::size_t at, bool ids) {
        auto doc = bi::io::parse_json(serial, "fixture");
        auto& choice = doc["choices"].as_array()[0];
        auto& entries = choice["logprobs"]["content"].as_array();
        auto& entry = entries[at];
        const bi::core::Json runner_up = entry.find("top_logprobs")->as_array()[1];
        entry.set("id", *runner_up.find("id"));
        entry.set("token", *runner_up.find("token"));
        entry.set("logprob", -4.1);
        std::string content;
        for (auto& e : entries) {
            if (!ids) e.erase("id");
            content += e.find("token")->as_string();
        }
        choice["message"].set("content", content);
        return bi::io::to_json_text(doc);
    };

    auto a_trial = trial_of(a.result);
    auto c = parse_completion(EndpointKind::Chat, batched(3, true));
    REQUIRE(c.ok());
    auto f = bi::core::divergence_forensics(a_trial, trial_of(c.result));
    REQUIRE(f);
    CHECK(f->at.basis == bi::core::DivergenceBasis::TokenId);
    CHECK(f->at.index == 3);
    CHECK(f->at.common_prefix == 3);
    CHECK(*f->a_logprob == -2.9339358806610107);
    CHECK(*f->c_logprob == -4.1);
    CHECK(*f->a_margin == Approx(-2.9339358806610107 + 3.8960719108581543));
    CHECK(f->kind == bi::core::DivergenceKind::Decisive);
    CHECK(*f->max_prefix_logprob_delta == 0.0);

    // Without ids (an OpenAI-only server) the token texts place it; position 4's margin is small.
    a_trial.token_ids.reset();
    c = parse_completion(EndpointKind::Chat, batched(4, false));
    REQUIRE(c.ok());
    CHECK_FALSE(c.result.token_ids);
    f = bi::core::divergence_forensics(a_trial, trial_of(c.result));
    REQUIRE(f);
    CHECK(f->at.basis == bi::core::DivergenceBasis::TokenText);
    CHECK(f->at.index == 4);
    CHECK(*f->a_margin == Approx(-3.9210727214813232 + 3.9520812034606934));
    CHECK(f->kind == bi::core::DivergenceKind::NearTie);
}
