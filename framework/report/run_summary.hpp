// What a cell command prints when a cell is decided: the verdict line with its reasons and
// bounds (or one JSON line), the sweep's summary table, and the selftest's plain-language
// account. Rendered here from the cert; the commands only print.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/cert.hpp"
#include "core/verdict.hpp"

namespace bi::report {

// One decided cell: its cert as written and where it went.
struct DecidedCell {
    const core::Cert& cert;
    const core::Verdict& verdict;
    std::string cert_path;
    bool promotable = false;
    std::string replaced;  // the cert the run moved to history for this one, and why; "" if none
};

// The verdict headline, model, ctx, N and source, every decision reason, the sensitivity lines
// and the cert's path; lines end in '\n'.
std::string cell_text(const DecidedCell& cell);

// The same as one JSON object on one line (no '\n').
std::string cell_json(const DecidedCell& cell, const core::Json& version = core::Json());

// One row of a sweep's summary: a decided cell, or one it skipped.
struct SweepRow {
    std::int64_t ctx = 0;
    int parallel = 0;
    std::string verdict;  // the headline, or why the cell was skipped
    bool promotable = false;
    std::string speedup = "-";  // C's tokens/s over A's: "2.7x"
    std::string cache = "-";    // the cache check's word (--cache-arm): "SAME", "CHANGED" ...
};

// "summary (MODEL)" and one aligned row per cell; a cache column when some cell has a check.
std::string sweep_table(const std::string& model, const std::vector<SweepRow>& rows);

// A finished selftest.
struct SelftestCell {
    DecidedCell cell;
    std::string binary;
    int parallel = 0;
    std::size_t n_prompts = 0;
    std::int64_t n_predict = 0;
};

// What the verdict means for this server, in one or two sentences.
std::string selftest_interpretation(const core::Verdict& verdict, int parallel);

// Serial reproducibility, B against A, the tokens and logprobs each C pass changed, the
// verdict and what it means; lines end in '\n'.
std::string selftest_text(const SelftestCell& selftest);

// The same facts as one JSON object on one line (no '\n').
std::string selftest_json(const SelftestCell& selftest, const core::Json& version = core::Json());

}  // namespace bi::report
