// The mock's prompt cache and autoregressive continuation: a slot reuses the longest common
// prefix of its last sequence only when a request asks ("cache_prompt": true), and says so in
// every cache field; a prompt that is an earlier prompt plus the first k of its generated ids
// continues as that request did; --cache-changes makes only answers served from the cache other
// answers. Answers that ask for no cache are what they always were, byte for byte.
#include <catch2/catch.hpp>

#include <string>

#include "io/json_text.hpp"
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
