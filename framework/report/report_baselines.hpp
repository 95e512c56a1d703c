// The baseline checks of a report (docs/baseline.md): one row per check report, for the text
// table, Markdown and JUnit, and the HTML section with each changed id's excerpt pair. A check
// answers another question than a cell (same answers as a stored baseline, across builds), so
// it is its own table, never a cell of the matrix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "report_model.hpp"

namespace bi::report {

struct CheckRow {
    const ReportEntry* entry = nullptr;
    std::string model;
    std::int64_t ctx = 0;
    std::string status;  // "SAME", ..., or "INVALID (digest mismatch)" for a file not to rely on
    std::size_t changed = 0;  // ids whose invariant fields moved
    std::size_t drifted = 0;  // ids whose text, tokens or logprobs moved, invariants held
    std::string baseline;     // the baseline side's build, in a few words
    std::string current;      // the checked side's
    std::string checked;      // when the check ran
};

// One row per check report, intact or not, by model, ctx and time.
std::vector<CheckRow> check_rows(const ReportModel& model);

// The kind (else the binary's name) and "b6133-1a2b3c4" (llama-server's build_info), else the
// version's first line, else the binary's hash: "ik_llama.cpp (version: 4100 (1a2b3c4))".
std::string build_words(const core::CheckSide& side);

// The "baseline checks" table (nothing when there is none), after the cells' table.
void render_checks_text(const ReportModel& model, std::ostream& out);

// "## Baseline checks" with one line per check and its deciding reason ("" when none).
std::string render_checks_markdown(const ReportModel& model);

// The HTML section: a table of the checks, each linking to its detail (reasons, both sides,
// what differs, and per changed or drifted id the baseline and current texts side by side, the
// id in the table linking to that pair). "" when there is none.
std::string render_checks_html(const ReportModel& model);

// A stable anchor for a check: "check-tiny__ctx512-2" (its position keeps two of one cell apart).
std::string check_anchor(const core::BaselineCheck& check, std::size_t index);

}  // namespace bi::report
