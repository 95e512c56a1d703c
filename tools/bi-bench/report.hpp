// The two ways bi-bench prints its results: a table for people, one JSON line for machines.
#pragma once

#include <array>
#include <ostream>
#include <string>
#include <vector>

#include "measurement.hpp"

namespace bi::bench {

struct BenchContext {
    std::string version;
    bool quick = false;
    int cpus = 1;
    std::array<double, 3> load_at_start{};
    std::array<double, 3> load_at_end{};
};

void print_table(std::ostream& out, const BenchContext& context,
                 const std::vector<Measurement>& measurements);

// One line: {"tool":"bi-bench", ..., "measurements":[{key, title, value, unit, setup, target,
// met, load_1m, details:{...}}]}, keys sorted.
std::string json_line(const BenchContext& context, const std::vector<Measurement>& measurements);

}  // namespace bi::bench
