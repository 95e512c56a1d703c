// What batching bought, as the text output and the reports say it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/throughput.hpp"

namespace bi::report {

// "2.7x"; "-" without a speedup.
std::string speedup_text(const std::optional<core::Throughput>& throughput);

// "throughput: batching gave 2.7x the tokens/s (A 812 tokens/s serially, C 2190 tokens/s with N 4
// at once); inter-token latency in C: median 4.1 ms, p95 9.8 ms"; none without A's and C's rates.
std::optional<std::string> throughput_line(const core::Throughput& throughput, std::int64_t n);

}  // namespace bi::report
