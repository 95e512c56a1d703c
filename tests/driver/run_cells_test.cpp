// driver::run_cells in process: the hooks a command prints through are called once per cell, in
// run order; a dry run describes the plan and launches nothing; a resumed sweep reports the cell
// it skipped and counts it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "core/cert.hpp"
#include "driver/run_cells.hpp"
#include "mock_cell.hpp"
#include "scratch_dir.hpp"

using bi::testing::ScratchDir;
using Catch::Matchers::Contains;

namespace {

// What a command would print, in the order the hooks were called.
struct Printed {
    std::vector<std::string> events;
    std::vector<bi::report::SweepRow> rows;
    std::optional<std::vector<std::string>> recommendation;  // set when the hook was called
};

bi::driver::CellHooks recording(Printed& printed) {
    bi::driver::CellHooks hooks;
    hooks.prepared = [&](const bi::driver::RunSetup&) { printed.events.push_back("prepared"); };
    hooks.dry_run_plan = [&](const std::string&) { printed.events.push_back("dry run"); };
    hooks.cell_decided = [&](const bi::driver::CellResult& cell) {
        printed.events.push_back("decided N=" + std::to_string(cell.parallel));
    };
    hooks.cell_skipped = [&](const bi::driver::SkippedCell& cell) {
        printed.events.push_back("skipped N=" + std::to_string(cell.parallel));
    };
    hooks.sweep_rows = [&](const std::string& model, const std::vector<bi::report::SweepRow>& r) {
        printed.events.push_back("rows of " + model);
        printed.rows = r;
    };
    hooks.sweep_recommendation = [&](const std::vector<std::string>& lines) {
        printed.recommendation = lines;
    };
    return hooks;
}

bi::driver::CellsOptions options_into(std::ostringstream& notes) {
    bi::driver::CellsOptions options;
    options.invocation = {"test", std::nullopt, {"bi_driver_tests"}};
    options.notes = &notes;
    options.quiet = true;
    return options;
}

// A live request for bi-mock-server, whose model file it only measures: a stand-in will do.
bi::core::RunRequest live_request(const ScratchDir& dir) {
    auto request = bi::testing::mock_request(dir.file("out"));
    request.target.server_bin = BI_MOCK_SERVER_PATH;
    request.target.model = dir.write("m.gguf", "stand-in model\n");
    request.target.server_flags = {"--tick-ms=1"};
    request.parallels = {2};
    request.passes = 1;
    request.n_predict = 6;
    return request;
}

std::size_t files_in(const std::string& dir) {
    std::error_code ec;
    if (!std::filesystem::exists(dir, ec)) return 0;
    std::size_t n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        n += entry.path().extension() == ".json" ? 1 : 0;
    return n;
}

}  // namespace

TEST_CASE("run_cells tells the hooks of each cell once, in run order, then the sweep's rows",
          "[run_cells]") {
    const ScratchDir dir;
    auto request = bi::testing::mock_request(dir.path());
    request.parallels = {2, 3};
    request.passes = 1;
    std::ostringstream notes;
    auto options = options_into(notes);
    options.sweep = true;
    options.profile_scope = bi::driver::ProfileScope::PluginOnly;
    options.mock = std::make_shared<const bi::mock::MockConfig>(bi::testing::fast_mock());
    Printed printed;
    const auto run = bi::driver::run_cells(request, options, recording(printed));
    INFO(notes.str());
    CHECK(printed.events ==
          std::vector<std::string>{"prepared", "decided N=2", "decided N=3", "rows of bi-mock"});
    REQUIRE(run.results.size() == 2);
    CHECK(run.tally.ran == 2);
    CHECK_FALSE(run.tally.all_promotable);  // a mock cert never is
    REQUIRE(printed.rows.size() == 2);
    CHECK(printed.rows[0].parallel == 2);
    CHECK(printed.rows[1].parallel == 3);
    CHECK(files_in(dir.path()) == 2);
    // The mock's certs never back a recommendation: the sweep ends without one.
    REQUIRE(printed.recommendation.has_value());
    CHECK(printed.recommendation->empty());
}

TEST_CASE("a dry run hands over the plan and launches nothing", "[run_cells]") {
    const ScratchDir dir;
    std::ostringstream notes;
    auto options = options_into(notes);
    options.dry_run = true;
    std::string plan;
    bi::driver::CellHooks hooks;
    hooks.dry_run_plan = [&plan](const std::string& text) { plan += text; };
    hooks.cell_decided = [](const bi::driver::CellResult&) { FAIL("a dry run decided a cell"); };
    const auto run = bi::driver::run_cells(live_request(dir), options, hooks);
    INFO(notes.str());
    CHECK_THAT(plan, Contains(bi::core::cert_file_name("bi-mock", 512, 2)));
    CHECK(run.results.empty());
    CHECK(run.tally.ran == 0);
    CHECK(files_in(dir.file("out")) == 0);
}

TEST_CASE("a resumed run reports the cell certified before and launches nothing for it",
          "[run_cells]") {
    const ScratchDir dir;
    const auto request = live_request(dir);
    std::ostringstream notes;
    auto options = options_into(notes);
    Printed first;
    const auto ran = bi::driver::run_cells(request, options, recording(first));
    INFO(notes.str());
    REQUIRE(ran.results.size() == 1);

    options.resume = bi::driver::ResumeMode{"bi-mock", std::chrono::seconds(60)};
    options.sweep = true;
    Printed again;
    const auto resumed = bi::driver::run_cells(request, options, recording(again));
    CHECK(again.events == std::vector<std::string>{"prepared", "skipped N=2", "rows of bi-mock"});
    CHECK(resumed.tally.ran == 0);
    CHECK(resumed.tally.done_before == 1);
    REQUIRE(again.rows.size() == 1);
    CHECK(again.rows[0].verdict == "(skipped: certified before)");
}
