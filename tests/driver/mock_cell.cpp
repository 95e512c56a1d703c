#include "mock_cell.hpp"

namespace bi::testing {

core::RunRequest mock_request(const std::string& out_dir) {
    core::RunRequest request;
    request.out_dir = out_dir;
    request.model_alias = "bi-mock";
    request.ctxs = {512};
    request.parallels = {4};
    request.passes = 2;
    request.req_timeout = std::chrono::seconds(30);
    return request;
}

mock::MockConfig fast_mock() {
    mock::MockConfig config;
    config.model_alias = "bi-mock";
    config.tick_ms = 0.3;
    config.fast_solo_after_ticks = 8;
    config.tick_per_turnaround = 0.5;
    return config;
}

std::unique_ptr<MockCell> mock_cell(const core::RunRequest& request,
                                    const mock::MockConfig& config) {
    auto cell = std::make_unique<MockCell>();
    const driver::Invocation invocation{"test", std::nullopt, {"bi_driver_tests"}};
    cell->setup =
        driver::prepare_run(request, invocation, true, driver::ProfileScope::PluginOnly, cell->log);
    auto mock = config;
    mock.seed = cell->setup.plan.options.seed;
    cell->setup.plan.mock = std::make_shared<const mock::MockConfig>(mock);
    cell->progress = std::make_unique<driver::Progress>(driver::Progress::Mode::Lines, cell->log);
    return cell;
}

std::string lines(const std::vector<std::string>& texts) {
    std::string out;
    for (const auto& text : texts) out += text + "\n";
    return out;
}

std::vector<driver::CellResult> run(MockCell& cell) {
    return driver::run_plan(cell.setup.plan, *cell.setup.scorer, cell.setup.rows, *cell.progress);
}

}  // namespace bi::testing
