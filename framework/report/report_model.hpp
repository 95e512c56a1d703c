// The report model: every cert named on the command line (files, or directories of *.json),
// loaded and judged once by trust::judge, for the renderers (text, csv, markdown, junit, html).
// A renderer never opens a file itself; new columns or sections extend ReportEntry.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cert.hpp"
#include "core/json.hpp"
#include "trust/judge.hpp"

namespace bi::report {

// One file as trust::judge judged it: every command that reads certs agrees on what it is.
using ReportEntry = trust::Judgement;

struct ReportModel {
    std::vector<ReportEntry> entries;  // in the order the paths expanded to
    // Attestations (bi-run attest's envelopes) among the files: about a cert, not one; noted only.
    std::vector<ReportEntry> attestations;
    // Baseline check reports (docs/baseline.md), intact or not: their own table.
    std::vector<ReportEntry> checks;
    // Stored baselines: the reference a check reads, not a result; noted only (an edited one is
    // reported as a file the report cannot rely on).
    std::vector<ReportEntry> baselines;
};

// Directories stand for the *.json files directly inside them, in name order.
std::vector<std::string> expand_paths(const std::vector<std::string>& paths);

// Loads and judges every file; never throws for a bad file (it becomes an entry with a problem).
ReportModel load_report(const std::vector<std::string>& paths,
                        const trust::JudgeOptions& options = {});

// The trusted cells of one ctx whose certs hold one and the same cache check: the cache arm runs
// on the 1-slot server once per ctx, so every N of a sweep carries it; a check that differs (a
// cert of another run) is a group of its own.
struct CacheGroup {
    const ReportEntry* first = nullptr;  // the group's first cell in N order: where its detail is
    std::vector<std::int64_t> ns;        // the N of every cell in the group, ascending

    const core::CacheCheck& check() const { return *first->cert().cache_check; }
};

// The determinism side a cert ran on: its run.determinism ("on" or "off"), else "on" for a
// `__det.json` file, else "" (the mode was not asked for).
std::string determinism_side(const ReportEntry& entry);

// One model's cells of one determinism side as a ctx x N grid. The two sides of
// `--determinism both` are two configurations, so two grids.
struct ModelGrid {
    std::string model;
    std::string determinism;         // determinism_side() of every cert in the grid
    std::vector<std::int64_t> ctxs;  // ascending
    std::vector<std::int64_t> ns;    // ascending
    std::map<std::pair<std::int64_t, std::int64_t>, const ReportEntry*> cells;  // (ctx, N)
    // Cells that more than one trusted cert claims: every such entry but the one shown, in file
    // order. A cell in conflict is shown by its worst verdict (verdict_rank; the first file among
    // equals) and is no GREEN for the largest-N answer.
    std::vector<const ReportEntry*> conflicts;
    // Each ctx whose trusted cells hold a cache check (--cache-arm): its groups, in N order.
    std::map<std::int64_t, std::vector<CacheGroup>> cache;

    const ReportEntry* at(std::int64_t ctx, std::int64_t n) const;
    // Whether a second trusted cert claims the cell.
    bool contested(std::int64_t ctx, std::int64_t n) const;
    // Every cert of the cell: the one shown first, then its conflicts in file order; empty when
    // the cell was not measured.
    std::vector<const ReportEntry*> all_at(std::int64_t ctx, std::int64_t n) const;
    // The model's name, with " (determinism mode on)" or " (determinism mode off)" for a side.
    std::string title() const;
};

// Grids of every model that has a cert, models in name order, then the side: "", "off", "on".
std::vector<ModelGrid> model_grids(const ReportModel& model);

// The largest N such that it and every smaller N measured are trusted GREENs (none held back by
// a RED in its history, core::sticky_red_reasons) at every ctx the grid measured (a server run at N
// also batches 2..N-1); never extrapolated: an N missing at some ctx does not qualify. nullopt when
// no N does.
std::optional<std::int64_t> largest_green_n(const ModelGrid& grid);

// The same rule with the GREEN a cell needs given by `counts`: the largest N such that it and
// every smaller N measured are uncontested cells that `counts` accepts at every ctx measured.
std::optional<std::int64_t> largest_safe_n(const ModelGrid& grid,
                                           const std::function<bool(const ReportEntry&)>& counts);

// The N in 2..n-1 the grid never measured, ascending.
std::vector<std::int64_t> unmeasured_below(const ModelGrid& grid, std::int64_t n);

// One line per cert that contests a cell: "two certs for tiny ctx 512 N 2: a.json and z.json
// (the matrix shows the worst, RED of z.json; that cell answers no largest N)".
std::vector<std::string> conflict_notes(const ModelGrid& grid);

// "largest N that is GREEN, with every smaller N measured, at every ctx measured (512, 1024): 4
// (N 3 never measured)" / "... : none".
std::string largest_green_line(const ModelGrid& grid);

// The verdict headline of an entry with a cert, with the promotion it earned; for a cert that
// fails its digest, signature or its own evidence, "INVALID (digest mismatch), claims GREEN
// (...)": every format says INVALID first.
std::string entry_headline(const ReportEntry& entry);

// The reasons that decided the verdict: the lines of the rule the cert records (verdict.rule),
// its own line first, without the closing "verdict ..." line (at most `limit`); for a green,
// its closing line.
std::vector<std::string> deciding_reasons(const core::Cert& cert, std::size_t limit = 3);

// The cert's cache check as its status word (SAME, CHANGED, DRIFT ONLY, NOT COMPARABLE), "-"
// when it has none.
std::string cache_word(const core::Cert& cert);

// The cache column of a grid's ctx row: the status word of each group, "SAME / CHANGED" when
// certs of one ctx disagree; "-" when the row has none.
std::string cache_row_word(const std::vector<CacheGroup>& groups);

// The status that answers for a row's groups, the most severe first: CHANGED, NOT COMPARABLE,
// DRIFT ONLY, SAME. `groups` must not be empty.
core::BaselineStatus cache_row_status(const std::vector<CacheGroup>& groups);

// "id3 in C2: extracted_answer \"answer-id3\" → \"moved\"": the invariant fields that
// differed between A and the first C pass each id diverged in, at most `limit` lines.
std::vector<std::string> changed_fields(const core::Cert& cert, std::size_t limit);

// `text` with every character but letters, digits, '-' and '_' made '_': a piece of an anchor.
std::string anchor_word(std::string_view text);

// A stable anchor for a cell, its cert's file name less ".json": "cell-tiny_rand-256__ctx512__N4",
// "cell-llama3.1~3A8b__ctx512__N2".
std::string cell_anchor(const core::Cert& cert);

}  // namespace bi::report
