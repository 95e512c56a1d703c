// Turns an arm's transport-level results into scored trial records (main thread, after the arm).
#pragma once

#include <vector>

#include "core/trial.hpp"
#include "core/work_item.hpp"
#include "plugin_host/scorer.hpp"

namespace bi::driver {

// For each record whose request produced a completion (failure_mode still unset), runs the
// scorer on everything generated (content, reasoning, tool calls, token count, stop reason) and
// fills score, passed, extracted_answer and failure_mode. Records that failed in
// transport keep their failure mode and get no score. expected_answer is always copied from the
// item. Returns the arm keyed by test_id.
core::ArmResults score_arm(std::vector<core::TrialRecord> records,
                           const std::vector<core::WorkItem>& items,
                           plugin_host::ScorerInstance& scorer);

}  // namespace bi::driver
