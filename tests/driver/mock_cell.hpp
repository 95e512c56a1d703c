// A cell set up in this process as run-mock sets one up: a request checked by prepare_run, the
// bundled plugins loaded, the in-process mock as its server, progress kept in a string.
#pragma once

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/run_request.hpp"
#include "driver/progress.hpp"
#include "driver/run_plan.hpp"
#include "driver/run_setup.hpp"
#include "mock/mock_config.hpp"

namespace bi::testing {

// A run request for the mock: one cell at N = 4, 2 passes, the built-in work-set, into `out_dir`.
core::RunRequest mock_request(const std::string& out_dir);

// The demo mock's fast pacing (run-mock's defaults): co-batched steps overlap at N, a lone
// request runs on flat out.
mock::MockConfig fast_mock();

struct MockCell {
    driver::RunSetup setup;
    std::ostringstream log;  // what prepare_run noted and the progress lines
    std::unique_ptr<driver::Progress> progress;
};

// prepare_run over `request` (lists allowed), then the mock `config` as the plan's server.
std::unique_ptr<MockCell> mock_cell(const core::RunRequest& request,
                                    const mock::MockConfig& config = fast_mock());

// One line each, for a test's INFO when a verdict or a record is not what it expected.
std::string lines(const std::vector<std::string>& texts);

// run_plan over the cell's plan.
std::vector<driver::CellResult> run(MockCell& cell);

}  // namespace bi::testing
