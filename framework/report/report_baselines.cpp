#include "report_baselines.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <tuple>

#include "baseline_text.hpp"
#include "core/text.hpp"
#include "io/json_text.hpp"
#include "markup.hpp"
#include "report_html.hpp"
#include "report_markdown.hpp"

namespace bi::report {

namespace {

constexpr std::size_t kMaxIdsShown = 50;

std::string esc(std::string_view text) {
    return escape_markup(text);
}

std::string value_text(const core::Json& value) {
    return value.is_string() ? value.as_string() : io::to_json_text(value);
}

// 16 hex digits: enough to tell builds apart in a table; the check report holds the whole hash.
std::string short_hash(const std::optional<std::string>& sha256) {
    if (!sha256) return "-";
    return sha256->size() > 16 ? sha256->substr(0, 16) + "…" : *sha256;
}

std::string joined(const std::vector<std::string>& words) {
    return words.empty() ? "(none)" : core::join(words);
}

std::string host_words(const core::HostRecord& host) {
    std::string words =
        host.hostname.value_or("?") + ": " + host.cpu + " x" + std::to_string(host.n_cpus);
    for (const auto& gpu : host.gpus) words += ", " + gpu;
    if (host.gpu_driver) words += " (driver " + *host.gpu_driver + ")";
    return words;
}

std::string basename(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The CSS class of a check's status, in the verdicts' colours: SAME green, CHANGED red, DRIFT
// ONLY amber, NOT COMPARABLE grey, a file not to rely on purple.
std::string status_class(const ReportEntry& entry) {
    return entry.trusted_check() ? check_status_class(entry.check->value->status) : "v-invalid";
}

// The ids a reader wants to see texts for: changed first, then drifted (an id whose tokens and
// logprobs both moved is listed once), as the report lists them.
std::vector<std::string> moved_ids(const core::PairReport& report) {
    std::vector<std::string> ids = report.divergent_ids;
    for (const auto* list : {&report.token_only_ids, &report.logprob_drift_ids})
        for (const auto& id : *list)
            if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    return ids;
}

std::string id_anchor(const std::string& check, std::size_t index) {
    return check + "-id-" + std::to_string(index);
}

void render_side_rows(const core::BaselineCheck& c, std::ostream& out) {
    out << "<table class=\"gates\"><tr><th></th><th>baseline</th><th>now</th></tr>\n";
    const auto row = [&out](const char* what, const std::string& a, const std::string& b) {
        out << "<tr><td>" << what << "</td><td class=\"mono\">" << esc(a)
            << "</td><td class=\"mono\">" << esc(b) << "</td></tr>\n";
    };
    const auto& a = c.baseline;
    const auto& b = c.current;
    row("checked", a.ts_utc, b.ts_utc);
    row("build", build_words(a), build_words(b));
    row("binary", a.server.launch.binary, b.server.launch.binary);
    row("binary sha256", short_hash(a.server.launch.binary_sha256),
        short_hash(b.server.launch.binary_sha256));
    row("host", host_words(a.host), host_words(b.host));
    row("server flags", joined(a.server_flags), joined(b.server_flags));
    row("KV cache", a.kv_label, b.kv_label);
    row("model sha256", short_hash(a.model_file.sha256), short_hash(b.model_file.sha256));
    row("answers ok", std::to_string(a.n_ok) + " of " + std::to_string(a.n_items),
        std::to_string(b.n_ok) + " of " + std::to_string(b.n_items));
    row("A' repeated A", a.repeat.exact() ? "exactly" : "NOT exactly",
        b.repeat.exact() ? "exactly" : "NOT exactly");
    out << "</table>\n";
}

// One moved id: its class, where it first differs, and both texts side by side.
void render_moved_id(const core::BaselineCheck& check, const std::string& id,
                     const std::string& anchor, std::ostream& out) {
    const core::PairReport& report = *check.comparison;
    const bool changed = std::find(report.divergent_ids.begin(), report.divergent_ids.end(), id) !=
                         report.divergent_ids.end();
    out << "<div class=\"div\" id=\"" << escape_attribute(anchor)
        << "\"><h5 class=\"mono\" style=\"margin:0 0 4px;font-size:14px\">" << esc(id)
        << " <span class=\"meta\">" << (changed ? "changed" : "drifted") << "</span></h5>";
    if (const auto token = report.first_divergent_token.find(id);
        token != report.first_divergent_token.end())
        out << "<span class=\"tag\">first divergent token " << token->second << "</span>";
    const auto f = report.forensics.find(id);
    if (f != report.forensics.end()) out << forensics_tags(f->second);
    if (const auto change = check.generation_changes.find(id);
        change != check.generation_changes.end())
        out << "<span class=\"tag warn\">" << esc(change->second) << "</span>";
    if (f != report.forensics.end() && f->second.excerpt) {
        const auto& e = *f->second.excerpt;
        const std::string where =
            e.truncated ? " &middot; content from byte " + std::to_string(e.offset) + " (excerpt)"
                        : " &middot; content";
        out << side_by_side("baseline" + where, e.a, "now" + where, e.c);
    } else if (f == report.forensics.end()) {
        out << "<div class=\"meta\">the texts and tokens are equal; "
            << (check.generation_changes.count(id) ? std::string("what else moved is tagged above")
                : report.logprob_deltas.count(id)
                    ? "only the logprobs moved, by up to " +
                          core::format_general(report.logprob_deltas.at(id), 3)
                    : std::string("only the logprobs moved"))
            << "</div>";
    }
    std::string fields;
    for (const auto& row : report.rows)
        if (row.test_id == id)
            fields += "<tr><td class=\"mono\">" + esc(row.field) + "</td><td class=\"mono\">" +
                      esc(value_text(row.left)) + "</td><td class=\"mono\">" +
                      esc(value_text(row.right)) + "</td></tr>";
    if (!fields.empty())
        out << "<table class=\"gates\"><tr><th>field that differed</th><th>baseline</th><th>now"
               "</th></tr>"
            << fields << "</table>";
    out << "</div>\n";
}

void render_check_detail(const ReportEntry& entry, const std::string& anchor, std::ostream& out) {
    const core::BaselineCheck& c = *entry.check->value;
    out << "<section class=\"card cell\" id=\"" << escape_attribute(anchor) << "\">\n<h3>"
        << "<span class=\"badge " << status_class(entry) << "\">"
        << (entry.trusted_check() ? std::string(core::status_word(c.status)) : "INVALID")
        << "</span>baseline check &middot; " << esc(c.model) << " &middot; ctx " << c.ctx
        << "</h3>\n<p class=\"meta\"><code>" << esc(entry.path) << "</code> ("
        << esc(entry.signature.line) << ") &middot; against baseline <code>"
        << esc(c.baseline_file.path) << "</code> (" << esc(c.baseline_file.signature) << ")</p>\n";
    if (!entry.trusted_check()) out << "<p class=\"bad\">" << esc(entry.problem) << "</p>\n";
    out << "<h4>Reasons</h4><ol>";
    for (const auto& reason : c.reasons) out << "<li>" << esc(reason) << "</li>";
    out << "</ol>\n<h4>Both sides</h4>";
    render_side_rows(c, out);
    if (!c.differences.empty()) {
        out << "<h4>What differs</h4><ul>";
        for (const auto& line : c.differences) out << "<li>" << esc(line) << "</li>";
        out << "</ul>\n";
    }
    if (!c.comparison) {
        out << "</section>\n";
        return;
    }
    const auto ids = moved_ids(*c.comparison);
    if (!ids.empty()) {
        out << "<h4>Ids that moved (" << ids.size() << ")</h4><p class=\"ids\">";
        for (std::size_t i = 0; i < ids.size() && i < kMaxIdsShown; ++i)
            out << "<a class=\"mono\" href=\"#" << escape_attribute(id_anchor(anchor, i)) << "\">"
                << esc(ids[i]) << "</a> ";
        out << "</p>\n";
        for (std::size_t i = 0; i < ids.size() && i < kMaxIdsShown; ++i)
            render_moved_id(c, ids[i], id_anchor(anchor, i), out);
        if (ids.size() > kMaxIdsShown)
            out << "<p class=\"meta\">" << ids.size() - kMaxIdsShown << " more not shown</p>";
    }
    out << "</section>\n";
}

}  // namespace

std::string build_words(const core::CheckSide& side) {
    const auto& launch = side.server.launch;
    // Forks share their binary's name; the kind tells them apart.
    const std::string name = side.server.kind ? side.server.kind->name : basename(launch.binary);
    if (side.server.build_info.is_string() && !side.server.build_info.as_string().empty())
        return name + " " + side.server.build_info.as_string();
    if (const auto version = version_line(launch); !version.empty())
        return name + " (" + version + ")";
    return name + (launch.binary_sha256 ? " sha256 " + launch.binary_sha256->substr(0, 12) : "");
}

std::vector<CheckRow> check_rows(const ReportModel& model) {
    std::vector<CheckRow> rows;
    for (const auto& entry : model.checks) {
        CheckRow row;
        row.entry = &entry;
        if (!entry.check->value) {  // not well-formed: only its path can be named
            row.model = "?";
            row.status = "INVALID (" + std::string(trust::name(entry.kind)) + ")";
            rows.push_back(std::move(row));
            continue;
        }
        const auto& c = *entry.check->value;
        row.model = c.model;
        row.ctx = c.ctx;
        row.status = entry.trusted_check()
                         ? std::string(core::status_word(c.status))
                         : "INVALID (" + std::string(trust::name(entry.kind)) + "), claims " +
                               std::string(core::status_word(c.status));
        if (c.comparison) {
            row.changed = c.comparison->divergent_ids.size();
            row.drifted = moved_ids(*c.comparison).size() - row.changed;
        }
        row.baseline = build_words(c.baseline);
        row.current = build_words(c.current);
        row.checked = c.ts_utc;
        rows.push_back(std::move(row));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const CheckRow& a, const CheckRow& b) {
        return std::tie(a.model, a.ctx, a.checked) < std::tie(b.model, b.ctx, b.checked);
    });
    return rows;
}

void render_checks_text(const ReportModel& model, std::ostream& out) {
    const auto rows = check_rows(model);
    if (rows.empty()) return;
    out << "\nbaseline checks\n";
    char line[512];
    std::snprintf(line, sizeof line, "  %-24s %-6s %-16s %-8s %-8s %-28s %s\n", "model", "ctx",
                  "status", "changed", "drifted", "baseline", "now");
    out << line;
    for (const auto& r : rows) {
        std::snprintf(line, sizeof line, "  %-24s %-6lld %-16s %-8zu %-8zu %-28s %s\n",
                      r.model.c_str(), static_cast<long long>(r.ctx), r.status.c_str(), r.changed,
                      r.drifted, r.baseline.c_str(), r.current.c_str());
        out << line;
    }
}

std::string render_checks_markdown(const ReportModel& model) {
    const auto rows = check_rows(model);
    if (rows.empty()) return "";
    std::ostringstream out;
    out << "## Baseline checks\n\n| model | ctx | status | changed | drifted | baseline | now |\n"
           "|---|---:|---|---:|---:|---|---|\n";
    for (const auto& r : rows)
        out << "| " << escape_markdown(r.model) << " | " << r.ctx << " | **"
            << escape_markdown(r.status) << "** | " << r.changed << " | " << r.drifted << " | "
            << escape_markdown(r.baseline) << " | " << escape_markdown(r.current) << " |\n";
    out << "\n";
    for (const auto& r : rows) {
        if (!r.entry->check->value) {
            out << "- **ERROR** " << escape_markdown(r.entry->problem) << "\n";
            continue;
        }
        const auto& c = *r.entry->check->value;
        if (r.entry->trusted_check() && c.status == core::BaselineStatus::Same) continue;
        out << "- **" << escape_markdown(r.status) << "** " << escape_markdown(r.model) << " ctx "
            << r.ctx << ": "
            << escape_markdown(r.entry->trusted_check() ? c.reasons.front() : r.entry->problem)
            << "\n";
    }
    return out.str() + "\n";
}

std::string check_anchor(const core::BaselineCheck& check, std::size_t index) {
    return "check-" + anchor_word(core::check_file_name(check.model, check.ctx)) + "-" +
           std::to_string(index);
}

std::string render_checks_html(const ReportModel& model) {
    const auto rows = check_rows(model);
    if (rows.empty()) return "";
    std::ostringstream table;
    std::ostringstream details;
    table << "<section class=\"card\"><h2>Baseline checks</h2>\n<p class=\"sub\">The answers of "
             "a build, backend or host against a stored serial baseline (arm A): SAME, CHANGED, "
             "DRIFT ONLY or NOT COMPARABLE. A check says nothing about batching.</p>\n"
             "<table class=\"gates\"><tr><th>model</th><th>ctx</th><th>status</th>"
             "<th>changed</th><th>drifted</th><th>baseline</th><th>now</th><th>checked</th></tr>\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        if (!r.entry->check->value) {
            table << "<tr><td colspan=\"8\"><span class=\"badge v-invalid\">INVALID</span>"
                  << esc(r.entry->problem) << "</td></tr>\n";
            continue;
        }
        const std::string anchor = check_anchor(*r.entry->check->value, i);
        table << "<tr><td><a href=\"#" << escape_attribute(anchor) << "\">" << esc(r.model)
              << "</a></td><td>" << r.ctx << "</td><td><span class=\"badge "
              << status_class(*r.entry) << "\">" << esc(r.status) << "</span></td><td>" << r.changed
              << "</td><td>" << r.drifted << "</td><td class=\"mono\">" << esc(r.baseline)
              << "</td><td class=\"mono\">" << esc(r.current) << "</td><td>" << esc(r.checked)
              << "</td></tr>\n";
        render_check_detail(*r.entry, anchor, details);
    }
    table << "</table></section>\n";
    return table.str() + details.str();
}

}  // namespace bi::report
