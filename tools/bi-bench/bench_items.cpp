#include "bench_items.hpp"

#include <cstdint>

#include <numeric>

#include "driver/builtin_workset.hpp"

namespace bi::bench {

std::vector<core::WorkItem> make_bench_items(std::size_t count) {
    const std::vector<core::WorkRow> rows = driver::builtin_work_rows();
    const std::size_t reps = rows.empty() ? 0 : (count + rows.size() - 1) / rows.size();
    std::vector<core::WorkItem> items =
        core::expand_work_rows(rows, "bi-bench", 4096, static_cast<int>(reps));
    if (items.size() > count) items.resize(count);
    return items;
}

std::vector<std::size_t> identity_order(std::size_t n) {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    return order;
}

void state_overlap(core::CellEvidence& evidence, std::int64_t slots) {
    core::ServerOverlapEvidence stated;
    stated.peak_busy_slots = slots;
    stated.peak_requests_processing = slots;
    stated.n_samples = 1;
    stated.busy_samples = {{0, INT64_MAX, slots, {}}};
    evidence.server_c_passes.assign(evidence.arm_c.size(), stated);
    evidence.dispatch_n = slots;
    evidence.reported_total_slots = slots;
}

}  // namespace bi::bench
