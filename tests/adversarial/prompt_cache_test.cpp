// The cold cache is proven, not assumed: a work-alike whose prompt cache cannot be turned off
// (fake_llama_server.py --fake-cache-hits) answers A' and every C pass from its cache, and says
// so in the field its kind declares as the cache witness. bi-run run-live must not count those
// answers as agreement, whichever kind's witness states the hit, and must not blame the server
// (RED) for answers the cache changed.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "fake_cell.hpp"
#include "io/cert_io.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;

namespace {

struct CacheRun {
    testing::CommandResult result;
    core::Json cert;  // null when no cert was written
};

// One N=4 cell against the fake: `kind` (empty: llama-server's own) on the fake's `surface`
// (with a model of that kind's form), the fake's flags, and bi-run's own `options`.
CacheRun run_cell(const std::string& kind, const std::string& surface,
                  const std::vector<std::string>& fake,
                  const std::vector<std::string>& options = {}) {
    testing::ScratchDir dir;
    std::string model = "served-model";  // a name in the server's store
    if (surface == "llama") {
        model = dir.write("model.gguf", "not really a model");
    } else if (surface == "tgi" || surface == "vllm" || surface == "sglang") {  // a directory
        std::filesystem::create_directories(dir.file("model"));
        dir.write("model/config.json", "{\"architectures\": [\"Fake\"]}\n");
        dir.write("model/weights.bin", "weights");
        model = dir.file("model");
    }
    auto argv = testing::fake_cell_argv(model, dir.file("o"));
    if (!kind.empty()) argv.insert(argv.end(), {"--server-kind", kind});
    if (surface != "llama") argv.push_back("--server-flag=--fake-surface=" + surface);
    for (const auto& token : fake) argv.push_back("--server-flag=" + token);
    argv.insert(argv.end(), options.begin(), options.end());
    CacheRun run;
    run.result = testing::run_command(argv);
    try {
        auto loaded = io::read_cert(dir.file("o/m__ctx512__N4.json"));
        if (loaded.digest_intact && loaded.shape_problem.empty()) run.cert = loaded.document;
    } catch (const std::exception&) {
        // no cert: run.cert stays null
    }
    return run;
}

std::string text(const core::Json& object, const char* key) {
    const core::Json* v = object.find(key);
    return v && v->is_string() ? v->as_string() : "";
}

bool says(const core::Json& cert, const std::string& words) {
    if (const core::Json* reasons = cert.find("decision_reasons"))
        for (const auto& line : reasons->as_array())
            if (line.as_string().find(words) != std::string::npos) return true;
    return false;
}

// The arms whose answers the cert lists as cache hits.
std::vector<std::string> hit_arms(const core::Json& cert) {
    std::vector<std::string> arms;
    const core::Json* gate = cert.find("cold_cache");
    if (!gate || !gate->find("hits")) return arms;
    for (const auto& hit : gate->find("hits")->as_array()) {
        const std::string arm = text(hit, "arm");
        if (arms.empty() || arms.back() != arm) arms.push_back(arm);
    }
    return arms;
}

}  // namespace

TEST_CASE("an honest server's answers state a cold cache, and the cert says it was proven",
          "[adversarial][cache]") {
    const auto run = run_cell("", "llama", {});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.is_object());
    CHECK(text(run.cert, "status") == "green");
    const core::Json* gate = run.cert.find("cold_cache");
    REQUIRE(gate);
    CHECK(gate->find("ok")->as_bool());
    CHECK(gate->find("hits")->size() == 0);
    // 8 items in A, A', B and each of the 2 passes: every answer stated its cache.
    CHECK(gate->find("witnessed")->as_int() == 40);
    CHECK(gate->find("unwitnessed")->as_int() == 0);
    CHECK(text(*gate, "witness") == "timings.cache_n, usage.prompt_tokens_details.cached_tokens");
    CHECK(says(run.cert, "cold cache: 40 scored answer(s) computed their whole prompt"));
}

TEST_CASE("a kind whose server caches by default turns it off at launch, and the cert proves it",
          "[adversarial][cache]") {
    // The fake's vllm and sglang surfaces cache every repeat unless launched with the kind's
    // switch; A' and each C pass repeat prompts, so a switch that did not arrive would show.
    for (const char* kind : {"vllm", "sglang"}) {
        const auto run = run_cell(kind, kind, {});
        INFO(kind << ": " << run.result.out << run.result.err);
        REQUIRE(run.cert.is_object());
        const core::Json* gate = run.cert.find("cold_cache");
        REQUIRE(gate);
        CHECK(gate->find("ok")->as_bool());
        CHECK(gate->find("hits")->size() == 0);
        CHECK(gate->find("witnessed")->as_int() == 40);
    }
}

TEST_CASE("answers served from a prompt cache are no agreement, whichever witness states it",
          "[adversarial][cache]") {
    struct Case {
        const char* kind;
        const char* surface;
        std::vector<std::string> fake;
        const char* witness;
    };
    const std::vector<Case> cases{
        {"", "llama", {}, "timings.cache_n"},
        // ik_llama.cpp sends no cache_n: fewer prompt tokens evaluated than the prompt has.
        {"ik_llama.cpp", "llama", {"--fake-ik-surface"}, "prompt tokens - timings.prompt_n"},
        // The OpenAI dialect has no switch for the cache; its usage says what it held.
        {"openai-generic", "generic", {}, "usage.prompt_tokens_details.cached_tokens"},
        // Ollama counts only the prompt tokens it evaluated.
        {"ollama", "ollama", {}, "prompt tokens - usage.prompt_tokens"},
    };
    for (const auto& c : cases) {
        auto fake = c.fake;
        fake.emplace_back("--fake-cache-hits");
        const auto run = run_cell(c.kind, c.surface, fake);
        INFO((*c.kind ? c.kind : "llama-server") << ": " << run.result.out << run.result.err);
        REQUIRE(run.cert.is_object());
        CHECK(run.result.exit_code == 3);
        CHECK(text(run.cert, "status") == "green_unverified");
        CHECK(text(*run.cert.find("rule"), "name") == "cold_cache");
        CHECK(says(run.cert, "prompt cache hit: "));
        CHECK(says(run.cert, c.witness));
        // A asked each prompt first; A' asked them again of the same server, and every C pass
        // asked what B had asked of the N-slot server.
        CHECK(hit_arms(run.cert) == std::vector<std::string>{"A'", "C1", "C2"});
        CHECK_FALSE(run.cert.find("cold_cache")->find("ok")->as_bool());
    }
}

TEST_CASE("answers a prompt cache changed are not blamed on the server or on batching",
          "[adversarial][cache]") {
    // Served from its cache, every repeated prompt gets another text: without the witness, A vs
    // A' would be a RED serial_nondeterminism and every C pass would diverge.
    const auto run = run_cell("", "llama", {"--fake-cache-hits", "--fake-cache-changes"});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.is_object());
    CHECK(text(run.cert, "status") == "green_unverified");
    CHECK(text(*run.cert.find("rule"), "name") == "cold_cache");
    CHECK(text(run.cert, "divergence_class").empty());
    CHECK(says(run.cert, "so they prove nothing about batching"));
}

TEST_CASE("a kind that states no cache witness: a cold cache is assumed, and the cert says so",
          "[adversarial][cache]") {
    const auto run = run_cell("tgi", "tgi", {testing::kArrivalTimedTick});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.is_object());
    const core::Json* gate = run.cert.find("cold_cache");
    REQUIRE(gate);
    CHECK(gate->find("witness")->is_null());
    CHECK(gate->find("witnessed")->as_int() == 0);
    CHECK(says(run.cert, "states no cache witness, so a cold cache is assumed, not proven"));
}

// The cache arm (--cache-arm) against the fake's honest caches: the llama-server kind turns its
// cache on per request and resumes A's answers from it; the vLLM kind's cache arm server is
// launched without --no-enable-prefix-caching. A fake whose cached answers are other texts is
// CHANGED (exit 3) beside a GREEN; a kind with no witness cannot say what the cache served.
TEST_CASE("cache arm: the honest fake's warm answers are A's, a changing cache is CHANGED",
          "[adversarial][cache]") {
    const std::vector<std::string> arm{"--cache-arm", "--endpoint", "completion"};
    auto run = run_cell("", "llama", {}, arm);
    INFO(run.result.out << run.result.err);
    CHECK(run.result.exit_code == 0);
    REQUIRE(run.cert.find("cache_check"));
    const core::Json& same = *run.cert.find("cache_check");
    CHECK(text(same, "status") == "same");
    CHECK(same.find("n_served")->as_int() == same.find("n_ids")->as_int());
    CHECK(same.find("n_cuts")->as_int() > 0);
    run = run_cell("", "llama", {"--fake-cache-changes"}, arm);
    INFO(run.result.out << run.result.err);
    CHECK(run.result.exit_code == 3);
    CHECK(text(run.cert, "status") == "green");
    REQUIRE(run.cert.find("cache_check"));
    const core::Json& changed = *run.cert.find("cache_check");
    CHECK(text(changed, "status") == "changed");
    CHECK(changed.find("changed_ids")->size() > 0);
}

TEST_CASE("cache arm: a kind whose cache is a launch setting is served on the cache arm's server",
          "[adversarial][cache]") {
    auto run = run_cell("vllm", "vllm", {testing::kArrivalTimedTick}, {"--cache-arm"});
    INFO(run.result.out << run.result.err);
    CHECK(run.result.exit_code == 0);
    REQUIRE(run.cert.find("cache_check"));
    const core::Json& check = *run.cert.find("cache_check");
    CHECK(text(check, "status") == "same");
    CHECK(check.find("n_served")->as_int() == check.find("n_ids")->as_int());
    CHECK(check.find("n_cuts")->as_int() == 0);
    // The cold arms' servers kept the flag: not one of their answers was served from the cache.
    CHECK(run.cert.find("cold_cache")->find("hits")->size() == 0);
}

TEST_CASE("cache arm: a kind with no cache witness is not comparable, and says why",
          "[adversarial][cache]") {
    auto run = run_cell("tgi", "tgi", {}, {"--cache-arm"});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.find("cache_check"));
    const core::Json& check = *run.cert.find("cache_check");
    CHECK(text(check, "status") == "not_comparable");
    CHECK_THAT(check.find("reasons")->as_array().front().as_string(),
               Catch::Contains("states no cache witness"));
}
