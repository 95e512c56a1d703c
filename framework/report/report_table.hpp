// The one-row-per-cell table that the text, CSV and JSON outputs share: same cells, same columns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "report_model.hpp"

namespace bi::report {

struct TableRow {
    const ReportEntry* entry = nullptr;
    std::string model;
    std::int64_t ctx = 0;
    std::int64_t n = 0;
    std::string verdict;  // the headline, "[DIGEST MISMATCH]" appended when the digest is broken
    std::string source;
    bool promotable = false;
    std::size_t diverged = 0;
    std::string per_trial;      // bound_cell(): "<=0.0231 n=128", or the observed rate with its n
    std::string per_prompt;     // the same over distinct items, the conservative one
    std::string history;        // "flaky: RED 1 of 3 runs" when the cert's history has a RED, or ""
    std::string replaced;       // core::replaced_note: a cert of another configuration replaced
    std::string speedup = "-";  // C's tokens/s over A's ("1.64x"), from the cert's throughput
    std::string cache = "-";    // the cache check's status word ("CHANGED"), with --cache-arm
};

// One row per usable cert and per upstream cert, in the model's order; other files have no row.
std::vector<TableRow> table_rows(const ReportModel& model);

// The aligned text table with its header line.
void render_text(const ReportModel& model, std::ostream& out);

// RFC 4180 CSV with a header line: model,ctx,N,verdict,source,promotable,diverged,
// per_trial,per_prompt,history,speedup,cache.
void render_csv(const ReportModel& model, std::ostream& out);

// One JSON array, one object per row (path, model, ctx, dispatch_n, status, source,
// promotable, digest_intact, n_divergent, the per_trial / per_prompt bounds as the cert has
// them, speedup, and the cert's whole cache_check object or null).
core::Json render_json_rows(const ReportModel& model);

}  // namespace bi::report
