// A work-alike whose first answers after start-up differ until it is warmed up, one whose
// warm-up requests fail, and ones that decode speculatively, alike in every arm or only when
// batched. bi-run run-live must warm each launch up as the kind says, never score the warm-up,
// stop on a warm-up the server refuses, and not compare arms that drafted differently.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "fake_cell.hpp"
#include "io/cert_io.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;

namespace {

struct CellRun {
    testing::CommandResult result;
    core::Json cert;  // null when no cert was written
};

// A user's kind file: llama-server's own, renamed, with `warmup` warm-up requests.
std::string warm_kind(const testing::ScratchDir& dir, int warmup) {
    std::string text = testing::read_text(std::string(BI_KINDS_DIR) + "/llama-server.toml");
    text.replace(text.find("name = \"llama-server\""), 21, "name = \"warm-llama\"");
    const std::string line = "warmup = 0\n";
    const auto at = text.find(line);
    REQUIRE(at != std::string::npos);
    text.replace(at, line.size(), "warmup = " + std::to_string(warmup) + "\n");
    return dir.write("warm-llama.toml", text);
}

// One N=4 cell against the fake on llama-server's surface: the kind file (empty: llama-server's
// own), the fake's flags and bi-run's further options.
CellRun run_cell(const std::string& kind_file, const std::vector<std::string>& fake,
                 const std::vector<std::string>& options = {}) {
    testing::ScratchDir dir;
    auto argv =
        testing::fake_cell_argv(dir.write("model.gguf", "not really a model"), dir.file("o"));
    if (!kind_file.empty()) argv.insert(argv.end(), {"--server-kind", kind_file});
    for (const auto& token : fake) argv.push_back("--server-flag=" + token);
    argv.insert(argv.end(), options.begin(), options.end());
    CellRun run;
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

std::string rule(const core::Json& cert) {
    return text(*cert.find("rule"), "name");
}

bool says(const core::Json& cert, const std::string& words) {
    if (const core::Json* reasons = cert.find("decision_reasons"))
        for (const auto& line : reasons->as_array())
            if (line.as_string().find(words) != std::string::npos) return true;
    return false;
}

std::int64_t warmup_recorded(const core::Json& cert) {
    const core::Json* run = cert.find("run");
    const core::Json* warmup = run ? run->find("warmup_requests") : nullptr;
    return warmup && warmup->is_int() ? warmup->as_int() : -1;
}

// The arms the drafting gate names as having drafted otherwise than A, in order.
std::vector<std::string> mismatch_arms(const core::Json& drafting) {
    std::vector<std::string> arms;
    for (const auto& m : drafting.find("mismatches")->as_array()) {
        const std::string arm = text(m, "arm");
        if (arms.empty() || arms.back() != arm) arms.push_back(arm);
    }
    return arms;
}

}  // namespace

TEST_CASE("a server that needs warm-up: GREEN with the kind's warm-up, RED without or too little",
          "[adversarial][warmup]") {
    testing::ScratchDir kinds;
    // Its first two answers after each start-up are other texts.
    const std::vector<std::string> fake{"--fake-warmup-needed=2"};

    const auto cold = run_cell("", fake);
    INFO(cold.result.out << cold.result.err);
    REQUIRE(cold.cert.is_object());
    CHECK(text(cold.cert, "status") == "failed");
    CHECK(rule(cold.cert) == "serial_self_check");
    CHECK(warmup_recorded(cold.cert) == 0);

    const auto short_of_it = run_cell(warm_kind(kinds, 1), fake);
    INFO(short_of_it.result.out << short_of_it.result.err);
    REQUIRE(short_of_it.cert.is_object());
    CHECK(text(short_of_it.cert, "status") == "failed");
    CHECK(warmup_recorded(short_of_it.cert) == 1);

    const auto warm = run_cell(warm_kind(kinds, 2), fake);
    INFO(warm.result.out << warm.result.err);
    REQUIRE(warm.cert.is_object());
    CHECK(warm.result.exit_code == 0);
    CHECK(text(warm.cert, "status") == "green");
    CHECK(warmup_recorded(warm.cert) == 2);
    // The warm-up was never scored: every arm holds the work-set's 8 items, no more.
    const core::Json* gate = warm.cert.find("cold_cache");
    REQUIRE(gate);
    CHECK(gate->find("witnessed")->as_int() == 40);
}

TEST_CASE("a warm-up request the server refuses ends the run as an unready server does",
          "[adversarial][warmup]") {
    testing::ScratchDir kinds;
    const auto run = run_cell(warm_kind(kinds, 2), {"--fake-fail-first=1"});
    INFO(run.result.out << run.result.err);
    CHECK(run.result.exit_code == 1);
    CHECK(run.cert.is_null());
    // One line, naming the request, the server and its own words.
    CHECK_THAT(run.result.err,
               Catch::StartsWith("bi-run run-live: warm-up request 1/2 on the 1-slot server "
                                 "failed: POST /v1/chat/completions: HTTP 500"));
    CHECK_THAT(run.result.err, Catch::Contains("graph capture not finished"));
    CHECK(std::count(run.result.err.begin(), run.result.err.end(), '\n') == 1);
}

TEST_CASE("a server that drafts alike in every arm is GREEN, and the cert names its drafting",
          "[adversarial][draft]") {
    const auto run = run_cell("", {"--fake-draft", "--model-draft=draft.gguf"});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.is_object());
    CHECK(text(run.cert, "status") == "green");
    const core::Json* drafting = run.cert.find("drafting");
    REQUIRE(drafting);
    CHECK(drafting->find("ok")->as_bool());
    CHECK(drafting->find("drafted")->as_bool());
    CHECK(text(*drafting, "fields") == "timings.draft_n");
    CHECK(text(*drafting, "launch_flag") == "--model-draft=draft.gguf");
    // A, A', B and the two passes, each 8 answers drafting twice the 16 tokens asked for.
    const auto& arms = drafting->find("arms")->as_array();
    REQUIRE(arms.size() == 5);
    for (const auto& arm : arms) {
        CHECK(arm.find("drafting")->as_int() == 8);
        CHECK(arm.find("drafted_tokens")->as_int() == 256);
    }
    CHECK(says(run.cert,
               "drafting: the server decodes speculatively (launched with "
               "--model-draft=draft.gguf), and every arm drafted alike"));
}

TEST_CASE("arms that drafted differently are not comparable, whichever llama kind states it",
          "[adversarial][draft]") {
    struct Case {
        const char* kind;
        std::vector<std::string> fake;
    };
    const std::vector<Case> cases{
        {"", {"--fake-draft-concurrent"}},
        {"ik_llama.cpp", {"--fake-draft-concurrent", "--fake-ik-surface"}},
    };
    for (const auto& c : cases) {
        const auto run = run_cell(c.kind, c.fake);
        INFO((*c.kind ? c.kind : "llama-server") << ": " << run.result.out << run.result.err);
        REQUIRE(run.cert.is_object());
        CHECK(run.result.exit_code == 3);
        CHECK(text(run.cert, "status") == "green_unverified");
        CHECK(rule(run.cert) == "drafting");
        CHECK(says(run.cert, "speculative decoding differed between arms: "));
        // A, A' and B ran one request at a time and drafted nothing; the C passes drafted.
        const core::Json* drafting = run.cert.find("drafting");
        REQUIRE(drafting);
        CHECK_FALSE(drafting->find("ok")->as_bool());
        CHECK(drafting->find("launch_flag")->is_null());
        CHECK(mismatch_arms(*drafting) == std::vector<std::string>{"C1", "C2"});
    }
}

TEST_CASE("a server that never drafts: the cert says so and no line is added",
          "[adversarial][draft]") {
    const auto run = run_cell("", {});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.is_object());
    CHECK(text(run.cert, "status") == "green");
    const core::Json* drafting = run.cert.find("drafting");
    REQUIRE(drafting);
    CHECK(drafting->find("ok")->as_bool());
    CHECK_FALSE(drafting->find("drafted")->as_bool());
    CHECK_FALSE(says(run.cert, "drafting"));
}
