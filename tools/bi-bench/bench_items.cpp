#include "bench_items.hpp"

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

}  // namespace bi::bench
