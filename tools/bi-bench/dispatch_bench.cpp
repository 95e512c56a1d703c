#include "dispatch_bench.hpp"

#include <optional>

#include "arm_timing.hpp"
#include "bench_items.hpp"
#include "external_mock.hpp"
#include "mock/mock_server.hpp"
#include "process_usage.hpp"

namespace bi::bench {

namespace {

constexpr double kTargetTrialsPerSecond = 5000.0;

Measurement dispatch_measurement(const TimedArm& arm, std::size_t trials, int workers,
                                 const BenchLimits& limits) {
    Measurement m;
    m.value = arm.wall_s > 0 ? static_cast<double>(arm.answered) / arm.wall_s : 0.0;
    m.unit = "trials/s";
    m.target = Target{true, kTargetTrialsPerSecond};
    m.setup = std::to_string(trials) + " trials, run_arm with " + std::to_string(workers) +
              " workers (keep-alive sessions), /v1/chat/completions, n_predict " +
              std::to_string(limits.n_predict) + ", mock tick_ms 0 with " +
              std::to_string(workers) + " slots";
    m.add("answered", static_cast<double>(arm.answered));
    m.add("failed", static_cast<double>(arm.failed));
    m.add("wall", arm.wall_s, "s");
    return m;
}

double per_thousand(double seconds, std::size_t trials) {
    return trials == 0 ? 0.0 : seconds * 1000.0 / static_cast<double>(trials);
}

}  // namespace

Measurement measure_dispatch_in_process(const BenchLimits& limits, int workers) {
    const auto items = make_bench_items(static_cast<std::size_t>(limits.trials));
    mock::MockConfig config;
    config.slots = workers;
    config.tick_ms = 0.0;
    mock::MockServer server(config);
    const std::uint16_t port = server.start();

    const double load = load_average()[0];
    const TimedArm arm = run_timed_arm(http::Endpoint{"127.0.0.1", port}, items, "C", 1, workers,
                                       limits.n_predict, limits.time_limit_s);
    Measurement m = dispatch_measurement(arm, items.size(), workers, limits);
    m.key = "dispatch_in_process_n" + std::to_string(workers);
    m.title = "dispatcher, in-process mock, N=" + std::to_string(workers);
    m.setup += ", mock in this process";
    m.load_1m = load;
    m.add("cpu_per_1000_trials", per_thousand(arm.cpu_s, arm.answered), "s (client + mock)");
    return m;
}

Measurement measure_dispatch_external(const BenchLimits& limits, int workers,
                                      const std::string& mock_binary) {
    const auto items = make_bench_items(static_cast<std::size_t>(limits.trials));
    ExternalMock server(mock_binary, workers, 0.0);

    const double load = load_average()[0];
    const std::optional<double> mock_cpu0 = server.cpu_seconds();
    const TimedArm arm = run_timed_arm(http::Endpoint{"127.0.0.1", server.port()}, items, "C", 1,
                                       workers, limits.n_predict, limits.time_limit_s);
    const std::optional<double> mock_cpu1 = server.cpu_seconds();

    Measurement m = dispatch_measurement(arm, items.size(), workers, limits);
    m.key = "dispatch_external_n" + std::to_string(workers);
    m.title = "dispatcher, mock process, N=" + std::to_string(workers);
    m.setup += ", mock as a separate bi-mock-server process";
    m.load_1m = load;
    m.add("client_cpu_per_1000_trials", per_thousand(arm.cpu_s, arm.answered), "s");
    if (mock_cpu0 && mock_cpu1)
        m.add("mock_cpu_per_1000_trials", per_thousand(*mock_cpu1 - *mock_cpu0, arm.answered), "s");
    return m;
}

}  // namespace bi::bench
