#include "driver_rss.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>

#include "arm_timing.hpp"
#include "bench_items.hpp"
#include "core/verdict.hpp"
#include "driver/scoring.hpp"
#include "external_mock.hpp"
#include "mock/mock_server.hpp"
#include "plugin_host/plugin_set.hpp"
#include "process_usage.hpp"

namespace bi::bench {

namespace {

constexpr double kTargetMegabytes = 50.0;
constexpr double kKibPerMegabyte = 1024.0;

}  // namespace

Measurement measure_driver_rss(const BenchLimits& limits,
                               const std::optional<std::string>& mock_binary) {
    const long rss_start = current_rss_kib();
    const double load = load_average()[0];

    plugin_host::PluginSet plugins;
    plugins.load_bundled();
    const auto scorer = plugins.create_scorer("");

    // Half the trials in arm A (serial, as the driver sends it), half in one C pass.
    const std::size_t n_items = static_cast<std::size_t>(std::max(1, limits.trials / 2));
    const auto items = make_bench_items(n_items);
    const int slots = limits.rss_concurrency;

    std::unique_ptr<ExternalMock> external;
    std::unique_ptr<mock::MockServer> in_process;
    std::uint16_t port = 0;
    if (mock_binary) {
        external = std::make_unique<ExternalMock>(*mock_binary, slots, 0.0);
        port = external->port();
    } else {
        mock::MockConfig config;
        config.slots = slots;
        config.tick_ms = 0.0;
        in_process = std::make_unique<mock::MockServer>(config);
        port = in_process->start();
    }
    const http::Endpoint endpoint{"127.0.0.1", port};

    TimedArm a = run_timed_arm(endpoint, items, "A", 0, 1, limits.n_predict, limits.time_limit_s);
    TimedArm c =
        run_timed_arm(endpoint, items, "C", 1, slots, limits.n_predict, limits.time_limit_s);
    const std::size_t answered = a.answered + c.answered;

    core::CellEvidence evidence;
    evidence.arm_a = driver::score_arm(std::move(a.records), items, *scorer);
    evidence.arm_c.push_back(driver::score_arm(std::move(c.records), items, *scorer));
    state_overlap(evidence, slots);
    const core::Verdict verdict = core::decide_verdict(evidence);

    const long peak = peak_rss_kib();
    const long rss_end = current_rss_kib();

    Measurement m;
    m.key = "driver_rss";
    m.title = "driver peak RSS (VmHWM)";
    m.value = static_cast<double>(peak) / kKibPerMegabyte;
    m.unit = "MB";
    m.target = Target{false, kTargetMegabytes};
    m.setup = std::to_string(items.size()) + " items x (arm A serial + one C pass with " +
              std::to_string(slots) + " workers) = " + std::to_string(2 * items.size()) +
              " trials, n_predict " + std::to_string(limits.n_predict) +
              ", scored by the bundled exact scorer, decide_verdict over A and C, " +
              (mock_binary ? "mock as a separate process (not counted)"
                           : "mock IN this process (counted)");
    m.load_1m = load;
    m.add("trials_answered", static_cast<double>(answered));
    m.add("rss_at_start", static_cast<double>(rss_start) / kKibPerMegabyte, "MB");
    m.add("rss_at_end", static_cast<double>(rss_end) / kKibPerMegabyte, "MB");
    m.add("verdict_green", verdict.status == core::Status::Green ? 1.0 : 0.0);
    return m;
}

}  // namespace bi::bench
