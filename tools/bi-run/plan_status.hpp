// The plan section of bi-run report: which plan the directory was filled from, and every cell
// of it that has no cert yet, with what the directory says about it.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/sweep_plan.hpp"

namespace bi::cli {

// The plan's out_dir; bi::Error(Usage) naming --plan when the plan cannot be read.
std::string plan_out_dir(const std::string& plan_path);

// Reads the plan and prints its id, how many of its cells have certs in `dir` and one line per
// cell without one. Throws bi::Error(Usage) naming --plan when the plan cannot be read.
void print_plan_status(const std::string& plan_path, const std::string& dir, std::ostream& out);

}  // namespace bi::cli
