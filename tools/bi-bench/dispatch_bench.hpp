// Trials per second through the whole client path: run_arm's N workers on keep-alive sessions,
// request bodies, response parsing and TrialRecord building, against the mock at tick 0.
#pragma once

#include <string>

#include "measurement.hpp"

namespace bi::bench {

// The mock runs inside this process: the CPU figure covers client and server together.
Measurement measure_dispatch_in_process(const BenchLimits& limits, int workers);

// The mock runs as its own process (`mock_binary`): the process CPU figure is the client's
// alone, and the server's is reported beside it.
Measurement measure_dispatch_external(const BenchLimits& limits, int workers,
                                      const std::string& mock_binary);

}  // namespace bi::bench
