#include "arm_timing.hpp"

#include "bench_items.hpp"
#include "core/error.hpp"
#include "driver/dispatcher.hpp"
#include "process_usage.hpp"

namespace bi::bench {

TimedArm run_timed_arm(const http::Endpoint& endpoint, const std::vector<core::WorkItem>& items,
                       const std::string& arm, int pass, int workers, int n_predict,
                       double time_limit_s) {
    using Clock = std::chrono::steady_clock;
    driver::ArmRequest request;
    request.arm = arm;
    request.pass = pass;
    request.items = &items;
    request.order = identity_order(items.size());
    request.concurrency = workers;
    request.request.n_predict = n_predict;
    request.request.timeout = std::chrono::seconds(30);

    TimedArm timed;
    const double cpu0 = process_cpu_seconds();
    const Clock::time_point t0 = Clock::now();
    request.origin = t0;
    request.deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(time_limit_s));
    timed.records = driver::run_arm(endpoint, request);
    timed.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    timed.cpu_s = process_cpu_seconds() - cpu0;
    for (const auto& record : timed.records) {
        if (!record.failure_mode.is_set())
            ++timed.answered;
        else
            ++timed.failed;
    }
    if (timed.answered == 0) {
        const std::string why = timed.records.empty() ? "no items" : timed.records.front().error;
        throw Error(ErrorCategory::Server,
                    "bi-bench: no request of arm " + arm + " was answered (" + why + ")");
    }
    return timed;
}

}  // namespace bi::bench
