// The driver's peak resident set after a run's worth of trials: dispatched, scored with the
// bundled exact scorer and judged by decide_verdict, all held in memory at once as in a cell.
#pragma once

#include <optional>
#include <string>

#include "measurement.hpp"

namespace bi::bench {

// Must run first in the process: VmHWM is a high-water mark and never falls. With a mock binary
// the server runs apart, so only the driver's memory is counted; without one it runs in-process
// (and the setup line says so).
Measurement measure_driver_rss(const BenchLimits& limits,
                               const std::optional<std::string>& mock_binary);

}  // namespace bi::bench
