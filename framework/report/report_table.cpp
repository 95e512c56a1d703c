#include "report_table.hpp"

#include <cstdio>

#include "core/cert_consistency.hpp"
#include "core/cert_history.hpp"
#include "recommendation.hpp"
#include "sensitivity_text.hpp"
#include "throughput_text.hpp"
#include "verdict_headline.hpp"

namespace bi::report {

namespace {

// The bound as the cert states it: n and divergences, then the upper bound or the observed rate.
core::Json bound_json(const core::RateBound& bound) {
    core::Json out = core::Json::Object{{"n", bound.n}, {"divergent", bound.divergent}};
    if (bound.clopper_pearson_upper) out.set("clopper_pearson_upper", *bound.clopper_pearson_upper);
    if (bound.observed_rate) out.set("observed_rate", *bound.observed_rate);
    return out;
}

// An upstream cert's own words, marked as such; never promotable here.
TableRow upstream_row(const ReportEntry& entry) {
    const auto& u = *entry.upstream;
    TableRow row;
    row.entry = &entry;
    row.model = u.model;
    row.ctx = u.ctx;
    row.n = u.dispatch_n;
    row.verdict = upstream_headline(u) + " [" + trust::kUpstreamLabel + "]";
    row.source = u.source.empty() ? "?" : u.source;
    row.diverged = u.n_divergent;
    row.per_trial = row.per_prompt = "-";
    return row;
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return quoted + "\"";
}

// The cert's cache_check object as the file holds it (the cert re-renders to its document), or
// null for a cert run without --cache-arm.
core::Json cache_json(const ReportEntry& entry) {
    const core::Json* check = entry.loaded.document.find("cache_check");
    return check && entry.cert().cache_check ? *check : core::Json();
}

core::Json reasons_json(const ReportEntry& entry) {
    core::Json out = core::Json::array();
    for (const auto& reason : entry.promotion.reasons) out.push_back(reason);
    return out;
}

}  // namespace

std::vector<TableRow> table_rows(const ReportModel& model) {
    std::vector<TableRow> rows;
    for (const auto& entry : model.entries) {
        if (entry.kind == trust::FileKind::Upstream) {
            rows.push_back(upstream_row(entry));
            continue;
        }
        if (!entry.has_cert()) continue;
        const core::Cert& c = entry.cert();
        TableRow row;
        row.entry = &entry;
        row.model = c.cell.model;
        row.ctx = c.cell.ctx;
        row.n = c.cell.dispatch_n;
        row.verdict = entry_headline(entry);
        if (const std::string side = determinism_side(entry); !side.empty())
            row.verdict += " [determinism " + side + "]";
        // A verdict a RED of its configuration's history holds back counts for no N.
        if (entry.trusted() && !core::sticky_red_reasons(c).empty())
            row.verdict += " [held back by its history]";
        row.source = std::string(core::name(c.source));
        row.promotable = entry.promotion.promotable;
        row.diverged = c.divergence.ac.divergent_ids.size();
        row.per_trial = bound_cell(c.sensitivity.per_trial);
        row.per_prompt = bound_cell(c.sensitivity.per_prompt);
        row.history = core::flaky_note(c);
        row.replaced = core::replaced_note(c);
        row.speedup = speedup_text(c.throughput);
        row.cache = cache_word(c);
        rows.push_back(std::move(row));
    }
    return rows;
}

void render_text(const ReportModel& model, std::ostream& out) {
    char line[1024];
    std::snprintf(line, sizeof line, "%-32s %7s %4s  %-38s %-6s %-10s %8s %-16s %-16s %-8s %s\n",
                  "model", "ctx", "N", "verdict", "source", "promotable", "diverged", "per_trial",
                  "per_prompt", "speedup", "cache");
    out << line;
    for (const auto& r : table_rows(model)) {
        std::snprintf(
            line, sizeof line, "%-32s %7lld %4lld  %-38s %-6s %-10s %8zu %-16s %-16s %-8s %s\n",
            r.model.c_str(), static_cast<long long>(r.ctx), static_cast<long long>(r.n),
            r.verdict.c_str(), r.source.c_str(), r.promotable ? "yes" : "no", r.diverged,
            r.per_trial.c_str(), r.per_prompt.c_str(), r.speedup.c_str(), r.cache.c_str());
        out << line;
        if (!r.history.empty()) out << "    " << r.history << "\n";
        if (!r.replaced.empty()) out << "    " << r.replaced << "\n";
    }
    const auto grids = model_grids(model);
    for (const auto& grid : grids) out << grid.title() << ": " << largest_green_line(grid) << "\n";
    for (const auto& pair : determinism_pair_lines(grids)) out << pair << "\n";
    for (const auto& answer : recommendation_lines(grids)) out << answer << "\n";
}

void render_csv(const ReportModel& model, std::ostream& out) {
    out << "model,ctx,N,verdict,source,promotable,diverged,per_trial,per_prompt,history,speedup,"
           "cache\r\n";
    for (const auto& r : table_rows(model))
        out << csv_field(r.model) << ',' << r.ctx << ',' << r.n << ',' << csv_field(r.verdict)
            << ',' << csv_field(r.source) << ',' << (r.promotable ? "yes" : "no") << ','
            << r.diverged << ',' << csv_field(r.per_trial) << ',' << csv_field(r.per_prompt) << ','
            << csv_field(r.history) << ',' << csv_field(r.speedup) << ',' << csv_field(r.cache)
            << "\r\n";
}

core::Json render_json_rows(const ReportModel& model) {
    core::Json rows = core::Json::array();
    // A file that is no cert at all is a row too: every format judges every file.
    for (const auto& entry : model.entries)
        if (!entry.has_cert() && entry.kind != trust::FileKind::Upstream)
            rows.push_back(core::Json::Object{{"path", entry.path},
                                              {"status", "invalid"},
                                              {"file_kind", std::string(trust::name(entry.kind))},
                                              {"problem", entry.problem},
                                              {"promotable", false}});
    for (const auto& r : table_rows(model)) {
        if (const auto& u = r.entry->upstream) {
            rows.push_back(core::Json::Object{{"path", r.entry->path},
                                              {"model", r.model},
                                              {"ctx", r.ctx},
                                              {"dispatch_n", r.n},
                                              {"status", u->status},
                                              {"source", r.source},
                                              {"promotable", false},
                                              {"digest_intact", false},
                                              {"upstream", trust::kUpstreamLabel},
                                              {"n_divergent", r.diverged}});
            continue;
        }
        const core::Cert& c = r.entry->cert();
        rows.push_back(core::Json::Object{
            {"path", r.entry->path},
            {"model", r.model},
            {"ctx", r.ctx},
            {"dispatch_n", r.n},
            {"status", r.entry->trusted() ? std::string(core::name(c.verdict.status))
                                          : std::string("invalid")},
            {"claimed_status", std::string(core::name(c.verdict.status))},
            {"source", r.source},
            {"promotable", r.promotable},
            {"digest_intact", r.entry->loaded.digest_intact},
            {"file_kind", std::string(trust::name(r.entry->kind))},
            {"not_promotable_because", reasons_json(*r.entry)},
            {"rule", core::deciding_rule(c).name},
            {"n_divergent", r.diverged},
            {"history", r.history},
            {"replaced", r.replaced},
            {"per_trial", bound_json(c.sensitivity.per_trial)},
            {"per_prompt", bound_json(c.sensitivity.per_prompt)},
            {"determinism", determinism_side(*r.entry)},
            {"speedup", c.throughput && c.throughput->speedup()
                            ? core::Json(*c.throughput->speedup())
                            : core::Json()},
            {"cache_check", cache_json(*r.entry)}});
    }
    return rows;
}

}  // namespace bi::report
