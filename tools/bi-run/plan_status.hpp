// The plan section of bi-run report: which plan the directory was filled from, and every cell
// of it that has no cert yet, with what the directory says about it.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/sweep_plan.hpp"

namespace bi::cli {

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

// The plan's out_dir; bi::Error(Usage) naming --plan when the plan cannot be read.
std::string plan_out_dir(const std::string& plan_path);

// Reads the plan and prints its id, how many of its cells have certs in `dir` and one line per
// cell without one. Throws bi::Error(Usage) naming --plan when the plan cannot be read.
void print_plan_status(const std::string& plan_path, const std::string& dir, std::ostream& out);

}  // namespace bi::cli
