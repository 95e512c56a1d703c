// Every endpoint over real HTTP, shape-checked against the captured llama-server responses.
#include <catch2/catch.hpp>

#include <sstream>

#include "mock/tokenizer.hpp"
#include "test_client.hpp"

using namespace bi::mock;
using namespace bi::mock::test;
using bi::core::Json;

namespace {

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += item + " ";
    return out;
}

using Skip = std::vector<std::string>;

#define CHECK_SHAPE(reference, actual, skip)                               \
    do {                                                                   \
        const auto mismatches = shape_mismatches(reference, actual, skip); \
        INFO("mismatched fields: " << joined(mismatches));                 \
        CHECK(mismatches.empty());                                         \
    } while (false)

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(prefix, 0) == 0) out.push_back(line);
    return out;
}

}  // namespace

TEST_CASE("health, models and props", "[mock][http]") {
    auto config = fast_config(3);
    config.n_ctx = 1024;
    config.model_path = "models/absent.gguf";
    MockServer server(config);
    Client client(server.start());

    auto reply = client.get("/health");
    CHECK(reply.status == 200);
    CHECK(reply.json() == Json(Json::Object{{"status", "ok"}}));

    const auto models = client.get("/v1/models").json();
    REQUIRE(models.find("data"));
    CHECK(models.find("data")->as_array().at(0).string_or("id", "") == "models/absent.gguf");

    reply = client.get("/props");
    CHECK(reply.status == 200);
    const auto props = reply.json();
    CHECK_SHAPE(read_fixture("props.json"), props, Skip{"params"});
    CHECK(props.bool_or("bi_mock", false));
    CHECK(props.int_or("total_slots", 0) == 3);
    CHECK(props.find("default_generation_settings")->int_or("n_ctx", 0) == 1024);
    CHECK(props.string_or("model_path", "") == "models/absent.gguf");
    CHECK(props.string_or("build_info", "").rfind("bi-mock-", 0) == 0);
    CHECK(props.bool_or("endpoint_metrics", false));
}

TEST_CASE("tokenize counts the mock's tokens", "[mock][http]") {
    MockServer server(fast_config());
    Client client(server.start());
    auto tokens =
        client.post("/tokenize", Json(Json::Object{{"content", "The quick brown fox"}})).json();
    const auto expected = ids_of(tokenize("The quick brown fox"));
    REQUIRE(tokens.find("tokens")->size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        CHECK(tokens.find("tokens")->as_array()[i].as_int() == expected[i]);

    tokens = client.post("/tokenize", Json(Json::Object{{"content", "hi"}, {"add_special", true}}))
                 .json();
    CHECK(tokens.find("tokens")->size() == 2);
    CHECK(tokens.find("tokens")->as_array()[0].as_int() == 1);

    tokens = client.post("/tokenize", Json(Json::Object{{"content", "hi"}, {"with_pieces", true}}))
                 .json();
    CHECK(tokens.find("tokens")->as_array()[0].string_or("piece", "") == "hi");
}

TEST_CASE("/completion has llama-server's fields, tokens and probabilities", "[mock][http]") {
    MockServer server(fast_config());
    Client client(server.start());
    const Json request = Json::Object{{"prompt", "The quick brown fox jumps over the lazy dog."},
                                      {"n_predict", 16},
                                      {"n_probs", 2},
                                      {"return_tokens", true},
                                      {"temperature", 0},
                                      {"seed", 42},
                                      {"cache_prompt", false}};
    const auto reply = client.post("/completion", request);
    REQUIRE(reply.status == 200);
    const auto body = reply.json();
    CHECK_SHAPE(read_fixture("completion.json"), body, Skip{"generation_settings"});
    CHECK(body.int_or("tokens_predicted", 0) == 16);
    CHECK(body.int_or("tokens_evaluated", 0) == 11);  // BOS + 10 pieces
    CHECK(body.string_or("stop_type", "") == "limit");
    CHECK(body.int_or("id_slot", -1) == 0);

    const auto& tokens = body.find("tokens")->as_array();
    const auto& probs = body.find("completion_probabilities")->as_array();
    REQUIRE(tokens.size() == 16);
    REQUIRE(probs.size() == 16);
    std::string content;
    for (std::size_t i = 0; i < 16; ++i) {
        CHECK(probs[i].int_or("id", -1) == tokens[i].as_int());
        CHECK(probs[i].find("top_logprobs")->size() == 2);
        const auto token = probs[i].string_or("token", "");
        CHECK(probs[i].find("bytes")->size() == token.size());
        content += token;
    }
    CHECK(body.string_or("content", "") == content);

    // Without return_tokens or n_probs: an empty tokens array, no probabilities.
    const auto plain =
        client.post("/completion", Json(Json::Object{{"prompt", "hi"}, {"n_predict", 3}})).json();
    CHECK(plain.find("tokens")->size() == 0);
    CHECK(plain.find("completion_probabilities") == nullptr);
}

TEST_CASE("/v1/completions and /v1/chat/completions have OpenAI fields", "[mock][http]") {
    MockServer server(fast_config());
    Client client(server.start());

    auto reply = client.post("/v1/completions",
                             Json(Json::Object{{"prompt", "Once upon a time"}, {"max_tokens", 8}}));
    REQUIRE(reply.status == 200);
    auto body = reply.json();
    CHECK_SHAPE(read_fixture("v1_completions.json"), body, Skip{});
    CHECK(body.string_or("object", "") == "text_completion");
    CHECK(body.find("usage")->int_or("completion_tokens", 0) == 8);
    CHECK(body.find("id_slot") != nullptr);
    CHECK(body.find("choices")->as_array()[0].string_or("finish_reason", "") == "length");

    const Json messages = Json::Array{Json::Object{{"role", "system"}, {"content", "Be brief."}},
                                      Json::Object{{"role", "user"}, {"content", "Say hello."}}};
    reply = client.post("/v1/chat/completions",
                        Json(Json::Object{{"messages", messages}, {"max_tokens", 8}}));
    REQUIRE(reply.status == 200);
    body = reply.json();
    CHECK_SHAPE(read_fixture("v1_chat_completions.json"), body, Skip{});
    CHECK(body.string_or("object", "") == "chat.completion");
    CHECK(body.find("usage")->int_or("completion_tokens", 0) == 8);
    CHECK(body.find("choices")->as_array()[0].find("logprobs") == nullptr);

    reply = client.post(
        "/v1/chat/completions",
        Json(Json::Object{
            {"messages", messages}, {"n_predict", 5}, {"logprobs", true}, {"top_logprobs", 3}}));
    body = reply.json();
    const auto& choice = body.find("choices")->as_array()[0];
    const auto& entries = choice.find("logprobs")->find("content")->as_array();
    REQUIRE(entries.size() == 5);
    std::string content;
    for (const auto& entry : entries) {
        for (const char* key : {"id", "token", "bytes", "logprob", "top_logprobs"})
            CHECK(entry.find(key) != nullptr);
        CHECK(entry.find("top_logprobs")->size() == 3);
        content += entry.string_or("token", "");
    }
    CHECK(choice.find("message")->string_or("content", "") == content);

    // No limit at all: the mock's EOS ends the answer.
    body = client.post("/v1/chat/completions", Json(Json::Object{{"messages", messages}})).json();
    CHECK(body.find("choices")->as_array()[0].string_or("finish_reason", "") == "stop");
}

TEST_CASE("/slots and /metrics while idle", "[mock][http]") {
    auto config = fast_config(4);
    config.n_ctx = 1024;
    MockServer server(config);
    Client client(server.start());

    const auto slots = client.get("/slots").json();
    const auto idle = read_fixture("slots_idle.json");
    REQUIRE(slots.size() == 4);
    CHECK(slots == idle);  // byte-for-byte what an idle 4-slot llama-server says

    const auto reply = client.get("/metrics");
    REQUIRE(reply.status == 200);
    CHECK(reply.content_type.rfind("text/plain", 0) == 0);
    const auto reference = read_fixture_text("metrics.txt");
    CHECK(lines_starting(reply.body, "# ") == lines_starting(reference, "# "));
    CHECK(reply.body == reference);  // idle: every value is 0
}

TEST_CASE("/metrics and /slots answer 501 when disabled", "[mock][http]") {
    auto config = fast_config();
    config.metrics = false;
    config.slots_endpoint = false;
    MockServer server(config);
    Client client(server.start());
    for (const char* path : {"/metrics", "/slots"}) {
        const auto reply = client.get(path);
        CHECK(reply.status == 501);
        const auto parsed = reply.json();
        const auto* error = parsed.find("error");
        REQUIRE(error);
        CHECK(error->int_or("code", 0) == 501);
        CHECK(error->string_or("type", "") == "not_supported_error");
    }
}

TEST_CASE("a prompt longer than the slot context is refused", "[mock][http]") {
    auto config = fast_config(1);
    config.n_ctx = 8;
    MockServer server(config);
    Client client(server.start());
    const auto reply = client.post(
        "/completion", Json(Json::Object{{"prompt", "one two three four five six seven eight"}}));
    CHECK(reply.status == 400);
    CHECK(reply.json().find("error")->string_or("type", "") == "exceed_context_size_error");
}
