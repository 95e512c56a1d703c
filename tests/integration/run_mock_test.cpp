// run-mock end to end: the real bi-run binary against the in-process mock, one outcome per knob.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "built_paths.hpp"
#include "core/cert.hpp"
#include "core/cert_consistency.hpp"
#include "io/cert_io.hpp"
#include "io/cert_schema.hpp"
#include "io/files.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::run_command;

namespace {

struct MockRun {
    testing::CommandResult result;
    core::Json cert;  // null when no cert was written
    std::string cert_path;
};

MockRun run_mock(const testing::ScratchDir& dir, std::vector<std::string> extra, int parallel = 4) {
    std::vector<std::string> argv{
        BI_RUN_PATH,      "run-mock",    "--out-dir", dir.path(),   "--workset",
        BI_SMALL_WORKSET, "--n-predict", "8",         "--parallel", std::to_string(parallel),
        "--ctx",          "512",         "--tick-ms", "5"};
    // Planned passes choose their own number; every other run has two.
    if (std::find(extra.begin(), extra.end(), "--target-rate") == extra.end())
        argv.insert(argv.end(), {"--passes", "2"});
    argv.insert(argv.end(), extra.begin(), extra.end());
    MockRun run;
    run.result = run_command(argv);
    run.cert_path = dir.file(core::cert_file_name("bi-mock", 512, parallel));
    if (std::filesystem::exists(run.cert_path)) {
        auto loaded = io::read_cert(run.cert_path);
        REQUIRE(loaded.digest_intact);
        REQUIRE(loaded.shape_problem.empty());
        // Every cert a run writes must agree with itself, whatever its verdict.
        const auto disagreements = core::cert_disagreements(loaded.cert);
        INFO((disagreements.empty() ? "" : disagreements.front()));
        CHECK(disagreements.empty());
        run.cert = loaded.document;
    }
    return run;
}

std::string str(const core::Json& cert, const char* key) {
    const core::Json* v = cert.find(key);
    return v && v->is_string() ? v->as_string() : "";
}

}  // namespace

TEST_CASE("run-mock: an honest server is green, source mock, not promotable", "[integration]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {});
    INFO(run.result.err);
    CHECK(run.result.exit_code == 0);
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green");
    CHECK(str(run.cert, "source") == "mock");
    CHECK(run.cert.find("overlap_ok")->as_bool());
    CHECK(run.cert.find("n_passes")->as_int() == 2);
    CHECK_FALSE(io::check_promotable(run.cert, true).promotable);
    CHECK_THAT(run.result.out, Catch::Contains("green") && Catch::Contains("not promotable"));
    // verify-cert agrees: a mock cert is never promotable.
    CHECK(run_command({BI_RUN_PATH, "verify-cert", run.cert_path}).exit_code == 3);
}

TEST_CASE("run-mock: score divergence is RED, co_batching", "[integration]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {"--divergence", "score"});
    CHECK(run.result.exit_code == 3);
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "failed");
    CHECK(str(run.cert, "divergence_class") == "co_batching");
    CHECK(run.cert.find("arm_b")->find("ab_passed")->as_bool());
    CHECK(run.cert.find("mismatch")->size() > 0);
}

TEST_CASE("run-mock: token divergence is AMBER token_only", "[integration]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {"--divergence", "token"});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green_with_caveat");
    CHECK(str(run.cert, "anomaly") == "token_only");
    CHECK(run.cert.find("token_divergence_ids")->size() > 0);
}

TEST_CASE("run-mock: logprob divergence with logprobs on is AMBER logit_drift", "[integration]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {"--divergence", "logprob", "--logprobs", "2"});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green_with_caveat");
    CHECK(str(run.cert, "anomaly") == "logit_drift");
}

TEST_CASE("run-mock: logprob divergence is invisible without logprobs", "[integration]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {"--divergence", "logprob"});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green");
}

TEST_CASE("run-mock: empty completions miss the floor -> green_unverified", "[integration]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {"--empty"});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green_unverified");
    CHECK_FALSE(run.cert.find("completion_floor")->find("ok")->as_bool());
}

TEST_CASE("run-mock: parallel 1 is refused, since no cell can be measured there", "[integration]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {}, 1);
    CHECK(run.result.exit_code == 2);
    CHECK_THAT(run.result.err, Catch::Contains("--parallel 1: no cell can be measured at N = 1"));
    CHECK_FALSE(run.cert.is_object());
}

TEST_CASE("run-mock: contamination is RED and names the contaminated ids", "[integration]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {"--divergence", "contamination"});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "failed");
    const auto& mismatch = run.cert.find("mismatch")->as_array();
    REQUIRE_FALSE(mismatch.empty());
    CHECK_THAT(mismatch[0].as_string(), Catch::StartsWith("bi-mock|512|"));
    const auto& rows = run.cert.find("divergence_report")
                           ->find("AC")
                           ->find("per_pass")
                           ->as_array()[0]
                           .find("rows")
                           ->as_array();
    REQUIRE_FALSE(rows.empty());
    CHECK(rows[0].find("field")->as_string() == "extracted_answer");
}

TEST_CASE("run-mock: contamination is labelled contamination_suspected with the neighbour",
          "[integration][forensics]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {"--divergence", "contamination", "--logprobs", "2"});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "failed");
    const core::Json& ac = *run.cert.find("divergence_report")->find("AC");
    const core::Json* forensics = ac.find("forensics");
    REQUIRE(forensics);
    std::size_t suspected = 0;
    for (const auto& [id, entry] : forensics->as_object()) {
        const core::Json* contamination = entry.find("contamination");
        if (!contamination) continue;
        ++suspected;
        const std::string neighbour = contamination->find("neighbour")->as_string();
        CHECK_THAT(neighbour, Catch::StartsWith("bi-mock|512|"));
        CHECK(neighbour != id);
        CHECK(contamination->find("ngram")->as_string().size() > 0);
        CHECK(entry.find("basis")->as_string() == "token_id");
    }
    CHECK(suspected > 0);
    const auto& reasons = run.cert.find("decision_reasons")->as_array();
    CHECK(std::any_of(reasons.begin(), reasons.end(), [](const core::Json& line) {
        return line.as_string().find("contamination_suspected (privacy-relevant") !=
               std::string::npos;
    }));
}

TEST_CASE("run-mock: a server that is not decoding greedily is UNVERIFIED",
          "[integration][forensics]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {"--divergence", "not-greedy", "--logprobs", "1"});
    REQUIRE(run.cert.is_object());
    CHECK(run.result.exit_code == 3);
    CHECK(str(run.cert, "status") == "green_unverified");
    const core::Json* check = run.cert.find("greedy_check");
    REQUIRE(check);
    CHECK_FALSE(check->find("ok")->as_bool());
    CHECK(check->find("first_violation")->find("arm")->as_string() == "A");
    CHECK(run.cert.find("divergence_report")->find("AC")->find("forensics") == nullptr);
    // Without top logprobs nothing can show it: the same server passes.
    testing::ScratchDir plain;
    CHECK(str(run_mock(plain, {"--divergence", "not-greedy"}).cert, "status") == "green");
}

TEST_CASE("run-mock: an honest mock with --logprobs stays green with no forensics",
          "[integration][forensics]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {"--logprobs", "3", "--endpoint", "completion"});
    REQUIRE(run.cert.is_object());
    INFO(run.result.out << run.result.err);  // the decision reasons, should it not be green
    CHECK(str(run.cert, "status") == "green");
    CHECK(run.cert.find("greedy_check")->find("ok")->as_bool());
    const core::Json& ac = *run.cert.find("divergence_report")->find("AC");
    CHECK(ac.find("forensics") == nullptr);
    CHECK(ac.find("logprob_deltas") == nullptr);
    CHECK(ac.find("first_divergent_token")->size() == 0);
}

TEST_CASE("run-mock: --stop-on-red stops after the first divergent pass", "[integration]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {"--divergence", "score", "--stop-on-red", "--passes", "3"});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "failed");
    CHECK(run.cert.find("stopped_early")->as_bool());
    CHECK(run.cert.find("n_passes")->as_int() == 1);
}

TEST_CASE("run-mock: an honest mock reaches --target-rate and says so", "[integration][plan]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {"--target-rate", "0.05"});
    INFO(run.result.err);
    CHECK(run.result.exit_code == 0);
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green");
    const core::Json& plan = *run.cert.find("plan");
    CHECK(plan.find("trials_needed")->as_int() == 59);
    CHECK(plan.find("reached")->as_bool());
    CHECK(plan.find("ended")->as_string() == "reached");
    CHECK(plan.find("trials_counted")->as_int() >= 59);
    // It stopped as soon as the target was met: one pass fewer would not have met it.
    const auto passes = run.cert.find("n_passes")->as_int();
    CHECK(plan.find("passes_used")->as_int() == passes);
    CHECK(passes < 64);
    CHECK_FALSE(run.cert.find("stopped_early")->as_bool());
    const core::Json& per_trial = *run.cert.find("sensitivity")->find("per_trial");
    CHECK(per_trial.find("n")->as_int() == plan.find("trials_counted")->as_int());
    CHECK(per_trial.find("clopper_pearson_upper")->as_double() <= 0.05);
    CHECK(per_trial.find("n")->as_int() - 8 < 59);  // a pass adds at most one trial per item
    const core::Json& length = *run.cert.find("promotion_scope")->find("length");
    CHECK(length.find("n_predict")->as_int() == 8);
    CHECK(length.find("generated_max")->as_int() <= 8);
    CHECK_THAT(run.result.out, Catch::Contains("target reached") &&
                                   Catch::Contains("per prompt: 0 of 8 prompts diverged"));
}

TEST_CASE("run-mock: --max-passes before the target is GREEN that says it fell short",
          "[integration][plan]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {"--target-rate", "0.01", "--max-passes", "3"});
    CHECK(run.result.exit_code == 0);
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green");
    const core::Json& plan = *run.cert.find("plan");
    CHECK_FALSE(plan.find("reached")->as_bool());
    CHECK(plan.find("ended")->as_string() == "max_passes");
    CHECK(plan.find("passes_used")->as_int() == 3);
    CHECK(run.cert.find("n_passes")->as_int() == 3);
    // The bound actually achieved, above the target.
    const core::Json& per_trial = *run.cert.find("sensitivity")->find("per_trial");
    CHECK(per_trial.find("clopper_pearson_upper")->as_double() > 0.01);
    CHECK_THAT(run.result.out, Catch::Contains("target NOT reached (--max-passes 3)"));
}

TEST_CASE("run-mock: a 2% flip rate ends RED within the cap of a 1% target",
          "[integration][plan]") {
    for (const char* seed : {"1", "2", "3", "4"}) {
        INFO("seed " << seed);
        testing::ScratchDir dir;
        auto run = run_mock(dir, {"--target-rate", "0.01", "--divergence", "stochastic",
                                  "--divergence-p", "0.02", "--seed", seed, "--quiet"});
        CHECK(run.result.exit_code == 3);
        REQUIRE(run.cert.is_object());
        CHECK(str(run.cert, "status") == "failed");
        CHECK(run.cert.find("stopped_early")->as_bool());
        const core::Json& plan = *run.cert.find("plan");
        CHECK(plan.find("ended")->as_string() == "divergence");
        CHECK_FALSE(plan.find("reached")->as_bool());
        CHECK(run.cert.find("n_passes")->as_int() == plan.find("passes_used")->as_int());
        CHECK(plan.find("passes_used")->as_int() < 64);
        // A RED states the observed rate and its interval, never an upper bound.
        const core::Json& s = *run.cert.find("sensitivity");
        CHECK(s.find("rule_of_three_upper")->is_null());
        CHECK(s.find("per_trial")->find("clopper_pearson_upper") == nullptr);
        CHECK(s.find("per_trial")->find("observed_rate")->as_double() > 0.0);
        CHECK(s.find("per_trial")->find("interval_lower")->as_double() > 0.0);
        CHECK(static_cast<std::int64_t>(s.find("per_pass")->size()) ==
              plan.find("passes_used")->as_int());
    }
}

TEST_CASE("run-mock: --target-rate flags are checked before anything runs", "[integration][plan]") {
    testing::ScratchDir dir;
    const std::vector<std::pair<std::vector<std::string>, std::string>> refused{
        {{"--target-rate", "0.01", "--passes", "4"}, "leave out --passes"},
        {{"--target-rate", "1.5"}, "--target-rate must be between 0 and 1"},
        {{"--target-rate", "0"}, "--target-rate must be between 0 and 1"},
        {{"--target-rate", "0.01", "--confidence", "1"}, "--confidence must be between 0 and 1"},
        {{"--target-rate", "0.01", "--max-passes", "0"}, "--max-passes must be at least 1"},
        {{"--max-passes", "10"}, "give --target-rate too"},
    };
    for (const auto& [flags, message] : refused) {
        std::vector<std::string> argv{BI_RUN_PATH, "run-mock", "--out-dir", dir.file("out")};
        argv.insert(argv.end(), flags.begin(), flags.end());
        const auto r = run_command(argv);
        INFO(r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(message));
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
    CHECK_FALSE(std::filesystem::exists(dir.file("out")));
}

TEST_CASE("run-mock: --json prints one summary line", "[integration]") {
    testing::ScratchDir dir;
    auto run = run_mock(dir, {"--json", "--quiet"});
    CHECK(run.result.exit_code == 0);
    CHECK_THAT(run.result.out, Catch::StartsWith("{\"anomaly\":null,\"cert\":"));
    CHECK(run.result.err.empty());
}

TEST_CASE("run-mock: a crash mid-run ends without a cert, exit 1", "[integration]") {
    testing::ScratchDir dir;
    const std::string existing = dir.file(core::cert_file_name("bi-mock", 512, 4));
    io::write_file_atomically(existing, "previous cert\n");
    auto r =
        run_command({BI_RUN_PATH, "run-mock", "--out-dir", dir.path(), "--workset",
                     BI_SMALL_WORKSET, "--n-predict", "8", "--ctx", "512", "--crash-after", "5"});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("died"));
    CHECK(io::read_file(existing) == "previous cert\n");  // untouched
}

TEST_CASE("run-mock: bad flags are refused before anything runs", "[integration]") {
    testing::ScratchDir dir;
    auto r =
        run_command({BI_RUN_PATH, "run-mock", "--out-dir", dir.path(), "--divergence", "bogus"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("bogus"));
    r = run_command({BI_RUN_PATH, "run-mock", "--out-dir", dir.path(), "--passes", "0"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--passes must be at least 1"));
    r = run_command({BI_RUN_PATH, "run-live"});  // run-mock alone writes into a temporary dir
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--out-dir is required"));
    r = run_command(
        {BI_RUN_PATH, "run-mock", "--out-dir", dir.path(), "--workset", dir.file("no.json")});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("no.json"));
    r = run_command({BI_RUN_PATH, "run-mock", "--out-dir", dir.path(), "--kv-label", "bogus"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--kv-label bogus: not a llama.cpp cache type"));
    const std::vector<std::pair<std::vector<std::string>, std::string>> out_of_range{
        {{"--ctx", "3000000000"}, "--ctx 3000000000: at most 2147483647"},
        {{"--ctx", "1073741824", "--parallel", "4"}, "= 4294967296 tokens"},
        {{"--parallel", "100000"}, "--parallel 100000: at most 4096"},
        {{"--req-timeout", "1e300"}, "--req-timeout: expected a number of seconds"},
        {{"--arm-deadline", "-1"}, "--arm-deadline must not be negative"},
    };
    for (const auto& [flags, message] : out_of_range) {
        std::vector<std::string> argv{BI_RUN_PATH, "run-mock", "--out-dir", dir.path()};
        argv.insert(argv.end(), flags.begin(), flags.end());
        r = run_command(argv);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(message));
    }
    for (const char* alias : {"../../x", ".hidden", "a b", "/abs"}) {
        r = run_command({BI_RUN_PATH, "run-mock", "--out-dir", dir.path(), "--model-alias", alias});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("not a plain model name"));
    }
    CHECK(std::filesystem::is_empty(dir.path()));
    // A refused run creates no --out-dir either.
    r = run_command({BI_RUN_PATH, "run-mock", "--out-dir", dir.file("new/certs"), "--passes", "0"});
    CHECK(r.exit_code == 2);
    CHECK_FALSE(std::filesystem::exists(dir.file("new")));
    const std::string file = dir.write("plain-file", "x");
    r = run_command({BI_RUN_PATH, "run-mock", "--out-dir", file + "/certs"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("is not a directory"));
}
