#include "report_model.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <utility>

#include "core/cert_consistency.hpp"
#include "core/cert_history.hpp"
#include "core/text.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "verdict_headline.hpp"

namespace bi::report {

namespace {

template <typename T>
std::vector<T> sorted_unique(std::set<T> values) {
    return std::vector<T>(values.begin(), values.end());
}

// Two cache checks are one when they say the same: status, reasons, and every count and list.
bool same_cache_check(const core::CacheCheck& a, const core::CacheCheck& b) {
    return a.status == b.status && a.reasons == b.reasons && a.witness == b.witness &&
           a.n_ids == b.n_ids && a.n_served == b.n_served && a.n_cuts == b.n_cuts &&
           a.not_exercised == b.not_exercised && a.changed_ids == b.changed_ids &&
           a.drift_ids == b.drift_ids && a.cuts_note == b.cuts_note;
}

// The grid's trusted cells that hold a cache check, grouped per ctx by the check they hold.
std::map<std::int64_t, std::vector<CacheGroup>> cache_groups(const ModelGrid& grid) {
    std::map<std::int64_t, std::vector<CacheGroup>> rows;
    for (auto ctx : grid.ctxs)
        for (auto n : grid.ns) {
            const ReportEntry* entry = grid.at(ctx, n);
            if (!entry || !entry->trusted() || !entry->cert().cache_check) continue;
            auto& groups = rows[ctx];
            const auto same = std::find_if(groups.begin(), groups.end(), [&](const auto& group) {
                return same_cache_check(group.check(), *entry->cert().cache_check);
            });
            if (same == groups.end())
                groups.push_back({entry, {n}});
            else
                same->ns.push_back(n);
        }
    return rows;
}

// How much a cache check asks of its reader: a change first, then no answer, then drift.
int severity(core::BaselineStatus status) {
    switch (status) {
        case core::BaselineStatus::Changed:
            return 3;
        case core::BaselineStatus::NotComparable:
            return 2;
        case core::BaselineStatus::DriftOnly:
            return 1;
        case core::BaselineStatus::Same:
            break;
    }
    return 0;
}

}  // namespace

std::vector<std::string> expand_paths(const std::vector<std::string>& paths) {
    std::vector<std::string> files;
    for (const auto& path : paths) {
        std::error_code ec;
        if (!std::filesystem::is_directory(path, ec)) {
            files.push_back(path);
            continue;
        }
        std::vector<std::string> inside;
        for (const auto& entry : std::filesystem::directory_iterator(path))
            if (entry.is_regular_file() && entry.path().extension() == ".json")
                inside.push_back(entry.path().string());
        std::sort(inside.begin(), inside.end());
        files.insert(files.end(), inside.begin(), inside.end());
    }
    return files;
}

ReportModel load_report(const std::vector<std::string>& paths, const trust::JudgeOptions& options) {
    ReportModel model;
    for (const auto& path : expand_paths(paths)) {
        auto judgement = trust::judge(path, options);
        auto& into = judgement.kind == trust::FileKind::Attestation ? model.attestations
                     : judgement.check                              ? model.checks
                     : judgement.baseline                           ? model.baselines
                                                                    : model.entries;
        into.push_back(std::move(judgement));
    }
    return model;
}

std::string determinism_side(const ReportEntry& entry) {
    const auto& run = entry.cert().run;
    if (run && run->determinism) return *run->determinism;
    const std::string det_suffix = "__det.json";
    const std::string& path = entry.path;
    const bool det_file =
        path.size() >= det_suffix.size() &&
        path.compare(path.size() - det_suffix.size(), det_suffix.size(), det_suffix) == 0;
    return det_file ? "on" : "";
}

const ReportEntry* ModelGrid::at(std::int64_t ctx, std::int64_t n) const {
    const auto found = cells.find({ctx, n});
    return found == cells.end() ? nullptr : found->second;
}

bool ModelGrid::contested(std::int64_t ctx, std::int64_t n) const {
    return std::any_of(conflicts.begin(), conflicts.end(), [&](const auto* other) {
        return other->cert().cell.ctx == ctx && other->cert().cell.dispatch_n == n;
    });
}

std::vector<const ReportEntry*> ModelGrid::all_at(std::int64_t ctx, std::int64_t n) const {
    std::vector<const ReportEntry*> entries;
    const ReportEntry* shown = at(ctx, n);
    if (!shown) return entries;
    entries.push_back(shown);
    for (const auto* other : conflicts)
        if (other->cert().cell.ctx == ctx && other->cert().cell.dispatch_n == n)
            entries.push_back(other);
    // The conflicts in file order: entries are in the order the paths expanded to.
    std::sort(entries.begin() + 1, entries.end());
    return entries;
}

std::vector<std::string> conflict_notes(const ModelGrid& grid) {
    std::vector<std::string> notes;
    for (const auto* other : grid.conflicts) {
        const auto& cell = other->cert().cell;
        const ReportEntry* shown = grid.at(cell.ctx, cell.dispatch_n);
        const auto [first, second] = std::minmax(shown, other);
        notes.push_back("two certs for " + cell.model + " ctx " + std::to_string(cell.ctx) + " N " +
                        std::to_string(cell.dispatch_n) + ": " + first->path + " and " +
                        second->path + " (the matrix shows the worst, " +
                        std::string(verdict_word(shown->cert().verdict.status)) + " of " +
                        shown->path + "; that cell answers no largest N)");
    }
    return notes;
}

std::string ModelGrid::title() const {
    return determinism.empty() ? model : model + " (determinism mode " + determinism + ")";
}

std::vector<ModelGrid> model_grids(const ReportModel& model) {
    // "" sorts before "off", which sorts before "on": the mode-less grid, then off, then on.
    using Key = std::pair<std::string, std::string>;
    std::map<Key, ModelGrid> grids;
    std::map<Key, std::pair<std::set<std::int64_t>, std::set<std::int64_t>>> axes;
    for (const auto& entry : model.entries) {
        if (!entry.has_cert()) continue;
        const auto& cell = entry.cert().cell;
        const Key key{cell.model, determinism_side(entry)};
        auto& grid = grids[key];
        grid.model = cell.model;
        grid.determinism = key.second;
        // A cert a reader can rely on takes the cell from one that is invalid (which is
        // reported on its own); two such certs of one cell are a conflict.
        auto [at, fresh] = grid.cells.try_emplace({cell.ctx, cell.dispatch_n}, &entry);
        if (!fresh && entry.trusted()) {
            if (!at->second->trusted())
                at->second = &entry;
            else if (verdict_rank(entry.cert().verdict.status) >
                     verdict_rank(at->second->cert().verdict.status))
                grid.conflicts.push_back(std::exchange(at->second, &entry));
            else
                grid.conflicts.push_back(&entry);
        }
        axes[key].first.insert(cell.ctx);
        axes[key].second.insert(cell.dispatch_n);
    }
    std::vector<ModelGrid> out;
    for (auto& [name, grid] : grids) {
        grid.ctxs = sorted_unique(axes[name].first);
        grid.ns = sorted_unique(axes[name].second);
        grid.cache = cache_groups(grid);
        out.push_back(std::move(grid));
    }
    return out;
}

std::optional<std::int64_t> largest_green_n(const ModelGrid& grid) {
    // A GREEN held back by a RED in its configuration's history is no GREEN here either.
    return largest_safe_n(grid, [](const ReportEntry& entry) {
        return entry.trusted() && entry.cert().verdict.status == core::Status::Green &&
               core::sticky_red_reasons(entry.cert()).empty();
    });
}

std::optional<std::int64_t> largest_safe_n(const ModelGrid& grid,
                                           const std::function<bool(const ReportEntry&)>& counts) {
    // A server run with --parallel N also forms batches of every size below N, so an N counts
    // only when every smaller N measured is GREEN too.
    std::optional<std::int64_t> best;
    for (const auto n : grid.ns) {
        const bool everywhere = std::all_of(grid.ctxs.begin(), grid.ctxs.end(), [&](auto ctx) {
            const ReportEntry* entry = grid.at(ctx, n);
            return entry && !grid.contested(ctx, n) && counts(*entry);
        });
        if (!everywhere) break;
        best = n;
    }
    return best;
}

std::vector<std::int64_t> unmeasured_below(const ModelGrid& grid, std::int64_t n) {
    std::vector<std::int64_t> missing;
    for (std::int64_t k = 2; k < n; ++k)
        if (!std::binary_search(grid.ns.begin(), grid.ns.end(), k)) missing.push_back(k);
    return missing;
}

std::string largest_green_line(const ModelGrid& grid) {
    std::string ctxs;
    for (auto ctx : grid.ctxs) ctxs += (ctxs.empty() ? "" : ", ") + std::to_string(ctx);
    const auto n = largest_green_n(grid);
    std::string line =
        "largest N that is GREEN, with every smaller N measured, at every ctx "
        "measured (" +
        ctxs + "): " + (n ? std::to_string(*n) : std::string("none"));
    if (!n) return line;
    std::string missing;
    for (auto k : unmeasured_below(grid, *n))
        missing += (missing.empty() ? "" : ", ") + std::to_string(k);
    return missing.empty() ? line : line + " (N " + missing + " never measured)";
}

std::string entry_headline(const ReportEntry& entry) {
    const auto& v = entry.cert().verdict;
    std::string claimed =
        verdict_headline(v.status, v.divergence_class, v.anomaly, entry.promotion.promotable);
    if (entry.trusted()) return claimed;
    return "INVALID (" + std::string(trust::name(entry.kind)) + "), claims " + claimed;
}

std::vector<std::string> deciding_reasons(const core::Cert& cert, std::size_t limit) {
    const auto& reasons = cert.verdict.decision_reasons;
    if (reasons.empty()) return {};
    const core::FiredRule rule = core::deciding_rule(cert);
    std::size_t begin = std::min(rule.first_reason, reasons.size() - 1);
    std::size_t end = reasons.size();
    // The closing "verdict ..." line restates the status; it is the deciding line only when the
    // rule wrote nothing else (a green).
    if (end - begin > 1 && reasons[end - 1].rfind("verdict ", 0) == 0) --end;
    // The fired rule's own line comes first; the lines after it (forensics, caveats) elaborate.
    end = std::min(end, begin + limit);
    return std::vector<std::string>(reasons.begin() + static_cast<std::ptrdiff_t>(begin),
                                    reasons.begin() + static_cast<std::ptrdiff_t>(end));
}

std::string cache_word(const core::Cert& cert) {
    return cert.cache_check ? std::string(core::status_word(cert.cache_check->status)) : "-";
}

std::string cache_row_word(const std::vector<CacheGroup>& groups) {
    std::vector<std::string> words;
    for (const auto& group : groups) {
        const std::string word(core::status_word(group.check().status));
        if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(word);
    }
    return words.empty() ? "-" : core::join(words, " / ");
}

core::BaselineStatus cache_row_status(const std::vector<CacheGroup>& groups) {
    core::BaselineStatus worst = groups.front().check().status;
    for (const auto& group : groups)
        if (severity(group.check().status) > severity(worst)) worst = group.check().status;
    return worst;
}

std::vector<std::string> changed_fields(const core::Cert& cert, std::size_t limit) {
    std::vector<std::string> lines;
    std::set<std::string> seen;  // "id field": the first pass that shows it
    for (const auto& pass : cert.divergence.ac.per_pass)
        for (const auto& row : pass.rows) {
            if (lines.size() >= limit) return lines;
            if (!seen.insert(row.test_id + " " + row.field).second) continue;
            lines.push_back(row.test_id + " in " + pass.right_arm + ": " + row.field + " " +
                            io::to_json_text(row.left) + " → " + io::to_json_text(row.right));
        }
    return lines;
}

std::string anchor_word(std::string_view text) {
    std::string word;
    for (char ch : text) {
        const bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                           (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
        word += plain ? ch : '_';
    }
    return word;
}

std::string cell_anchor(const core::Cert& cert) {
    // The file name's own characters (core::model_file_stem: letters, digits, - _ . + ~) are
    // all fit for an id and a fragment, so two cells' anchors differ as their file names do.
    const std::string file =
        core::cert_file_name(cert.cell.model, cert.cell.ctx, cert.cell.dispatch_n);
    return "cell-" + file.substr(0, file.size() - 5 /* ".json" */);
}

}  // namespace bi::report
