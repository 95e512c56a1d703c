// Requests per second the mock serves to many concurrent keep-alive clients, each a plain loop
// over one HttpSession (no dispatcher, no records), so the server is what is measured.
#pragma once

#include "measurement.hpp"

namespace bi::bench {

enum class MockRoute {
    Completion,  // POST /v1/chat/completions with n_predict tokens: the path that matters
    Health,      // GET /health: the HTTP layer alone, for comparison
};

Measurement measure_mock_throughput(const BenchLimits& limits, MockRoute route);

}  // namespace bi::bench
