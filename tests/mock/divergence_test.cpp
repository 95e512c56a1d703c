// Each divergence knob over HTTP: serial output stays put, co-batched output changes exactly the
// way the knob promises.
#include <catch2/catch.hpp>

#include "mock/server_argv.hpp"
#include "test_client.hpp"

using namespace bi::mock;
using namespace bi::mock::test;
using bi::core::Json;

namespace {

Json request_for(const std::string& prompt) {
    return Json::Object{{"prompt", prompt},
                        {"n_predict", 12},
                        {"n_probs", 1},
                        {"return_tokens", true},
                        {"temperature", 0}};
}

// What a verdict compares: text, ids and logprobs (not timings or the slot id).
Json invariant(const Json& body) {
    return Json::Object{{"content", *body.find("content")},
                        {"tokens", *body.find("tokens")},
                        {"probs", *body.find("completion_probabilities")}};
}

struct Comparison {
    Json serial;
    Json batched;
};

// The first prompt alone, then co-batched with the second.
Comparison compare(Divergence mode, const std::string& first, const std::string& second,
                   double p = 0.5) {
    auto config = fast_config(2);
    config.divergence = mode;
    config.divergence_p = p;
    MockServer server(config);
    server.start();
    Client client(server.port());
    const auto serial = invariant(client.post("/completion", request_for(first)).json());
    CHECK(invariant(client.post("/completion", request_for(first)).json()) == serial);
    const auto replies =
        post_cobatched(server, "/completion", {request_for(first), request_for(second)});
    return Comparison{serial, invariant(replies[0].json())};
}

std::string text(const Json& body) {
    return body.string_or("content", "");
}

std::string stripped(std::string value) {
    const auto begin = value.find_first_not_of(" \t\r\n");
    const auto end = value.find_last_not_of(" \t\r\n");
    return begin == std::string::npos ? "" : value.substr(begin, end - begin + 1);
}

std::vector<double> logprobs(const Json& body) {
    std::vector<double> out;
    for (const auto& entry : body.find("probs")->as_array())
        out.push_back(entry.find("logprob")->as_double());
    return out;
}

}  // namespace

TEST_CASE("divergence none: co-batched equals serial", "[mock][divergence]") {
    const auto result = compare(Divergence::None, "Name a fruit.", "Name a tree.");
    CHECK(result.batched == result.serial);
}

TEST_CASE("divergence score: co-batching changes the text", "[mock][divergence]") {
    const auto result = compare(Divergence::Score, "Name a fruit.", "Name a tree.");
    CHECK(text(result.batched) != text(result.serial));
    CHECK(stripped(text(result.batched)) != stripped(text(result.serial)));
}

TEST_CASE("divergence token: same stripped text, other content and ids", "[mock][divergence]") {
    const auto result = compare(Divergence::Token, "Name a fruit.", "Name a tree.");
    CHECK(text(result.batched) != text(result.serial));
    CHECK(stripped(text(result.batched)) == stripped(text(result.serial)));
    CHECK(*result.batched.find("tokens") != *result.serial.find("tokens"));
}

TEST_CASE("divergence logprob: same tokens, moved logprobs", "[mock][divergence]") {
    const auto result = compare(Divergence::Logprob, "Name a fruit.", "Name a tree.");
    CHECK(text(result.batched) == text(result.serial));
    CHECK(*result.batched.find("tokens") == *result.serial.find("tokens"));
    CHECK(logprobs(result.batched) != logprobs(result.serial));
}

TEST_CASE("divergence contamination: a neighbour's word leaks in", "[mock][divergence]") {
    const auto result = compare(Divergence::Contamination, "Name a fruit.", "kumquat zeppelin");
    CHECK(text(result.serial).find("kumquat") == std::string::npos);
    CHECK(text(result.batched).find("kumquat") != std::string::npos);
}

TEST_CASE("divergence contamination: the neighbour's words leak as one run", "[mock][divergence]") {
    // One-letter words leak too, so the run is the neighbour's text word for word.
    const auto result =
        compare(Divergence::Contamination, "Name a fruit.", "What is 6 times 7? Digits only.");
    CHECK(text(result.batched).find(" What is 6 times 7 Digits only") != std::string::npos);
    CHECK(text(result.serial).find("What is 6") == std::string::npos);
}

TEST_CASE("divergence not-greedy: listed above the chosen token, batched or not",
          "[mock][divergence]") {
    const auto result = compare(Divergence::NotGreedy, "Name a fruit.", "Name a tree.");
    CHECK(result.batched == result.serial);  // nothing depends on co-batching
    std::size_t demoted = 0;
    for (const auto& entry : result.serial.find("probs")->as_array()) {
        const Json& top = entry.find("top_logprobs")->as_array().at(0);
        if (top.find("id")->as_int() == entry.find("id")->as_int()) continue;
        ++demoted;
        CHECK(top.find("logprob")->as_double() > entry.find("logprob")->as_double());
    }
    CHECK(demoted > 0);
}

TEST_CASE("divergence stochastic: the coin's probability decides", "[mock][divergence]") {
    auto always = compare(Divergence::Stochastic, "Name a fruit.", "Name a tree.", 1.0);
    CHECK(text(always.batched) != text(always.serial));
    auto never = compare(Divergence::Stochastic, "Name a fruit.", "Name a tree.", 0.0);
    CHECK(never.batched == never.serial);
}

TEST_CASE("chat completions diverge the same way", "[mock][divergence]") {
    auto config = fast_config(2);
    config.divergence = Divergence::Token;
    MockServer server(config);
    server.start();
    auto chat = [](const std::string& question) {
        return Json(Json::Object{
            {"messages", Json::Array{Json::Object{{"role", "user"}, {"content", question}}}},
            {"max_tokens", 6}});
    };
    auto content = [](const Json& body) {
        return body.find("choices")->as_array()[0].find("message")->string_or("content", "");
    };
    Client client(server.port());
    const auto serial =
        content(client.post("/v1/chat/completions", chat("Capital of Peru?")).json());
    const auto replies = post_cobatched(server, "/v1/chat/completions",
                                        {chat("Capital of Peru?"), chat("Capital of Chile?")});
    const auto batched = content(replies[0].json());
    CHECK(batched != serial);
    CHECK(stripped(batched) == stripped(serial));
}

namespace {

// Each prompt's serial answer from a one-slot mock of `variant`, asked twice.
std::vector<Json> serial_answers(BuildVariant variant, const std::vector<std::string>& prompts) {
    auto config = fast_config(1);
    config.build_variant = variant;
    config.build_variant_every = 3;
    MockServer server(config);
    server.start();
    Client client(server.port());
    std::vector<Json> answers;
    for (const auto& prompt : prompts) {
        const auto first = invariant(client.post("/completion", request_for(prompt)).json());
        CHECK(invariant(client.post("/completion", request_for(prompt)).json()) == first);
        answers.push_back(first);
    }
    return answers;
}

std::vector<std::string> numbered_prompts() {
    std::vector<std::string> prompts;
    for (int i = 0; i < 24; ++i) prompts.push_back("Name thing number " + std::to_string(i) + ".");
    return prompts;
}

}  // namespace

TEST_CASE("build variant score: some prompts' serial answers change, reproducibly",
          "[mock][divergence]") {
    const auto prompts = numbered_prompts();
    const auto base = serial_answers(BuildVariant::None, prompts);
    const auto other = serial_answers(BuildVariant::Score, prompts);
    std::size_t changed = 0;
    for (std::size_t i = 0; i < prompts.size(); ++i) {
        CAPTURE(prompts[i]);
        if (other[i] == base[i]) continue;
        ++changed;
        CHECK(stripped(text(other[i])) != stripped(text(base[i])));
    }
    // Every third prompt by its key: some, never all (24 prompts give 3..16 with this salt).
    CHECK(changed > 0);
    CHECK(changed < prompts.size());
}

TEST_CASE("build variant logprob: changed prompts keep their text and tokens",
          "[mock][divergence]") {
    const auto prompts = numbered_prompts();
    const auto base = serial_answers(BuildVariant::None, prompts);
    const auto other = serial_answers(BuildVariant::Logprob, prompts);
    std::size_t changed = 0;
    for (std::size_t i = 0; i < prompts.size(); ++i) {
        CAPTURE(prompts[i]);
        CHECK(text(other[i]) == text(base[i]));
        CHECK(*other[i].find("tokens") == *base[i].find("tokens"));
        if (logprobs(other[i]) != logprobs(base[i])) ++changed;
    }
    CHECK(changed > 0);
    CHECK(changed < prompts.size());
}

TEST_CASE("build variant token: changed prompts keep their stripped text, not their tokens",
          "[mock][divergence]") {
    const auto prompts = numbered_prompts();
    const auto base = serial_answers(BuildVariant::None, prompts);
    const auto other = serial_answers(BuildVariant::Token, prompts);
    std::size_t changed = 0;
    for (std::size_t i = 0; i < prompts.size(); ++i) {
        CAPTURE(prompts[i]);
        CHECK(stripped(text(other[i])) == stripped(text(base[i])));
        if (*other[i].find("tokens") == *base[i].find("tokens")) {
            CHECK(text(other[i]) == text(base[i]));
            continue;
        }
        ++changed;
        CHECK(text(other[i]) != text(base[i]));
        CHECK(logprobs(other[i]) == logprobs(base[i]));
    }
    CHECK(changed > 0);
    CHECK(changed < prompts.size());
}

TEST_CASE("build variant: the knob's names and bounds", "[mock][divergence]") {
    CHECK(parse_build_variant("score") == BuildVariant::Score);
    CHECK(parse_build_variant("token") == BuildVariant::Token);
    CHECK(std::string(build_variant_name(BuildVariant::Logprob)) == "logprob");
    CHECK_THROWS_WITH(
        parse_build_variant("tokens"),
        Catch::Contains("unknown build variant 'tokens' (none, score, token, logprob)"));
    auto config = fast_config(1);
    config.build_variant_every = 0;
    CHECK_THROWS_WITH(validate(config), Catch::Contains("build_variant_every must be in 1..1000"));
    const auto line = parse_llama_argv({"--build-variant=logprob", "--build-variant-every=5"});
    CHECK(line.config.build_variant == BuildVariant::Logprob);
    CHECK(line.config.build_variant_every == 5);
    CHECK_THROWS(parse_llama_argv({"--build-variant-every=0"}));
}
