// Determinism modes through bi-run against fake_llama_server.py's vLLM, SGLang and TensorRT-LLM
// surfaces (docs/design.md §5.2.7): the fake honours the kind's switch (its batched divergence
// stops), or claims it and ignores it, or reports it off. --determinism both writes one cert per
// side; a mode the server reports off is no evidence of the mode; a RED with the mode on says so;
// a kind without a mode refuses to be asked for one.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "core/configuration.hpp"
#include "core/text.hpp"
#include "fake_cell.hpp"
#include "io/cert_io.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;

namespace {

struct ModeRun {
    testing::CommandResult result;
    std::optional<io::LoadedCert> off;  // m__ctx512__N4.json
    std::optional<io::LoadedCert> on;   // m__ctx512__N4__det.json
    testing::CommandResult report;      // `bi-run report` of the output directory
    std::string junit;                  // `bi-run report --junit` of it
};

// One N=4 cell through `kind` on the fake's surface of the same name, the fake's `fake` flags and
// bi-run's `options`.
ModeRun run_mode(const std::string& kind, const std::vector<std::string>& fake,
                 const std::vector<std::string>& options) {
    testing::ScratchDir dir;
    std::string model = dir.write("model.gguf", "not really a model");
    if (kind == "vllm" || kind == "sglang" || kind == "trtllm-serve") {
        std::filesystem::create_directories(dir.file("model"));
        dir.write("model/config.json", "{\"architectures\": [\"Fake\"]}\n");
        dir.write("model/weights.bin", "weights");
        model = dir.file("model");
    }
    auto argv = testing::fake_cell_argv(model, dir.file("o"));
    argv.insert(argv.end(), {"--server-kind", kind});
    const std::string surface = kind == "trtllm-serve" ? "trtllm" : kind;
    if (kind != "llama-server") argv.push_back("--server-flag=--fake-surface=" + surface);
    for (const auto& token : fake) argv.push_back("--server-flag=" + token);
    argv.insert(argv.end(), options.begin(), options.end());
    ModeRun run;
    run.result = testing::run_command(argv);
    for (const auto& [name, slot] :
         {std::pair<const char*, std::optional<io::LoadedCert>*>{"o/m__ctx512__N4.json", &run.off},
          {"o/m__ctx512__N4__det.json", &run.on}})
        if (std::filesystem::exists(dir.file(name))) *slot = io::read_cert(dir.file(name));
    if (std::filesystem::exists(dir.file("o"))) {
        run.report = testing::run_command({BI_RUN_PATH, "report", dir.file("o")});
        testing::run_command({BI_RUN_PATH, "report", "--junit", dir.file("r.xml"), dir.file("o")});
        run.junit = testing::read_text(dir.file("r.xml"));
    }
    return run;
}

// The speedup as the report writes it: "3.63x".
std::string report_speedup(const io::LoadedCert& cert) {
    const double speedup = cert.cert.throughput.value().speedup().value();
    return core::format_fixed(speedup, speedup < 10.0 ? 2 : 1) + "x";
}

bool says(const io::LoadedCert& cert, const std::string& text) {
    for (const auto& line : cert.cert.verdict.decision_reasons)
        if (line.find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("determinism both: one cert per side, the honoured mode stops the divergence",
          "[adversarial][determinism]") {
    auto run = run_mode("vllm", {"--fake-diverge-at=2", testing::kArrivalTimedTick},
                        {"--determinism", "both"});
    INFO(run.result.out << run.result.err);
    CHECK(run.result.exit_code == 3);
    REQUIRE(run.off);
    REQUIRE(run.on);
    CHECK(run.off->cert.verdict.status == core::Status::Failed);
    CHECK(run.on->cert.verdict.status == core::Status::Green);
    REQUIRE(run.off->cert.run);
    REQUIRE(run.on->cert.run);
    CHECK(run.off->cert.run->determinism == std::string("off"));
    CHECK(run.on->cert.run->determinism == std::string("on"));
    CHECK(core::configuration_id(run.off->cert) != core::configuration_id(run.on->cert));
    // vLLM cannot say whether its variable took: claimed, not confirmed.
    REQUIRE(run.on->cert.gates.determinism);
    CHECK(run.on->cert.gates.determinism->on);
    CHECK_FALSE(run.on->cert.gates.determinism->confirmed());
    CHECK(says(*run.on, "determinism mode on (VLLM_BATCH_INVARIANT=1): claimed, not confirmed"));
    CHECK(says(*run.off, "determinism mode off (VLLM_BATCH_INVARIANT=1 not set)"));
    // Its documented warm-up ran on the side with the mode on.
    CHECK(run.on->cert.run->warmup_requests == 3);
    // The report shows both sides of the cell, each with its speedup, and which had the mode.
    INFO(run.report.out << run.report.err);
    CHECK(run.report.exit_code == 0);
    CHECK_THAT(run.report.out, Catch::Contains("[determinism on]") &&
                                   Catch::Contains("[determinism off]") &&
                                   Catch::Contains("m (determinism mode on): largest N"));
    CHECK_THAT(run.report.out, Catch::Contains("m ctx 512 N 4: mode on: GREEN, ") &&
                                   Catch::Contains("; off: RED, "));
    // JUnit names the two sides apart: the RED side fails, the GREEN one passes.
    CHECK_THAT(run.junit, Catch::Contains("name=\"ctx 512 N 4 [determinism off]\"") &&
                              Catch::Contains("name=\"ctx 512 N 4 [determinism on]\""));
    // The fake is a live server: its GREEN side is the recommendation, the RED side has no N.
    CHECK_THAT(run.report.out,
               Catch::Contains("recommendation: m: --parallel 4 with the determinism mode on (") &&
                   Catch::EndsWith("; mode off: no N qualifies; mode on: GREEN to N 4, " +
                                   report_speedup(*run.on) + "\n"));
}

TEST_CASE("determinism on: SGLang confirms its mode, and a server reporting it off is UNVERIFIED",
          "[adversarial][determinism]") {
    auto run = run_mode("sglang", {"--fake-diverge-at=2", testing::kArrivalTimedTick},
                        {"--determinism", "on"});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.on);
    CHECK_FALSE(run.off);
    CHECK(run.on->cert.verdict.status == core::Status::Green);
    REQUIRE(run.on->cert.gates.determinism);
    CHECK(run.on->cert.gates.determinism->confirmed());
    CHECK(says(*run.on,
               "confirmed: the 1-slot server reports enable_deterministic_inference = "
               "true; the N-slot server reports enable_deterministic_inference = true"));
    run = run_mode("sglang", {"--fake-diverge-at=2", "--fake-mode-reports-off"},
                   {"--determinism", "on"});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.on);
    CHECK(run.result.exit_code == 3);
    CHECK(run.on->cert.verdict.status == core::Status::GreenUnverified);
    REQUIRE(run.on->cert.verdict.rule);
    CHECK(run.on->cert.verdict.rule->name == "determinism");
    CHECK(says(*run.on,
               "determinism mode not in effect: asked on "
               "(--enable-deterministic-inference), but the 1-slot server reports "
               "enable_deterministic_inference = false"));
}

TEST_CASE("determinism on: a mode claimed and ignored is RED, and the reasons say the mode was on",
          "[adversarial][determinism]") {
    for (const char* kind : {"vllm", "trtllm-serve"}) {
        auto run =
            run_mode(kind, {"--fake-diverge-at=2", "--fake-mode-ignored"}, {"--determinism", "on"});
        INFO(kind << ": " << run.result.out << run.result.err);
        REQUIRE(run.on);
        CHECK(run.on->cert.verdict.status == core::Status::Failed);
        CHECK(says(*run.on, "the server's determinism mode was on"));
        CHECK(says(*run.on, "and batching still changed answers"));
    }
}

TEST_CASE("determinism on is refused for a kind without a mode, with its reason",
          "[adversarial][determinism]") {
    auto run = run_mode("llama-server", {}, {"--determinism", "on"});
    CHECK(run.result.exit_code == 2);
    CHECK_THAT(run.result.err,
               Catch::Contains("--determinism on: server kind 'llama-server' has no determinism "
                               "mode (llama-server has no determinism mode"));
    CHECK_FALSE(run.on);
    CHECK_FALSE(run.off);
    run = run_mode("llama-server", {}, {"--determinism", "sometimes"});
    CHECK(run.result.exit_code == 2);
    CHECK_THAT(run.result.err,
               Catch::Contains("--determinism must be off, on or both, not 'sometimes'"));
}
