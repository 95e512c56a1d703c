// What run-mock prints where a verdict is decided, and what report then says of the cell: a GREEN
// held back by its history, the size of logprob drift and its threshold, a GREEN that compared
// no logprobs, and a cert moved to history by a run of other settings.
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "cli_args.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::bi_run;
using testing::operator+;
using testing::run_command;

namespace {

// One run-mock cell, ctx 512, N 2, two passes of the small work-set, into `dir`.
std::vector<std::string> mock_cell(const testing::ScratchDir& dir) {
    return {"run-mock", "--out-dir", dir.path(),   "--quiet", "--passes",  "2",
            "--ctx",    "512",       "--parallel", "2",       "--workset", BI_SMALL_WORKSET};
}

}  // namespace

TEST_CASE("run-mock: a GREEN held back by a RED in its history says why, and report skips its N",
          "[cli][history]") {
    testing::ScratchDir dir;
    auto r =
        run_command(bi_run(mock_cell(dir) + std::vector<std::string>{"--divergence", "score"}));
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 3);
    REQUIRE_THAT(r.out, Catch::StartsWith("RED "));
    r = run_command(bi_run(mock_cell(dir)));
    INFO(r.out << r.err);
    CHECK_THAT(r.out, Catch::StartsWith("GREEN (green, not promotable)"));
    CHECK_THAT(r.out, Catch::Contains("\n  held back: a RED for this configuration (cfg-") &&
                          Catch::Contains("; that run proved a divergence this one failed to "
                                          "see\n"));
    const auto page = dir.file("r.html");
    r = run_command(bi_run({"report", "--html", page, dir.path()}));
    CHECK_THAT(r.out, Catch::Contains("bi-mock: largest N that is GREEN, with every smaller N "
                                      "measured, at every ctx measured (512): none\n"));
    const std::string html = testing::read_text(page);
    CHECK_THAT(html, Catch::Contains("<span class=\"note\">held back by its history") &&
                         Catch::Contains("at every ctx measured: <b>none</b>"));
}

TEST_CASE("run-mock: an AMBER of logprob drift says how far the logprobs moved, and the threshold",
          "[cli]") {
    testing::ScratchDir dir;
    const auto logprobs = std::vector<std::string>{"--logprobs", "2", "--divergence", "logprob"};
    auto r = run_command(bi_run(mock_cell(dir) + logprobs));
    INFO(r.out << r.err);
    REQUIRE_THAT(r.out, Catch::StartsWith("AMBER "));
    const std::regex size(
        "id\\(s\\) changed chosen-token logprobs, invariant fields unchanged; largest "
        "chosen-token logprob delta ([0-9.e+-]+) \\(--logit-drift-eps 0: every delta counts\\)\n");
    std::smatch found;
    REQUIRE(std::regex_search(r.out, found, size));
    const double delta = std::stod(found[1]);
    CHECK(delta > 0);
    // The page's chart counts the drifted ids, with the same size beside it.
    const auto page = dir.file("r.html");
    REQUIRE(run_command(bi_run({"report", "--html", page, dir.path()})).exit_code != 2);
    const std::string html = testing::read_text(page);
    CHECK(std::regex_search(html, std::regex("<title>C[12]: [1-9][0-9]* drifted</title>")));
    CHECK_THAT(html, Catch::Contains("largest chosen-token logprob delta " + found[1].str() +
                                     " (--logit-drift-eps 0: every delta counts)"));

    // A threshold above the largest delta: the same drift is no drift, and the GREEN says so.
    testing::ScratchDir above;
    r = run_command(bi_run(mock_cell(above) + logprobs +
                           std::vector<std::string>{"--logit-drift-eps", "1000"}));
    INFO(r.out << r.err);
    CHECK_THAT(r.out, Catch::StartsWith("GREEN "));
    CHECK_THAT(r.out, Catch::Contains("\n  logprobs: held; largest chosen-token logprob delta ") &&
                          Catch::Contains(" (--logit-drift-eps 1000: smaller logprob-only deltas "
                                          "are not drift)\n"));
}

TEST_CASE("run-mock: a chat GREEN without logprobs says that logprobs were not compared", "[cli]") {
    testing::ScratchDir dir;
    const auto r = run_command(bi_run(mock_cell(dir)));
    INFO(r.out << r.err);
    CHECK_THAT(r.out, Catch::StartsWith("GREEN "));
    CHECK_THAT(r.out, Catch::Contains("\n  logprobs: chosen-token logprobs were not compared (the "
                                      "answers carry none: --logprobs 0)\n"));
}

TEST_CASE("run-mock: a run of other request settings names the cert it moved to history, and why",
          "[cli][history]") {
    testing::ScratchDir dir;
    auto r = run_command(bi_run(mock_cell(dir)));
    REQUIRE_THAT(r.out, Catch::StartsWith("GREEN "));
    CHECK_THAT(r.out, !Catch::Contains("replaced"));
    r = run_command(bi_run(
        mock_cell(dir) + std::vector<std::string>{"--logprobs", "2", "--endpoint", "completion"}));
    INFO(r.out << r.err);
    CHECK_THAT(r.out, Catch::Contains("\nreplaced: moved bi-mock__ctx512__N2.json (GREEN, of ") &&
                          Catch::Contains(") to history/bi-mock__ctx512__N2.") &&
                          Catch::Contains(": this run's configuration differs: endpoint "
                                          "/v1/chat/completions → /completion, logprobs 0 → 2\n"));
    // The same run again is a rerun of one configuration; report still names the GREEN of the
    // other settings under the cell's row.
    r = run_command(bi_run(
        mock_cell(dir) + std::vector<std::string>{"--logprobs", "2", "--endpoint", "completion"}));
    CHECK_THAT(r.out, Catch::Contains(": a rerun of the same configuration\n"));
    r = run_command(bi_run({"report", dir.path()}));
    CHECK_THAT(r.out, Catch::Contains("\n    replaced history/bi-mock__ctx512__N2.") &&
                          Catch::Contains(" (green of ") &&
                          Catch::Contains(", another configuration: cfg-"));
}
