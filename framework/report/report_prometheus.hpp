// The report as Prometheus gauges in the node_exporter textfile-collector format
// (docs/report.md "Prometheus"): one series per cell a grid shows, and one info metric.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "report_model.hpp"

namespace bi::report {

// What the renderer cannot read from the certs: who rendered them, and when.
struct PrometheusContext {
    std::string version;     // bi-run's, the bi_run_info metric's label
    std::int64_t now_s = 0;  // seconds since the Unix epoch, for bi_cell_cert_age_seconds
};

// The number bi_cell_verdict gives a verdict: 0 GREEN, 1 AMBER, 2 UNVERIFIED, 3 RED, and 4 for a
// cert the report cannot rely on (INVALID, whatever it claims).
int verdict_number(const ReportEntry& entry);

// A label value as the exposition format writes it: backslash, double quote and newline escaped.
std::string escape_label_value(std::string_view value);

// "2026-01-01T00:00:00Z" as seconds since the Unix epoch; nullopt for any other shape.
std::optional<std::int64_t> unix_seconds(std::string_view ts_utc);

// The whole file: # HELP and # TYPE before each metric's samples, one sample per line.
std::string render_prometheus(const ReportModel& model, const PrometheusContext& context);

}  // namespace bi::report
