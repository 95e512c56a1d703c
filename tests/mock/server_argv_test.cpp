// bi-mock-server's command line: llama-server's flags, ignored flags with and without values,
// the mock's knobs, and one-line errors.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "mock/server_argv.hpp"

using namespace bi::mock;

namespace {

ServerCommandLine parse(const std::vector<std::string>& args) {
    return parse_llama_argv(args);
}

std::string error_of(const std::vector<std::string>& args) {
    try {
        parse_llama_argv(args);
    } catch (const bi::Error& e) {
        CHECK(e.category() == bi::ErrorCategory::Usage);
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("llama-server's defaults", "[mock][argv]") {
    const auto line = parse({});
    CHECK(line.config.port == 8080);
    CHECK(line.config.slots == 4);
    CHECK(line.config.n_ctx == 4096);
    CHECK_FALSE(line.config.metrics);
    CHECK(line.config.slots_endpoint);
    CHECK(line.config.divergence == Divergence::None);
    CHECK(parse({"-c", "1000"}).config.n_ctx == 1000);  // four slots sharing one cache
}

TEST_CASE("a typical run-live argv", "[mock][argv]") {
    const auto line = parse({"-m",
                             "/models/none.gguf",
                             "--host",
                             "127.0.0.1",
                             "--port",
                             "0",
                             "-c",
                             "8192",
                             "-np",
                             "4",
                             "--metrics",
                             "-t",
                             "2",
                             "-ngl",
                             "99",
                             "-fa",
                             "on",
                             "--no-mmap",
                             "--cont-batching",
                             "-ctk",
                             "q8_0",
                             "--seed",
                             "-1",
                             "-a",
                             "tiny"});
    const auto& config = line.config;
    CHECK(config.model_path == "/models/none.gguf");
    CHECK(config.model_alias == "tiny");
    CHECK(config.port == 0);
    CHECK(config.slots == 4);
    CHECK(config.n_ctx == 2048);
    CHECK(config.metrics);
    CHECK(config.threads == 2);
    CHECK(config.seed == 0);
    CHECK(line.ignored == std::vector<std::string>{"-ngl 99", "-fa on", "--no-mmap",
                                                   "--cont-batching", "-ctk q8_0"});
    CHECK_NOTHROW(validate(config));
}

TEST_CASE("ignored flags never swallow the next flag", "[mock][argv]") {
    auto line = parse({"-fa", "--metrics", "--no-warmup", "--port", "0"});
    CHECK(line.config.metrics);
    CHECK(line.config.port == 0);
    line = parse({"--some-future-flag", "value", "--port", "7"});
    CHECK(line.config.port == 7);
    CHECK(line.ignored == std::vector<std::string>{"--some-future-flag value"});
    line = parse({"-ngl", "-1", "--future=x", "--n-cpu-moe", "-3", "--parallel", "2"});
    CHECK(line.config.slots == 2);
    CHECK(line.ignored == std::vector<std::string>{"-ngl -1", "--future x", "--n-cpu-moe -3"});
    line = parse({"--no-slots", "--reasoning-format", "-", "--slots"});
    CHECK(line.config.slots_endpoint);  // "-" was the value of a known value flag
}

TEST_CASE("the mock's knobs, in both spellings", "[mock][argv]") {
    auto config =
        parse({"--divergence=score", "--divergence-p=0.25", "--crash-after=3", "--hang", "--empty",
               "--loading-seconds=1.5", "--tick-ms=0", "--seed=9", "--fast-solo-after=8"})
            .config;
    CHECK(config.divergence == Divergence::Score);
    CHECK(config.divergence_p == 0.25);
    CHECK(config.crash_after == 3);
    CHECK(config.hang);
    CHECK(config.empty);
    CHECK(config.loading_seconds == 1.5);
    CHECK(config.tick_ms == 0.0);
    CHECK(config.seed == 9);
    CHECK(config.fast_solo_after_ticks == 8);
    CHECK(parse({}).config.fast_solo_after_ticks == -1);  // every step paced unless asked
    CHECK(parse({"--divergence", "contamination"}).config.divergence == Divergence::Contamination);
    CHECK(parse({"--divergence", "token"}).config.divergence == Divergence::Token);
    CHECK(parse({"--divergence=logprob"}).config.divergence == Divergence::Logprob);
    CHECK(parse({"--divergence=stochastic"}).config.divergence == Divergence::Stochastic);
    CHECK(parse({"--help"}).help);
    CHECK(parse({"--version"}).version);
    CHECK_FALSE(parse({}).config.cache_changes);
    CHECK(parse({}).config.cache_changes_every == 2);
    config = parse({"--cache-changes", "--cache-changes-every=5"}).config;
    CHECK(config.cache_changes);
    CHECK(config.cache_changes_every == 5);
    CHECK(parse({"--cache-changes-every", "1"}).config.cache_changes_every == 1);
}

TEST_CASE("bad values are one-line usage errors naming the flag", "[mock][argv]") {
    CHECK_THAT(error_of({"--port", "eighty"}), Catch::Contains("--port"));
    CHECK_THAT(error_of({"--port", "70000"}), Catch::Contains("--port"));
    CHECK_THAT(error_of({"--port"}), Catch::Contains("--port needs a value"));
    CHECK_THAT(error_of({"--divergence=bogus"}), Catch::Contains("bogus"));
    CHECK_THAT(error_of({"-np", "0"}), Catch::Contains("-np"));
    CHECK_THAT(error_of({"--tick-ms=fast"}), Catch::Contains("--tick-ms"));
    CHECK_THAT(error_of({"--fast-solo-after=-1"}), Catch::Contains("--fast-solo-after"));
    CHECK_THAT(error_of({"--cache-changes-every=0"}), Catch::Contains("--cache-changes-every"));
    CHECK_THAT(error_of({"stray"}), Catch::Contains("stray"));
    CHECK_THAT(error_of({"-c", "2", "-np", "4"}), Catch::Contains("no context"));
}

TEST_CASE("hosts other than loopback are refused", "[mock][argv]") {
    auto config = parse({"--host", "0.0.0.0"}).config;
    CHECK_THROWS_WITH(validate(config), Catch::Contains("127.0.0.1 only"));
    config = parse({"--host", "localhost"}).config;
    CHECK_NOTHROW(validate(config));
}

TEST_CASE("llama-server's batch and micro-batch set the prompt tokens a step evaluates",
          "[mock][argv]") {
    // The smaller of -b and -ub, as llama-server computes a step.
    CHECK(parse({}).config.prompt_tokens_per_step == 512);  // llama-server's -ub
    CHECK(parse({"-b", "64", "-ub", "64"}).config.prompt_tokens_per_step == 64);
    CHECK(parse({"-ub", "1024"}).config.prompt_tokens_per_step == 1024);
    CHECK(parse({"--batch-size", "100", "--ubatch-size", "400"}).config.prompt_tokens_per_step ==
          100);
    CHECK(parse({"--ubatch-size=32"}).config.prompt_tokens_per_step == 32);
    CHECK(parse({"-b", "64", "-ub", "64"}).ignored.empty());
    CHECK(error_of({"-ub", "0"}) == "bi-mock-server: -ub: 0 is outside 1..16777216");
    CHECK(error_of({"-b", "x"}) == "bi-mock-server: -b: expected an integer, got 'x'");
}
