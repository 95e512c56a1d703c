// The items every client-path benchmark sends: the built-in work-set repeated until there are
// enough, so prompts look like a real run's and every test_id is distinct.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/verdict.hpp"
#include "core/work_item.hpp"

namespace bi::bench {

std::vector<core::WorkItem> make_bench_items(std::size_t count);

// 0, 1, ..., n-1: the send order of one arm.
std::vector<std::size_t> identity_order(std::size_t n);

// The benches run no poller: overlap evidence is stated, not observed - `slots` requests
// computing throughout each pass, on every source the verdict reads.
void state_overlap(core::CellEvidence& evidence, std::int64_t slots);

}  // namespace bi::bench
