// One timed run_arm call: the records it returned and the wall and CPU time it took.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/trial.hpp"
#include "core/work_item.hpp"
#include "http/http_session.hpp"

namespace bi::bench {

struct TimedArm {
    std::vector<core::TrialRecord> records;
    double wall_s = 0.0;
    double cpu_s = 0.0;        // this process, all threads
    std::size_t answered = 0;  // completions that arrived (failure_mode still unset)
    std::size_t failed = 0;    // transport failures, deadline cut-offs included
};

// Sends every item once through run_arm with `workers` workers. The arm stops at `time_limit_s`
// (items not sent by then count as failed). Throws bi::Error(Server) when nothing was answered.
TimedArm run_timed_arm(const http::Endpoint& endpoint, const std::vector<core::WorkItem>& items,
                       const std::string& arm, int pass, int workers, int n_predict,
                       double time_limit_s);

}  // namespace bi::bench
