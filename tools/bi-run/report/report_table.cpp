#include "report_table.hpp"

#include <cstdio>

namespace bi::cli::report {

namespace {

std::string bound(const core::Cert& cert) {
    const auto& cp = cert.sensitivity.clopper_pearson_upper_95;
    if (!cp) return "-";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4f", *cp);
    return buffer;
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return quoted + "\"";
}

}  // namespace

std::vector<TableRow> table_rows(const ReportModel& model) {
    std::vector<TableRow> rows;
    for (const auto& entry : model.entries) {
        if (entry.state != EntryState::Usable) continue;
        const core::Cert& c = entry.cert();
        TableRow row;
        row.entry = &entry;
        row.model = c.cell.model;
        row.ctx = c.cell.ctx;
        row.n = c.cell.dispatch_n;
        row.verdict = entry_headline(entry);
        if (!entry.loaded.digest_intact) row.verdict += " [DIGEST MISMATCH]";
        row.source = std::string(core::name(c.source));
        row.promotable = entry.promotion.promotable;
        row.diverged = c.divergence.ac.divergent_ids.size();
        row.cp95 = bound(c);
        rows.push_back(std::move(row));
    }
    return rows;
}

void render_text(const ReportModel& model, std::ostream& out) {
    char line[512];
    std::snprintf(line, sizeof line, "%-32s %7s %4s  %-38s %-6s %-10s %8s %s\n", "model", "ctx",
                  "N", "verdict", "source", "promotable", "diverged", "cp95");
    out << line;
    for (const auto& r : table_rows(model)) {
        std::snprintf(line, sizeof line, "%-32s %7lld %4lld  %-38s %-6s %-10s %8zu %s\n",
                      r.model.c_str(), static_cast<long long>(r.ctx), static_cast<long long>(r.n),
                      r.verdict.c_str(), r.source.c_str(), r.promotable ? "yes" : "no", r.diverged,
                      r.cp95.c_str());
        out << line;
    }
}

void render_csv(const ReportModel& model, std::ostream& out) {
    out << "model,ctx,N,verdict,source,promotable,diverged,cp95\r\n";
    for (const auto& r : table_rows(model))
        out << csv_field(r.model) << ',' << r.ctx << ',' << r.n << ',' << csv_field(r.verdict)
            << ',' << csv_field(r.source) << ',' << (r.promotable ? "yes" : "no") << ','
            << r.diverged << ',' << r.cp95 << "\r\n";
}

core::Json render_json_rows(const ReportModel& model) {
    core::Json rows = core::Json::array();
    for (const auto& r : table_rows(model)) {
        const core::Cert& c = r.entry->cert();
        rows.push_back(core::Json::Object{{"path", r.entry->path},
                                          {"model", r.model},
                                          {"ctx", r.ctx},
                                          {"dispatch_n", r.n},
                                          {"status", std::string(core::name(c.verdict.status))},
                                          {"source", r.source},
                                          {"promotable", r.promotable},
                                          {"digest_intact", r.entry->loaded.digest_intact},
                                          {"n_divergent", r.diverged}});
    }
    return rows;
}

}  // namespace bi::cli::report
