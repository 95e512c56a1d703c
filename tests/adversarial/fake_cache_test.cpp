// fake_llama_server.py's prompt caches asked directly: the honest cache serves a request only when
// the surface's switch lets it (llama: "cache_prompt": true; vllm and sglang: unless launched
// with the kind's cache-off flag), states it in the surface's witness, and changes nothing unless
// --fake-cache-changes; a /completion mixed prompt of an answer's text and its first k ids
// continues that answer; --fake-cache-hits still serves repeats whatever the request says.
#include <catch2/catch.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json.hpp"
#include "http/http_session.hpp"
#include "io/json_text.hpp"
#include "stream_fake_server.hpp"

using namespace bi;
using bi::core::Json;

namespace {

constexpr const char* kText = "the river runs under the old stone bridge";
constexpr std::int64_t kWords = 8;
constexpr int kTokens = 8;

// POSTs `body` to `path` and returns the answer's JSON; fails the test on anything but a 200.
Json ask(const testing::StreamFakeServer& fake, const std::string& path, const Json& body) {
    http::HttpSession session(fake.endpoint(), std::chrono::seconds(20));
    const auto outcome = session.post_json(path, io::to_json_text(body));
    INFO(outcome.response.body);
    REQUIRE(outcome.ok());
    return io::parse_json(outcome.response.body, "answer");
}

// A /completion body: `prompt` (a string or a mixed array), n tokens with their ids, and
// "cache_prompt" when `cache` is set (absent otherwise).
Json completion(Json prompt, int n, std::optional<bool> cache = std::nullopt) {
    Json body =
        Json::Object{{"prompt", std::move(prompt)}, {"n_predict", n}, {"return_tokens", true}};
    if (cache) body.set("cache_prompt", *cache);
    return body;
}

Json chat(std::optional<bool> cache = std::nullopt) {
    Json body =
        Json::Object{{"messages", Json::Array{Json::Object{{"role", "user"}, {"content", kText}}}},
                     {"max_tokens", kTokens}};
    if (cache) body.set("cache_prompt", *cache);
    return body;
}

std::int64_t timing(const Json& answer, const char* key) {
    const Json* timings = answer.find("timings");
    return timings ? timings->int_or(key, -1) : -1;
}

std::int64_t cached_tokens(const Json& answer) {
    return answer.find("usage")->find("prompt_tokens_details")->int_or("cached_tokens", -1);
}

std::string chat_text(const Json& answer) {
    return answer.find("choices")->as_array()[0].find("message")->string_or("content", "");
}

std::vector<std::int64_t> ids(const Json& answer) {
    std::vector<std::int64_t> out;
    for (const auto& id : answer.find("tokens")->as_array()) out.push_back(id.as_int());
    return out;
}

// The text, then the answer's first k ids.
Json cut(const Json& answer, std::size_t k) {
    Json prompt = Json::Array{kText};
    for (std::size_t i = 0; i < k; ++i) prompt.push_back(answer.find("tokens")->as_array()[i]);
    return prompt;
}

// The answer's content from its k-th token on, the space before that token kept.
std::string tail(const Json& answer, std::size_t k) {
    const std::string content = answer.string_or("content", "");
    std::size_t at = 0;
    for (std::size_t i = 0; i < k; ++i) at = content.find(' ', at + 1);
    return content.substr(at);
}

}  // namespace

TEST_CASE("fake cache: llama serves a repeat from its cache only with cache_prompt true",
          "[adversarial][cache]") {
    testing::StreamFakeServer fake({"--fake-tick-ms=1"});
    const auto cold = ask(fake, "/completion", completion(kText, kTokens));
    CHECK(timing(cold, "cache_n") == 0);
    CHECK(timing(cold, "prompt_n") == kWords);
    for (const auto cache : {std::optional<bool>{}, std::optional<bool>{false}}) {
        const auto again = ask(fake, "/completion", completion(kText, kTokens, cache));
        CHECK(timing(again, "cache_n") == 0);
        CHECK(timing(again, "prompt_n") == kWords);
    }
    const auto warm = ask(fake, "/completion", completion(kText, kTokens, true));
    CHECK(timing(warm, "cache_n") == kWords - 1);
    CHECK(timing(warm, "prompt_n") == 1);
    CHECK(warm.int_or("tokens_evaluated", -1) == kWords);
    CHECK(warm.string_or("content", "") == cold.string_or("content", ""));
    CHECK(ids(warm) == ids(cold));
    // The chat route: usage says it too, and the prompt's size stays the whole prompt.
    const auto chat_cold = ask(fake, "/v1/chat/completions", chat(false));
    const auto chat_warm = ask(fake, "/v1/chat/completions", chat(true));
    CHECK(cached_tokens(chat_cold) == 0);
    CHECK(cached_tokens(chat_warm) == kWords - 1);
    CHECK(chat_warm.find("usage")->int_or("prompt_tokens", -1) == kWords);
    CHECK(timing(chat_warm, "cache_n") == kWords - 1);
    CHECK(chat_text(chat_warm) == chat_text(chat_cold));
}

TEST_CASE("fake cache: ik_llama.cpp states a hit as fewer prompt tokens evaluated",
          "[adversarial][cache]") {
    testing::StreamFakeServer fake({"--fake-ik-surface", "--fake-tick-ms=1"});
    ask(fake, "/completion", completion(kText, kTokens, false));
    const auto warm = ask(fake, "/completion", completion(kText, kTokens, true));
    CHECK(warm.find("timings")->find("cache_n") == nullptr);
    CHECK(timing(warm, "prompt_n") == 1);
    CHECK(warm.int_or("tokens_evaluated", -1) == kWords);
}

TEST_CASE("fake cache: vllm and sglang cache unless launched with their switch",
          "[adversarial][cache]") {
    for (const auto& [surface, off] : std::vector<std::pair<std::string, std::string>>{
             {"vllm", "--no-enable-prefix-caching"}, {"sglang", "--disable-radix-cache"}}) {
        INFO(surface);
        {
            testing::StreamFakeServer fake({"--fake-surface=" + surface, "--fake-tick-ms=1"});
            const auto first = ask(fake, "/v1/chat/completions", chat(false));
            CHECK(cached_tokens(first) == 0);
            // Whatever the request says: its cache is the launch's to turn off.
            const auto again = ask(fake, "/v1/chat/completions", chat(false));
            CHECK(cached_tokens(again) == kWords - 1);
            CHECK(again.find("usage")->int_or("prompt_tokens", -1) == kWords);
            CHECK(chat_text(again) == chat_text(first));
        }
        testing::StreamFakeServer fake({"--fake-surface=" + surface, off, "--fake-tick-ms=1"});
        ask(fake, "/v1/chat/completions", chat(true));
        CHECK(cached_tokens(ask(fake, "/v1/chat/completions", chat(true))) == 0);
    }
}

TEST_CASE("fake cache: the surfaces without a switch have no honest cache",
          "[adversarial][cache]") {
    for (const std::string surface : {"generic", "ollama", "tgi"}) {
        INFO(surface);
        testing::StreamFakeServer fake({"--fake-surface=" + surface, "--fake-tick-ms=1"});
        ask(fake, "/v1/chat/completions", chat(true));
        CHECK(cached_tokens(ask(fake, "/v1/chat/completions", chat(true))) == 0);
    }
}

TEST_CASE("fake cache: a cut of an answer continues it, from the cache or cold",
          "[adversarial][cache]") {
    testing::StreamFakeServer fake({"--fake-tick-ms=1"});
    const auto answer = ask(fake, "/completion", completion(kText, kTokens, false));
    REQUIRE(ids(answer).size() == static_cast<std::size_t>(kTokens));
    for (const std::size_t k : {1, 3, 7}) {
        for (const bool cache : {false, true}) {
            INFO("k " << k << ", cache_prompt " << cache);
            const auto rest =
                ask(fake, "/completion", completion(cut(answer, k), kTokens - k, cache));
            const auto expected = ids(answer);
            CHECK(ids(rest) == std::vector<std::int64_t>(expected.begin() + k, expected.end()));
            CHECK(rest.string_or("content", "") == tail(answer, k));
            const auto n_prompt = kWords + static_cast<std::int64_t>(k);
            CHECK(rest.int_or("tokens_evaluated", -1) == n_prompt);
            // The slot holds the text and the whole answer: all of the cut but its last token.
            CHECK(timing(rest, "cache_n") == (cache ? n_prompt - 1 : 0));
        }
    }
    // Ids that are not the answer's: a prompt of its own, with a partial hit.
    const auto other = ask(fake, "/completion", completion(Json::Array{kText, 1, 2}, 4, true));
    CHECK(timing(other, "cache_n") == kWords);
}

TEST_CASE("fake cache: --fake-cache-changes changes only answers served from a cache",
          "[adversarial][cache]") {
    testing::StreamFakeServer fake({"--fake-cache-changes", "--fake-tick-ms=1"});
    const auto cold = ask(fake, "/completion", completion(kText, kTokens, false));
    const auto again = ask(fake, "/completion", completion(kText, kTokens, false));
    CHECK(again.string_or("content", "") == cold.string_or("content", ""));
    const auto warm = ask(fake, "/completion", completion(kText, kTokens, true));
    REQUIRE(timing(warm, "cache_n") == kWords - 1);
    CHECK(warm.string_or("content", "") != cold.string_or("content", ""));
    const auto cold_cut = ask(fake, "/completion", completion(cut(cold, 3), kTokens - 3, false));
    CHECK(cold_cut.string_or("content", "") == tail(cold, 3));
    const auto warm_cut = ask(fake, "/completion", completion(cut(cold, 3), kTokens - 3, true));
    REQUIRE(timing(warm_cut, "cache_n") > 0);
    CHECK(warm_cut.string_or("content", "") != tail(cold, 3));
}

TEST_CASE("fake cache: --fake-cache-hits serves repeats whatever the request says",
          "[adversarial][cache]") {
    testing::StreamFakeServer fake(
        {"--fake-cache-hits", "--fake-cache-changes", "--fake-tick-ms=1"});
    const auto cold = ask(fake, "/completion", completion(kText, kTokens, false));
    CHECK(timing(cold, "cache_n") == 0);
    const auto forced = ask(fake, "/completion", completion(kText, kTokens, false));
    CHECK(timing(forced, "cache_n") == kWords - 1);
    CHECK(forced.string_or("content", "") != cold.string_or("content", ""));
}
