// Running a plan in process over the mock launcher: the cert run_plan writes is the verdict it
// returns, a sweep shares arm A across its N values, and a run that ends early writes no cert.
#include <catch2/catch.hpp>

#include <filesystem>

#include "core/error.hpp"
#include "io/cert_io.hpp"
#include "mock_cell.hpp"
#include "scratch_dir.hpp"

using bi::core::Status;
using bi::testing::lines;
using bi::testing::mock_cell;
using bi::testing::mock_request;
using bi::testing::ScratchDir;

namespace {

std::size_t files_in(const std::string& dir) {
    std::size_t n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.path().extension() == ".json") ++n;
    return n;
}

}  // namespace

TEST_CASE("an honest mock cell is green and its cert is the outcome returned", "[run_plan]") {
    const ScratchDir dir;
    auto cell = mock_cell(mock_request(dir.path()));
    const auto results = bi::testing::run(*cell);
    REQUIRE(results.size() == 1);
    const auto& outcome = results.front().outcome;
    INFO(cell->log.str());
    INFO(lines(outcome.verdict.decision_reasons));
    CHECK(results.front().ctx == 512);
    CHECK(results.front().parallel == 4);
    CHECK(outcome.verdict.status == Status::Green);
    CHECK_FALSE(outcome.promotable);  // a mock cert never is
    CHECK(outcome.cert_path == dir.file("bi-mock__ctx512__N4.json"));
    const auto loaded = bi::io::read_cert(outcome.cert_path);
    REQUIRE(loaded.shape_problem.empty());
    CHECK(loaded.digest_intact);
    CHECK(loaded.cert.verdict.status == Status::Green);
    CHECK(loaded.cert.cell.dispatch_n == 4);
    CHECK(files_in(dir.path()) == 1);
}

TEST_CASE("a mock whose co-batched answers change gives a RED cert", "[run_plan]") {
    const ScratchDir dir;
    auto config = bi::testing::fast_mock();
    config.divergence = bi::mock::Divergence::Score;
    auto cell = mock_cell(mock_request(dir.path()), config);
    const auto results = bi::testing::run(*cell);
    REQUIRE(results.size() == 1);
    INFO(cell->log.str());
    CHECK(results.front().outcome.verdict.status == Status::Failed);
    CHECK(bi::io::read_cert(results.front().outcome.cert_path).cert.verdict.status ==
          Status::Failed);
}

TEST_CASE("a sweep runs arm A once per ctx and calls back once per cell", "[run_plan]") {
    const ScratchDir dir;
    auto request = mock_request(dir.path());
    request.parallels = {2, 3};
    request.passes = 1;
    auto cell = mock_cell(request);
    std::vector<int> called;
    const auto results = bi::driver::run_plan(
        cell->setup.plan, *cell->setup.scorer, cell->setup.rows, *cell->progress,
        [&](const bi::driver::CellResult& r) { called.push_back(r.parallel); });
    INFO(cell->log.str());
    CHECK(called == std::vector<int>{2, 3});
    REQUIRE(results.size() == 2);
    const auto n2 = bi::io::read_cert(results[0].outcome.cert_path).cert;
    const auto n3 = bi::io::read_cert(results[1].outcome.cert_path).cert;
    // One serial run shared: both certs carry the same arm A timing.
    REQUIRE(n2.timings.has_value());
    REQUIRE(n3.timings.has_value());
    CHECK(n2.timings->arm_a_s == n3.timings->arm_a_s);
    CHECK(files_in(dir.path()) == 2);
}

TEST_CASE("a server that dies mid-run writes no cert and says so", "[run_plan]") {
    const ScratchDir dir;
    auto config = bi::testing::fast_mock();
    config.crash_after = 40;  // after arm A and A' (32 each would be 64): dies inside A'
    auto cell = mock_cell(mock_request(dir.path()), config);
    CHECK_THROWS_AS(bi::testing::run(*cell), bi::Error);
    CHECK(files_in(dir.path()) == 0);
}
