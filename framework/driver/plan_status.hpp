// The cells of a sweep plan that have no cert in a directory yet, and what the directory says
// about each (a lock held or stale, a server log of a run that failed, nothing at all). The
// file names are the ones run_plan() writes, from the same RunPlan naming.
#pragma once

#include <string>
#include <vector>

#include "core/sweep_plan.hpp"

namespace bi::driver {

struct PlanCellStatus {
    std::string cert;    // the cert's file name
    std::string state;   // "running", "stale lock", "failed" or "missing"
    std::string detail;  // the lock's holder, why it is stale, or the server log's last line
};

// The planned cells with no cert file in `dir`: a lock file with a live holder is running, one
// whose holder is gone is a stale lock, a server log without a lock is a run that failed, and
// nothing at all is missing.
std::vector<PlanCellStatus> plan_cells_without_cert(const core::SweepPlan& plan,
                                                    const std::string& dir);

// The plan file --plan names; bi::Error(Usage) "`plan`: ..." when it cannot be read.
core::SweepPlan read_plan_option(const std::string& path);

// "plan ID: K of M cell(s) certified in DIR" and a line per cell without a cert (its state, file
// and detail); `dir` empty: the plan's own directory. Lines end in '\n'; the first is empty.
std::string describe_plan_status(const core::SweepPlan& plan, const std::string& dir);

}  // namespace bi::driver
