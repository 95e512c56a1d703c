// How long the pure core takes to judge a large cell: decide_verdict over synthetic records
// (no I/O), so the verdict never becomes the slow part of a run.
#pragma once

#include "measurement.hpp"

namespace bi::bench {

Measurement measure_verdict_speed(const BenchLimits& limits);

}  // namespace bi::bench
