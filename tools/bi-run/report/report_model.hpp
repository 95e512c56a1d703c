// The report model: every cert named on the command line (files, or directories of *.json),
// loaded once and judged once, for the renderers (text, csv, markdown, junit, html) to read.
// A renderer never opens a file itself; new columns or sections extend ReportEntry.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/cert.hpp"
#include "core/json.hpp"
#include "io/cert_io.hpp"
#include "io/upstream_cert.hpp"

namespace bi::cli::report {

enum class EntryState {
    Usable,        // a cert that agrees with itself (its digest may still be broken)
    Unreadable,    // missing, not a regular file, not JSON
    NotACert,      // JSON, but not a bi-cert/1 document
    Inconsistent,  // a cert whose verdict or gates are not what its own evidence gives
    Upstream,      // a cert of the upstream Python tool: shown with its words, never promotable
};

struct ReportEntry {
    std::string path;
    EntryState state = EntryState::Unreadable;
    std::string problem;  // one line naming the file, set when state is not Usable
    io::LoadedCert
        loaded;  // document always for NotACert/Usable/Inconsistent; cert for the last two
    core::Promotion promotion;
    std::optional<io::UpstreamCert> upstream;  // set when state is Upstream

    bool has_cert() const {
        return state == EntryState::Usable || state == EntryState::Inconsistent;
    }
    const core::Cert& cert() const { return loaded.cert; }
    // A usable cert with an intact digest: the only kind whose verdict a report relies on.
    bool trusted() const { return state == EntryState::Usable && loaded.digest_intact; }
};

struct ReportModel {
    std::vector<ReportEntry> entries;  // in the order the paths expanded to
};

// Directories stand for the *.json files directly inside them, in name order.
std::vector<std::string> expand_paths(const std::vector<std::string>& paths);

// Loads and judges every file; never throws for a bad file (it becomes an entry with a problem).
ReportModel load_report(const std::vector<std::string>& paths);

// One model's cells as a ctx x N grid (a cell measured twice keeps the last file).
struct ModelGrid {
    std::string model;
    std::vector<std::int64_t> ctxs;                                             // ascending
    std::vector<std::int64_t> ns;                                               // ascending
    std::map<std::pair<std::int64_t, std::int64_t>, const ReportEntry*> cells;  // (ctx, N)

    const ReportEntry* at(std::int64_t ctx, std::int64_t n) const;
};

// Grids of every model that has a cert, models in name order.
std::vector<ModelGrid> model_grids(const ReportModel& model);

// The largest N whose cell is a trusted GREEN at every ctx the grid measured; never
// extrapolated: an N missing at some ctx does not qualify. nullopt when no N does.
std::optional<std::int64_t> largest_green_n(const ModelGrid& grid);

// "largest N that is GREEN at every ctx measured (512, 1024): 4" / "... : none".
std::string largest_green_line(const ModelGrid& grid);

// The verdict headline of an entry with a cert, with the promotion it earned.
std::string entry_headline(const ReportEntry& entry);

// The reasons that decided the verdict: the fired rule's lines just before the closing
// "verdict ..." line, the rule's own line first (at most `limit`); for a green, its closing line.
std::vector<std::string> deciding_reasons(const core::Cert& cert, std::size_t limit = 3);

// "id3 in C2: extracted_answer \"answer-id3\" → \"moved\"": the invariant fields that
// differed between A and the first C pass each id diverged in, at most `limit` lines.
std::vector<std::string> changed_fields(const core::Cert& cert, std::size_t limit);

// A stable anchor for a cell: "cell-tiny_rand-256__ctx512__N4".
std::string cell_anchor(const core::Cert& cert);

}  // namespace bi::cli::report
