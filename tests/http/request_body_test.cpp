#include <catch2/catch.hpp>

#include "core/json.hpp"
#include "http/completion_request.hpp"
#include "io/json_text.hpp"

using bi::core::canonical_equal;
using bi::core::Json;
using namespace bi::http;

namespace {

Json body_of(const RequestOptions& options, std::string_view system, std::string_view prompt,
             std::uint64_t seed) {
    return bi::io::parse_json(build_request_body(options, system, prompt, seed), "body");
}

}  // namespace

TEST_CASE("chat bodies are greedy and seeded and uncached and length-limited", "[request]") {
    RequestOptions options;
    options.n_predict = 48;
    const Json body = body_of(options, "be brief", "what is 2+2?", 1234);
    CHECK(request_path(options.endpoint) == "/v1/chat/completions");
    CHECK(canonical_equal(*body.find("temperature"), Json(0)));
    CHECK(canonical_equal(*body.find("top_k"), Json(1)));
    CHECK(canonical_equal(*body.find("seed"), Json(1234)));
    CHECK(canonical_equal(*body.find("cache_prompt"), Json(false)));
    CHECK(canonical_equal(*body.find("stream"), Json(false)));
    CHECK(canonical_equal(*body.find("n_predict"), Json(48)));
    CHECK(canonical_equal(*body.find("max_tokens"), Json(48)));
    CHECK(body.find("logprobs") == nullptr);
    CHECK(body.find("top_logprobs") == nullptr);
    const auto& messages = body.find("messages")->as_array();
    REQUIRE(messages.size() == 2);
    CHECK(messages[0].string_or("role", "") == "system");
    CHECK(messages[0].string_or("content", "") == "be brief");
    CHECK(messages[1].string_or("role", "") == "user");
    CHECK(messages[1].string_or("content", "") == "what is 2+2?");
}

TEST_CASE("chat bodies without a system text send only the user message", "[request]") {
    const Json body = body_of(RequestOptions{}, "", "hi", 1);
    REQUIRE(body.find("messages")->size() == 1);
    CHECK(body.find("messages")->as_array()[0].string_or("role", "") == "user");
}

TEST_CASE("chat bodies ask for logprobs when K > 0", "[request]") {
    RequestOptions options;
    options.logprobs = 5;
    const Json body = body_of(options, "", "hi", 1);
    CHECK(canonical_equal(*body.find("logprobs"), Json(true)));
    CHECK(canonical_equal(*body.find("top_logprobs"), Json(5)));
    CHECK(body.find("n_probs") == nullptr);
}

TEST_CASE("logprobs K = 1 still asks for two top logprobs: the margin needs top-2", "[request]") {
    RequestOptions options;
    options.logprobs = 1;
    CHECK(canonical_equal(*body_of(options, "", "hi", 1).find("top_logprobs"), Json(2)));
    options.endpoint = EndpointKind::Completion;
    CHECK(canonical_equal(*body_of(options, "", "hi", 1).find("n_probs"), Json(2)));
    options.logprobs = 0;
    CHECK(top_logprobs_asked(options) == 0);
}

TEST_CASE("completion bodies return tokens and put the system text first", "[request]") {
    RequestOptions options;
    options.endpoint = EndpointKind::Completion;
    options.n_predict = 16;
    options.logprobs = 2;
    const Json body = body_of(options, "SYSTEM", "PROMPT", 77);
    CHECK(request_path(options.endpoint) == "/completion");
    CHECK(body.string_or("prompt", "") == "SYSTEM\n\nPROMPT");
    CHECK(canonical_equal(*body.find("n_predict"), Json(16)));
    CHECK(canonical_equal(*body.find("temperature"), Json(0)));
    CHECK(canonical_equal(*body.find("top_k"), Json(1)));
    CHECK(canonical_equal(*body.find("seed"), Json(77)));
    CHECK(canonical_equal(*body.find("cache_prompt"), Json(false)));
    CHECK(canonical_equal(*body.find("return_tokens"), Json(true)));
    CHECK(canonical_equal(*body.find("n_probs"), Json(2)));
    CHECK(body.find("messages") == nullptr);
    CHECK(body_of(options, "", "PROMPT", 77).string_or("prompt", "") == "PROMPT");
    options.logprobs = 0;
    CHECK(body_of(options, "", "PROMPT", 77).find("n_probs") == nullptr);
}

TEST_CASE("seeds fit llama-server's 32-bit seed and avoid its random sentinel", "[request]") {
    CHECK(wire_seed(0) == 0u);
    CHECK(wire_seed(4294967294ULL) == 4294967294u);
    CHECK(wire_seed(4294967295ULL) == 0u);  // 0xFFFFFFFF would mean "random"
    CHECK(wire_seed(~0ULL) != 4294967295u);
    RequestOptions options;
    options.fixed_seed = 5;
    CHECK(canonical_equal(*body_of(options, "", "p", 999).find("seed"), Json(5)));
}

TEST_CASE("the same item gives byte-identical bodies", "[request]") {
    RequestOptions options;
    options.logprobs = 3;
    CHECK(build_request_body(options, "s", "p", 9) == build_request_body(options, "s", "p", 9));
}
