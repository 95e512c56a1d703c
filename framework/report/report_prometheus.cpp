#include "report_prometheus.hpp"

#include <cinttypes>
#include <cstdio>
#include <functional>
#include <vector>

#include "verdict_headline.hpp"

namespace bi::report {

namespace {

struct Gauge {
    const char* name;
    const char* help;
    // The sample of one cell, or nullopt when the cert does not know it.
    std::function<std::optional<double>(const ReportEntry&)> value;
};

std::string number_text(double value) {
    char text[40];
    std::snprintf(text, sizeof text, "%.10g", value);
    return text;
}

std::string verdict_label(const ReportEntry& entry) {
    return entry.trusted() ? std::string(verdict_word(entry.cert().verdict.status)) : "INVALID";
}

std::string cell_labels(const ModelGrid& grid, const ReportEntry& entry) {
    const core::Cert& cert = entry.cert();
    const std::string kind = cert.server && cert.server->kind ? cert.server->kind->name : "";
    const std::pair<const char*, std::string> labels[] = {
        {"model", cert.cell.model},
        {"ctx", std::to_string(cert.cell.ctx)},
        {"n", std::to_string(cert.cell.dispatch_n)},
        {"kind", kind},
        {"determinism", grid.determinism},
        {"source", std::string(core::name(cert.source))},
    };
    std::string out;
    for (const auto& [name, value] : labels)
        out +=
            (out.empty() ? "" : ",") + std::string(name) + "=\"" + escape_label_value(value) + "\"";
    return out;
}

std::optional<double> rate_bound(const core::RateBound& bound) {
    if (bound.clopper_pearson_upper) return bound.clopper_pearson_upper;
    return bound.interval_upper;
}

}  // namespace

int verdict_number(const ReportEntry& entry) {
    if (!entry.trusted()) return 4;
    switch (entry.cert().verdict.status) {
        case core::Status::Green:
            return 0;
        case core::Status::GreenWithCaveat:
            return 1;
        case core::Status::GreenUnverified:
            return 2;
        case core::Status::Failed:
            return 3;
    }
    return 4;
}

std::string escape_label_value(std::string_view value) {
    std::string out;
    for (char ch : value) {
        if (ch == '\\')
            out += "\\\\";
        else if (ch == '"')
            out += "\\\"";
        else if (ch == '\n')
            out += "\\n";
        else
            out += ch;
    }
    return out;
}

std::optional<std::int64_t> unix_seconds(std::string_view ts) {
    int y = 0, mo = 0, d = 0;
    std::int64_t h = 0, mi = 0, s = 0;
    char z = 0;
    const std::string text(ts);
    if (text.size() != 20 ||
        std::sscanf(text.c_str(), "%4d-%2d-%2dT%2" SCNd64 ":%2" SCNd64 ":%2" SCNd64 "%c", &y, &mo,
                    &d, &h, &mi, &s, &z) != 7 ||
        z != 'Z' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
        return std::nullopt;
    // Days from the civil date (Howard Hinnant's algorithm), proleptic Gregorian.
    const int yy = y - (mo <= 2 ? 1 : 0);
    const int era = (yy >= 0 ? yy : yy - 399) / 400;
    const int yoe = yy - era * 400;
    const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const std::int64_t days = static_cast<std::int64_t>(era) * 146097 + doe - 719468;
    return days * 86400 + h * 3600 + mi * 60 + s;
}

std::string render_prometheus(const ReportModel& model, const PrometheusContext& context) {
    const std::int64_t now = context.now_s;
    const Gauge gauges[] = {
        {"bi_cell_verdict",
         "The cell's verdict as a number (0 GREEN, 1 AMBER, 2 UNVERIFIED, 3 RED, 4 INVALID), its "
         "word in the verdict label",
         [](const ReportEntry& e) { return std::optional<double>(verdict_number(e)); }},
        {"bi_cell_promotable", "1 when the cert is promotable, else 0",
         [](const ReportEntry& e) { return std::optional<double>(e.promotable() ? 1 : 0); }},
        {"bi_cell_rate_upper_bound",
         "The upper bound on the per-trial divergence rate the cell's sensitivity states",
         [](const ReportEntry& e) { return rate_bound(e.cert().sensitivity.per_trial); }},
        {"bi_cell_speedup", "C's generated tokens per second over A's (what batching bought)",
         [](const ReportEntry& e) {
             const auto& t = e.cert().throughput;
             return t ? t->speedup() : std::nullopt;
         }},
        {"bi_cell_cert_age_seconds", "Seconds since the cert was written (its ts_utc)",
         [now](const ReportEntry& e) -> std::optional<double> {
             const auto ts = unix_seconds(e.cert().ts_utc);
             if (!ts) return std::nullopt;
             return static_cast<double>(now - *ts);
         }},
    };
    const auto grids = model_grids(model);
    std::string out;
    for (const auto& gauge : gauges) {
        out += std::string("# HELP ") + gauge.name + " " + gauge.help + "\n";
        out += std::string("# TYPE ") + gauge.name + " gauge\n";
        for (const auto& grid : grids)
            for (auto ctx : grid.ctxs)
                for (auto n : grid.ns) {
                    const ReportEntry* entry = grid.at(ctx, n);
                    if (!entry) continue;
                    const auto value = gauge.value(*entry);
                    if (!value) continue;
                    std::string labels = cell_labels(grid, *entry);
                    if (std::string_view(gauge.name) == "bi_cell_verdict")
                        labels += ",verdict=\"" + verdict_label(*entry) + "\"";
                    out +=
                        std::string(gauge.name) + "{" + labels + "} " + number_text(*value) + "\n";
                }
    }
    out += "# HELP bi_run_info The bi-run that wrote this file\n# TYPE bi_run_info gauge\n";
    out += "bi_run_info{version=\"" + escape_label_value(context.version) + "\"} 1\n";
    return out;
}

}  // namespace bi::report
