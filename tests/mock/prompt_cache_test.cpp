// The mock's prompt cache and autoregressive continuation: a slot reuses the longest common
// prefix of its last sequence only when a request asks ("cache_prompt": true), and says so in
// every cache field; a prompt that is an earlier prompt plus the first k of its generated ids
// continues as that request did; --cache-changes makes only answers served from the cache other
// answers. Answers that ask for no cache are what they always were, byte for byte.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "io/json_text.hpp"
#include "mock/continuation_memory.hpp"
#include "mock/token_function.hpp"
#include "mock/tokenizer.hpp"
#include "test_client.hpp"

using namespace bi::mock;
using namespace bi::mock::test;
using bi::core::Json;

namespace {

// The answer with the parts that vary from run to run (the clock) taken out.
std::string without_clock(Json body) {
    body.erase("timings");
    return bi::io::to_json_text(body);
}

// What a client compares of two answers: the text, the token ids and every logprob listed.
std::string generation(const Json& body) {
    return bi::io::to_json_text(Json::Object{{"content", *body.find("content")},
                                             {"tokens", *body.find("tokens")},
                                             {"probs", *body.find("completion_probabilities")}});
}

std::int64_t timing(const Json& body, const char* key) {
    return body.find("timings")->int_or(key, -1);
}

std::vector<std::int32_t> prompt_ids(const std::string& text) {
    return ids_of(tokenize_prompt(text));
}

// A /completion body asking for n tokens (n < 0: to the mock's EOS) with their ids and two
// alternatives each.
Json completion(Json prompt, int n, bool cache_prompt) {
    Json body = Json::Object{{"prompt", std::move(prompt)},
                             {"n_probs", 2},
                             {"return_tokens", true},
                             {"temperature", 0},
                             {"cache_prompt", cache_prompt}};
    if (n >= 0) body.set("n_predict", n);
    return body;
}

// The prompt text followed by the first k generated ids of `answer`, as a mixed prompt array.
Json cut(const std::string& text, const Json& answer, std::size_t k) {
    Json prompt = Json::Array{text};
    const auto& tokens = answer.find("tokens")->as_array();
    for (std::size_t i = 0; i < k; ++i) prompt.push_back(tokens[i]);
    return prompt;
}

// The answer's tokens, pieces and logprobs from the k-th on, as generation() shows them.
std::string tail(const Json& answer, std::size_t k) {
    const auto& tokens = answer.find("tokens")->as_array();
    const auto& probs = answer.find("completion_probabilities")->as_array();
    Json kept_tokens = Json::array();
    Json kept_probs = Json::array();
    std::string content;
    for (std::size_t i = k; i < tokens.size(); ++i) {
        kept_tokens.push_back(tokens[i]);
        kept_probs.push_back(probs[i]);
        content += probs[i].string_or("token", "");
    }
    return bi::io::to_json_text(
        Json::Object{{"content", content}, {"tokens", kept_tokens}, {"probs", kept_probs}});
}

std::int64_t metric(const std::string& text, const std::string& name) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("llamacpp:" + name + " ", 0) == 0)
            return std::stoll(line.substr(line.find(' ') + 1));
    return -1;
}

// A prompt the knob with `every` changes (or, with `changed` false, leaves alone).
std::string prompt_chosen(int every, bool changed) {
    for (int i = 0;; ++i) {
        std::string text = "Question " + std::to_string(i) + ": what comes next?";
        if (cache_changes_answer(prompt_key(prompt_ids(text)), every) == changed) return text;
    }
}

// What the mock answered to the first test's request before it had a prompt cache.
const std::string kPinnedAnswer =
    R"({"completion_probabilities":[{"bytes":[32,116,104,101,110],"id":266,"logprob":-0.397)"
    R"(99999999999999,"token":" then","top_logprobs":[{"bytes":[32,116,104,101,110],"id":26)"
    R"(6,"logprob":-0.39799999999999999,"token":" then"},{"bytes":[32,99,111,112,112,101,11)"
    R"(4],"id":323,"logprob":-0.546,"token":" copper"}]},{"bytes":[32,115,104,111,117,108,1)"
    R"(00],"id":293,"logprob":-0.21700000000000004,"token":" should","top_logprobs":[{"byte)"
    R"(s":[32,115,104,111,117,108,100],"id":293,"logprob":-0.21700000000000004,"token":" sh)"
    R"(ould"},{"bytes":[32,102,111,114,101,115,116],"id":320,"logprob":-0.391,"token":" for)"
    R"(est"}]},{"bytes":[32,109,111,114,101],"id":243,"logprob":-0.911,"token":" more","top)"
    R"(_logprobs":[{"bytes":[32,109,111,114,101],"id":243,"logprob":-0.911,"token":" more"})"
    R"(,{"bytes":[32,111,116,104,101,114],"id":258,"logprob":-1.08,"token":" other"}]},{"by)"
    R"(tes":[32,102,114,111,109],"id":221,"logprob":-0.556,"token":" from","top_logprobs":[)"
    R"({"bytes":[32,102,114,111,109],"id":221,"logprob":-0.556,"token":" from"},{"bytes":[3)"
    R"(2,109,97,114,98,108,101],"id":322,"logprob":-0.672,"token":" marble"}]},{"bytes":[32)"
    R"(,108,97,115,116],"id":301,"logprob":-1.836,"token":" last","top_logprobs":[{"bytes":)"
    R"([32,108,97,115,116],"id":301,"logprob":-1.836,"token":" last"},{"bytes":[32,98,121],)"
    R"("id":215,"logprob":-2.028,"token":" by"}]},{"bytes":[32,116,104,101,105,114],"id":23)"
    R"(6,"logprob":-1.79,"token":" their","top_logprobs":[{"bytes":[32,116,104,101,105,114])"
    R"(,"id":236,"logprob":-1.79,"token":" their"},{"bytes":[32,116,104,101,115,101],"id":2)"
    R"(63,"logprob":-1.969,"token":" these"}]}],"content":" then should more from last thei)"
    R"(r","generation_settings":{"chat_format":"Content-only","ignore_eos":false,"max_token)"
    R"(s":6,"min_p":0.05000000074505806,"n_keep":0,"n_predict":6,"n_probs":2,"repeat_last_n)"
    R"(":64,"repeat_penalty":1.0,"samplers":["penalties","dry","top_n_sigma","top_k","typ_p)"
    R"(","top_p","min_p","xtc","temperature"],"seed":42,"stop":[],"stream":false,"temperatu)"
    R"(re":0.0,"top_k":40,"top_p":0.949999988079071,"typical_p":1.0},"has_new_line":false,")"
    R"(id_slot":0,"index":0,"model":"bi-mock.gguf","prompt":"<s>The quick brown fox jumps o)"
    R"(ver the lazy dog.","stop":true,"stop_type":"limit","stopping_word":"","tokens":[266,)"
    R"(293,243,221,301,236],"tokens_cached":17,"tokens_evaluated":11,"tokens_predicted":6,")"
    R"(truncated":false})";

}  // namespace

TEST_CASE("an answer that asks for no cache is the one the mock always gave", "[mock][cache]") {
    MockServer server(fast_config(1));
    Client client(server.start());
    const Json request = Json::Object{{"prompt", "The quick brown fox jumps over the lazy dog."},
                                      {"n_predict", 6},
                                      {"n_probs", 2},
                                      {"return_tokens", true},
                                      {"temperature", 0},
                                      {"seed", 42}};
    const auto reply = client.post("/completion", request);
    REQUIRE(reply.status == 200);
    const Json body = reply.json();
    CHECK(without_clock(body) == kPinnedAnswer);
    const Json& timings = *body.find("timings");
    CHECK(timings.int_or("cache_n", -1) == 0);
    CHECK(timings.int_or("prompt_n", -1) == 11);
    CHECK(timings.int_or("predicted_n", -1) == 6);
}

TEST_CASE("without cache_prompt a repeated prompt is computed again", "[mock][cache]") {
    MockServer server(fast_config(1));
    Client client(server.start());
    const std::string text = "The quick brown fox jumps over the lazy dog.";
    const auto first = client.post("/completion", completion(text, 6, false)).json();
    for (const Json& body : {completion(text, 6, false), [&] {
                                 Json absent = completion(text, 6, false);
                                 absent.erase("cache_prompt");
                                 return absent;
                             }()}) {
        const auto again = client.post("/completion", body).json();
        CHECK(without_clock(again) == without_clock(first));
        CHECK(timing(again, "cache_n") == 0);
        CHECK(timing(again, "prompt_n") == 11);
    }
    const auto slots = client.get("/slots").json();
    CHECK(slots.as_array()[0].int_or("n_prompt_tokens_cache", -1) == 0);
    CHECK(metric(client.get("/metrics").body, "prompt_tokens_cached_total") == 0);
    CHECK(metric(client.get("/metrics").body, "prompt_tokens_total") == 33);
}

TEST_CASE("with cache_prompt a repeat reuses all but the last prompt token", "[mock][cache]") {
    MockServer server(fast_config(1));
    Client client(server.start());
    const std::string text = "The quick brown fox jumps over the lazy dog.";
    const auto cold = client.post("/completion", completion(text, 6, false)).json();
    const auto warm = client.post("/completion", completion(text, 6, true)).json();
    CHECK(timing(warm, "cache_n") == 10);  // 11 prompt tokens, the last evaluated again
    CHECK(timing(warm, "prompt_n") == 1);
    CHECK(warm.int_or("tokens_evaluated", -1) == 11);
    CHECK(generation(warm) == generation(cold));  // an honest cache changes nothing

    // The OpenAI endpoints state it in usage too; the prompt's size stays the whole prompt.
    const auto oai =
        client
            .post("/v1/completions",
                  Json(Json::Object{{"prompt", text}, {"max_tokens", 6}, {"cache_prompt", true}}))
            .json();
    CHECK(oai.find("usage")->find("prompt_tokens_details")->int_or("cached_tokens", -1) == 10);
    CHECK(oai.find("usage")->int_or("prompt_tokens", -1) == 11);
    CHECK(timing(oai, "cache_n") == 10);
    CHECK(timing(oai, "prompt_n") == 1);

    const auto slot = client.get("/slots").json().as_array()[0];
    CHECK(slot.int_or("n_prompt_tokens_cache", -1) == 10);
    CHECK(slot.int_or("n_prompt_tokens", -1) == 11);
    const auto metrics = client.get("/metrics").body;
    CHECK(metric(metrics, "prompt_tokens_cached_total") == 20);
    CHECK(metric(metrics, "prompt_tokens_total") == 11 + 1 + 1);
}

TEST_CASE("with cache_prompt only the common prefix is reused", "[mock][cache]") {
    MockServer server(fast_config(1));
    Client client(server.start());
    const std::string first = "The quick brown fox jumps over the lazy dog.";
    const std::string second = "The quick brown fox sleeps under the old tree.";
    client.post("/completion", completion(first, 4, false));
    const auto a = prompt_ids(first);
    const auto b = prompt_ids(second);
    const auto common = std::mismatch(a.begin(), a.end(), b.begin()).first - a.begin();
    REQUIRE(common == 5);  // BOS, "The", " quick", " brown", " fox"
    const auto partial = client.post("/completion", completion(second, 4, true)).json();
    CHECK(timing(partial, "cache_n") == 5);
    CHECK(timing(partial, "prompt_n") == static_cast<std::int64_t>(b.size()) - 5);
    // Against a cold answer to the same prompt: the same tokens.
    const auto cold = client.post("/completion", completion(second, 4, false)).json();
    CHECK(generation(cold) == generation(partial));
    CHECK(timing(cold, "cache_n") == 0);
}

TEST_CASE("each slot caches its own last sequence", "[mock][cache]") {
    MockServer server(fast_config(2));
    Client client(server.start());
    const std::string text = "The quick brown fox jumps over the lazy dog.";
    Json on_slot_0 = completion(text, 4, false);
    on_slot_0.set("id_slot", 0);
    client.post("/completion", on_slot_0);
    Json on_slot_1 = completion(text, 4, true);
    on_slot_1.set("id_slot", 1);
    CHECK(timing(client.post("/completion", on_slot_1).json(), "cache_n") == 0);
    Json again_0 = completion(text, 4, true);
    again_0.set("id_slot", 0);
    CHECK(timing(client.post("/completion", again_0).json(), "cache_n") == 10);
}

TEST_CASE("a mixed prompt array is the text's tokens, then the ids", "[mock][cache]") {
    MockServer server(fast_config(1));
    Client client(server.start());
    const std::string text = "Once upon a time";
    const auto n_text = static_cast<std::int64_t>(prompt_ids(text).size());
    auto reply =
        client.post("/completion",
                    Json(Json::Object{{"prompt", Json::Array{text, 300, 301}}, {"n_predict", 2}}));
    REQUIRE(reply.status == 200);
    CHECK(reply.json().int_or("tokens_evaluated", -1) == n_text + 2);
    CHECK(reply.json().string_or("prompt", "") == "<s>" + text);
    // Ids first: no BOS before the text, as llama-server's tokenize_mixed.
    reply = client.post("/completion",
                        Json(Json::Object{{"prompt", Json::Array{300, text}}, {"n_predict", 2}}));
    REQUIRE(reply.status == 200);
    CHECK(reply.json().int_or("tokens_evaluated", -1) == n_text);
    CHECK(reply.json().string_or("prompt", "") == text);
    // One string, and ids alone, as before.
    for (const Json& prompt : {Json(Json::Array{text}), Json(Json::Array{1, 300, 301})}) {
        reply =
            client.post("/completion", Json(Json::Object{{"prompt", prompt}, {"n_predict", 2}}));
        CHECK(reply.status == 200);
    }
    // Ids out of range, and several texts, stay refused.
    for (const Json& prompt : {Json(Json::Array{text, 32000}), Json(Json::Array{text, -1}),
                               Json(Json::Array{text, "more text"})}) {
        reply = client.post("/completion", Json(Json::Object{{"prompt", prompt}}));
        CHECK(reply.status == 400);
    }
}

TEST_CASE("a prompt cut after k generated ids continues as the answer did", "[mock][cache]") {
    MockServer server(fast_config(1));
    Client client(server.start());
    const std::string text = "The capital of France is";
    constexpr int kTokens = 12;
    const auto answer = client.post("/completion", completion(text, kTokens, false)).json();
    REQUIRE(answer.find("tokens")->size() == static_cast<std::size_t>(kTokens));
    for (const std::size_t k : {1, 2, 5, 11}) {
        for (const bool cache : {false, true}) {
            INFO("k " << k << ", cache_prompt " << cache);
            const auto rest =
                client.post("/completion", completion(cut(text, answer, k), kTokens - k, cache))
                    .json();
            CHECK(generation(rest) == tail(answer, k));
            CHECK(rest.int_or("tokens_predicted", -1) == kTokens - static_cast<int>(k));
            CHECK(rest.string_or("stop_type", "") == "limit");
            const auto n_prompt = static_cast<std::int64_t>(prompt_ids(text).size() + k);
            CHECK(rest.int_or("tokens_evaluated", -1) == n_prompt);
            // The slot holds the prompt and the whole answer: the cut is all cached but its last.
            CHECK(timing(rest, "cache_n") == (cache ? n_prompt - 1 : 0));
            CHECK(timing(rest, "prompt_n") == (cache ? 1 : n_prompt));
        }
    }
    // The same cut as token ids alone, after other prompts were asked.
    client.post("/completion", completion("Something else entirely", 3, false));
    Json ids = Json::array();
    for (const auto id : prompt_ids(text)) ids.push_back(id);
    for (std::size_t i = 0; i < 4; ++i) ids.push_back(answer.find("tokens")->as_array()[i]);
    const auto rest = client.post("/completion", completion(ids, kTokens - 4, false)).json();
    CHECK(generation(rest) == tail(answer, 4));
}

TEST_CASE("a cut of an answer that ended at the mock's EOS ends there too", "[mock][cache]") {
    MockServer server(fast_config(1));
    Client client(server.start());
    const std::string text = "Tell me a story about a lighthouse.";
    const auto answer = client.post("/completion", completion(text, -1, false)).json();
    REQUIRE(answer.string_or("stop_type", "") == "eos");
    const auto n = answer.find("tokens")->size();
    REQUIRE(n >= 8);
    for (const std::size_t k : {std::size_t{3}, n - 1, n}) {
        INFO("k " << k);
        const auto rest =
            client.post("/completion", completion(cut(text, answer, k), -1, true)).json();
        CHECK(generation(rest) == tail(answer, k));
        CHECK(rest.string_or("stop_type", "") == "eos");
    }
}

TEST_CASE("the cache-changes knob changes only answers served from the cache", "[mock][cache]") {
    auto config = fast_config(1);
    config.cache_changes = true;
    MockServer server(config);
    Client client(server.start());
    MockServer honest(fast_config(1));
    Client reference(honest.start());
    const std::string changed = prompt_chosen(2, true);
    const std::string kept = prompt_chosen(2, false);
    constexpr int kTokens = 8;
    for (const auto& text : {changed, kept}) {
        INFO(text);
        // Cold, the knob changes nothing: the honest server's answer, byte for byte.
        const auto cold = client.post("/completion", completion(text, kTokens, false)).json();
        const auto expected =
            reference.post("/completion", completion(text, kTokens, false)).json();
        CHECK(without_clock(cold) == without_clock(expected));
        CHECK(timing(cold, "cache_n") == 0);

        const auto warm = client.post("/completion", completion(text, kTokens, true)).json();
        REQUIRE(timing(warm, "cache_n") > 0);
        const auto cut_warm =
            client.post("/completion", completion(cut(text, cold, 3), kTokens - 3, true)).json();
        REQUIRE(timing(cut_warm, "cache_n") > 0);
        if (text == kept) {
            CHECK(generation(warm) == generation(cold));
            CHECK(generation(cut_warm) == tail(cold, 3));
            continue;
        }
        // Another text from the first token on, where the cold answer preferred its token by
        // more than a near-tie's margin (0.05): a decisive change.
        CHECK(warm.string_or("content", "") != cold.string_or("content", ""));
        const auto& warm_tokens = warm.find("tokens")->as_array();
        const auto& cold_tokens = cold.find("tokens")->as_array();
        CHECK(warm_tokens[0].as_int() != cold_tokens[0].as_int());
        const auto& top = cold.find("completion_probabilities")->as_array()[0];
        const auto& alternatives = top.find("top_logprobs")->as_array();
        CHECK(alternatives[0].find("logprob")->as_double() -
                  alternatives[1].find("logprob")->as_double() >
              0.05);
        // The cut continues otherwise from its first generated token.
        CHECK(cut_warm.find("tokens")->as_array()[0].as_int() != cold_tokens[3].as_int());
        CHECK(generation(cut_warm) != tail(cold, 3));
        // Asked cold again, the prompt is answered as before.
        const auto again = client.post("/completion", completion(text, kTokens, false)).json();
        CHECK(generation(again) == generation(cold));
    }
}

TEST_CASE("cache-changes every 1 changes every answer served from the cache", "[mock][cache]") {
    auto config = fast_config(1);
    config.cache_changes = true;
    config.cache_changes_every = 1;
    MockServer server(config);
    Client client(server.start());
    for (const auto& text : {prompt_chosen(2, true), prompt_chosen(2, false)}) {
        const auto cold = client.post("/completion", completion(text, 6, false)).json();
        const auto warm = client.post("/completion", completion(text, 6, true)).json();
        CHECK(warm.string_or("content", "") != cold.string_or("content", ""));
    }
}

TEST_CASE("a streamed answer states its cache in every chunk's timings", "[mock][cache]") {
    MockServer server(fast_config(1));
    Client client(server.start());
    const std::string text = "The quick brown fox jumps over the lazy dog.";
    client.post("/completion", completion(text, 4, false));
    Json body = completion(text, 4, true);
    body.set("stream", true);
    body.set("timings_per_token", true);
    const auto reply = client.post("/completion", body);
    REQUIRE(reply.status == 200);
    std::istringstream in(reply.body);
    int events = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("data: ", 0) != 0) continue;
        const auto event = bi::io::parse_json(line.substr(6), "event");
        ++events;
        CHECK(timing(event, "cache_n") == 10);
        CHECK(timing(event, "prompt_n") == 1);
    }
    CHECK(events == 5);  // four tokens, then the totals
}

TEST_CASE("the continuation memory is bounded, the oldest forgotten first", "[mock][cache]") {
    ContinuationMemory memory(4);
    SequenceHash prompt;
    prompt.add(std::vector<std::int32_t>{1, 10, 11});
    memory.remember(prompt, {20, 21, 22}, Continuation{7, 0, nullptr});
    CHECK(memory.size() == 3);
    SequenceHash cut = prompt;
    cut.add(20);
    REQUIRE(memory.find(cut));
    CHECK(memory.find(cut)->token_key == 7);
    CHECK(memory.find(cut)->offset == 1);
    CHECK_FALSE(memory.find(prompt));  // the prompt itself continues nothing

    SequenceHash other;
    other.add(std::vector<std::int32_t>{1, 12});
    memory.remember(other, {30, 31}, Continuation{8, 0, nullptr});
    CHECK(memory.size() == 4);
    CHECK_FALSE(memory.find(cut));  // the oldest went
    cut.add(21);
    CHECK(memory.find(cut));
    other.add(30);
    other.add(31);
    REQUIRE(memory.find(other));
    CHECK(memory.find(other)->offset == 2);
}
