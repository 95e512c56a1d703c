#include "cert.hpp"

#include <algorithm>
#include <cctype>

#include "cert_consistency.hpp"
#include "cert_history.hpp"
#include "model_name.hpp"

namespace bi::core {

namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// "8x7b", "8x22b": the expert-count pattern of many MoE model names.
bool has_expert_count(const std::string& name) {
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] != 'x' || i == 0 || !std::isdigit(static_cast<unsigned char>(name[i - 1])))
            continue;
        std::size_t j = i + 1;
        while (j < name.size() &&
               (std::isdigit(static_cast<unsigned char>(name[j])) || name[j] == '.'))
            ++j;
        if (j > i + 1 && j < name.size() && name[j] == 'b') return true;
    }
    return false;
}

// Keeps the kMaxForensicsPerReport most severe entries (ids in order among equals).
void cap_forensics(std::map<std::string, IdForensics>& forensics, std::size_t& truncated) {
    if (forensics.size() <= kMaxForensicsPerReport) return;
    std::vector<std::pair<std::string, IdForensics>> ranked(forensics.begin(), forensics.end());
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        return severity(a.second) > severity(b.second);
    });
    truncated += ranked.size() - kMaxForensicsPerReport;
    ranked.resize(kMaxForensicsPerReport);
    forensics = {ranked.begin(), ranked.end()};
}

PairReport stored(PairReport report) {
    return stored_report(std::move(report));
}

UnionReport stored(UnionReport report) {
    for (auto& pass : report.per_pass) pass = stored(std::move(pass));
    cap_forensics(report.forensics, report.forensics_truncated);
    return report;
}

template <typename T>
std::optional<T> stored(const std::optional<T>& report) {
    if (!report) return std::nullopt;
    return stored(*report);
}

std::optional<std::string> nonempty(std::string text) {
    if (text.empty()) return std::nullopt;
    return text;
}

}  // namespace

PairReport stored_report(PairReport report) {
    if (report.rows.size() > kMaxRowsPerReport) {
        report.rows_truncated += report.rows.size() - kMaxRowsPerReport;
        report.rows.resize(kMaxRowsPerReport);
    }
    cap_forensics(report.forensics, report.forensics_truncated);
    return report;
}

std::string moe_hint(std::string_view model) {
    const std::string name = lower(model);
    static const char* kMarkers[] = {"moe",
                                     "mixtral",
                                     "-a3b",
                                     "-a22b",
                                     "-a2.7b",
                                     "-a14b",
                                     "-a17b",
                                     "gpt-oss",
                                     "deepseek-v2",
                                     "deepseek-v3",
                                     "granite-3.0-3b-a800m",
                                     "olmoe",
                                     "phi-3.5-moe"};
    bool moe = has_expert_count(name);
    for (const char* marker : kMarkers) moe = moe || name.find(marker) != std::string::npos;
    if (!moe) return "";
    return "the model name suggests a mixture-of-experts model: expert routing can depend on batch "
           "composition, so this cert says nothing about any other N, ctx or work-set";
}

std::string cert_file_name(std::string_view model, std::int64_t ctx, std::int64_t dispatch_n,
                           bool determinism) {
    return model_file_stem(model) + "__ctx" + std::to_string(ctx) + "__N" +
           std::to_string(dispatch_n) + (determinism ? "__det" : "") + ".json";
}

const KindEvidence& evidence_of_kind(const std::optional<ServerRecord>& server) {
    if (server && server->kind) return server->kind->evidence;
    return unrecorded_kind_evidence();
}

Cert build_cert(const CertContext& context, const Verdict& v) {
    Cert cert;
    static_cast<CertContext&>(cert) = context;
    for (auto field : kInvariantFields) cert.invariant_fields.emplace_back(field);
    cert.verdict = {v.status, v.divergence_class, v.anomaly, v.decision_reasons, v.rule};
    cert.gates = v.gates;
    cert.gates.overlap.server.busy_samples.clear();  // kept in memory for coverage only
    cert.divergence = {v.concurrency_failures, stored(v.ac), stored(v.ab), stored(v.bc),
                       stored(v.serial_check)};
    cert.sensitivity = v.sensitivity;

    cert.promotion_scope.valid_for = context.cell;
    if (context.run) cert.promotion_scope.server_flags = context.run->server_flags;
    cert.promotion_scope.moe_hint = nonempty(moe_hint(context.cell.model));
    cert.promotion_scope.length = v.length;
    return cert;
}

bool known_cert_schema(std::string_view schema) {
    return schema == kCertSchema || schema == kCertSchemaV1;
}

Promotion check_promotable(const Cert& cert, bool digest_intact) {
    Promotion p;
    auto& why = p.reasons;
    if (!known_cert_schema(cert.schema))
        why.push_back("unknown schema '" + cert.schema + "' (expected " + std::string(kCertSchema) +
                      ")");
    if (!digest_intact) why.push_back("digest does not match the content (edited or corrupted)");
    if (cert.verdict.status != Status::Green)
        why.push_back("status is '" + std::string(name(cert.verdict.status)) + "', not 'green'");
    if (cert.source != Source::Live)
        why.push_back("source is '" + std::string(name(cert.source)) +
                      "'; only a live run is promotable");
    const CertGates& g = cert.gates;
    if (!g.overlap.ok) why.push_back("overlap was not proven");
    if (cert.gate != kGate)
        why.push_back("gate is '" + cert.gate + "', not '" + std::string(kGate) + "'");
    if (!g.completion_floor.ok) why.push_back("completion floor not met");
    if (g.cobatch_coverage.checked && !g.cobatch_coverage.ok)
        why.push_back("co-batch coverage not met");
    for (const auto& line : cert_disagreements(cert))
        why.push_back("the cert disagrees with itself: " + line);
    for (const auto& line : sticky_red_reasons(cert)) why.push_back(line);
    p.promotable = why.empty();
    return p;
}

}  // namespace bi::core
