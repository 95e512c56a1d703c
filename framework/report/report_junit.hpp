// `bi-run report --junit FILE`: one testsuite per model, one testcase per cell. RED is a
// failure, UNVERIFIED skipped, AMBER passes with its caveat in system-out, GREEN passes; a cert
// that fails its digest or disagrees with itself, and a file that is not a cert, is an error.
#pragma once

#include <string>

#include "report_model.hpp"

namespace bi::report {

std::string render_junit(const ReportModel& model);

}  // namespace bi::report
