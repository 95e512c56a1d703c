// What reading answers as streams costs the client: token chunks parsed and timestamped per
// second on one core, the memory kept per stream, and the lockstep judge's time per pass, so
// that the stream bookkeeping's share of a cell's wall time is a number.
#pragma once

#include "measurement.hpp"

namespace bi::bench {

Measurement measure_stream_parse(const BenchLimits& limits);

}  // namespace bi::bench
