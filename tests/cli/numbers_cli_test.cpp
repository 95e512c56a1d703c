// The numbers a run prints are the ones it can stand behind: a dry run's wall time from an
// earlier cert's measured times (or said to be a guess), no token counter asked before any server
// runs, and trial counts that say which comparisons they leave out.
#include <catch2/catch.hpp>

#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "cli_args.hpp"
#include "io/cert_io.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using bi::testing::bi_run;
using bi::testing::run_command;
using bi::testing::operator+;

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// The seconds of a dry run's "wall time N=2  ~12 s" line; -1 when there is none.
double estimated_seconds(const std::string& plan) {
    std::smatch m;
    if (!std::regex_search(plan, m, std::regex("wall time N=2  ~([0-9.e+-]+) s"))) return -1;
    return std::stod(m[1]);
}

}  // namespace

TEST_CASE("dry run: the wall time is an earlier cert's measured times, else it says it guesses",
          "[cli][dry-run]") {
    bi::testing::ScratchDir dir;
    const auto model = dir.write("m.gguf", "a model file for the mock");
    const auto cell = bi::testing::mock_server_cell(model, dir.file("out"), BI_SMALL_WORKSET, 8);
    const auto guess = run_command(bi_run(cell + std::vector<std::string>{"--dry-run"}));
    REQUIRE(guess.exit_code == 0);
    const std::string guessed = guess.out + guess.err;
    INFO(guessed);
    CHECK(contains(guessed, "a guess: no cert of this cell in the out dir has measured times"));
    // The model's size in a unit that fits it, not "0.00 GiB".
    CHECK(contains(guessed, "m.gguf (25 bytes, not GGUF)"));
    REQUIRE(estimated_seconds(guessed) > 0);

    const auto start = std::chrono::steady_clock::now();
    const auto real = run_command(bi_run(cell));
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    REQUIRE((real.exit_code == 0 || real.exit_code == 3));

    const auto measured = run_command(bi_run(cell + std::vector<std::string>{"--dry-run"}));
    REQUIRE(measured.exit_code == 0);
    const std::string plan = measured.out + measured.err;
    INFO(plan);
    CHECK(contains(plan, "at the times measured in " + dir.file("out/m__ctx512__N2.json")));
    CHECK_FALSE(contains(plan, "a guess"));
    // Launches are not in it, so it is about what the arms took: below the whole run's time,
    // give or take the arms' own variation.
    const double seconds = estimated_seconds(plan);
    CHECK(seconds > 0);
    CHECK(seconds <= 1.5 * took.count());
}

TEST_CASE("dry run: a spark plan sizes its work-set without asking a token counter",
          "[cli][dry-run]") {
    bi::testing::ScratchDir dir;
    const auto model = dir.write("m.gguf", "a model file for the mock");
    const auto r =
        run_command(bi_run({"run-live", "--profile", "spark", "--server-bin", BI_MOCK_SERVER_PATH,
                            "--model", model, "--out-dir", dir.file("out"), "--dry-run"}));
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(contains(r.out + r.err, "wall time N=4"));  // the work-set was sized
    CHECK_FALSE(contains(r.err, "token counter failed"));
    CHECK_FALSE(contains(r.err, "warning"));
}

TEST_CASE("run output: the trial count says why it counts fewer trials than comparisons",
          "[cli][sensitivity]") {
    bi::testing::ScratchDir dir;
    // Five items at N = 4 in two passes: an item that ran alone, or in a batch already seen, is
    // compared but not counted as a trial.
    const auto workset = dir.write(
        "ws5.json",
        "[{\"prompt\": \"The lamp code is 3307. Reply with the code.\", \"expected_answer\": "
        "\"3307\"},\n{\"prompt\": \"What is 6 times 7? Digits only.\", \"expected_answer\": "
        "\"42\"},\n{\"prompt\": \"What is 50 minus 8? Digits only.\", \"expected_answer\": "
        "\"42\"},\n{\"prompt\": \"Remember the word 'harbor'. Which word?\", "
        "\"expected_answer\": \"harbor\"},\n{\"prompt\": \"Which keyword starts a Python loop "
        "over items?\", \"expected_answer\": \"for\"}]\n");
    const auto r =
        run_command(bi_run({"run-mock", "--workset", workset, "--parallel", "4", "--passes", "2",
                            "--n-predict", "8", "--out-dir", dir.file("out"), "--quiet"}));
    INFO(r.out << r.err);
    // GREEN, or UNVERIFIED when a loaded machine left the fifth item's partner short of its
    // co-batch coverage: either way the counts are printed and must agree.
    REQUIRE((r.exit_code == 0 || r.exit_code == 3));
    const auto cert = bi::io::read_cert(dir.file("out/bi-mock__ctx2048__N4.json")).cert;
    const auto compared = cert.divergence.ac.n_comparisons;
    const auto counted = cert.sensitivity.per_trial.n;
    REQUIRE(counted < compared);
    CHECK(contains(r.out, std::to_string(compared) + " comparisons"));
    CHECK(contains(r.out, "0 of " + std::to_string(counted) + " trials diverged"));
    CHECK(contains(r.out, "(" + std::to_string(counted) + " of the " + std::to_string(compared) +
                              " comparisons counted: "));
}
