#include "cert.hpp"

#include <algorithm>
#include <cctype>

namespace bi::core {

namespace {

constexpr std::size_t kMaxRowsPerReport = 200;  // keeps a cert readable; counts stay exact

Json string_list(const std::vector<std::string>& items) {
    Json list = Json::array();
    for (const auto& item : items) list.push_back(item);
    return list;
}

template <typename T>
Json number_list(const std::vector<T>& items) {
    Json list = Json::array();
    for (const auto& item : items) list.push_back(item);
    return list;
}

Json optional_number(const std::optional<double>& value) { return value ? Json(*value) : Json(); }

Json index_map(const std::map<std::string, std::size_t>& indices) {
    Json object = Json::object();
    for (const auto& [id, index] : indices) object.set(id, index);
    return object;
}

Json group_counts(const std::map<std::string, GroupCount>& groups) {
    Json object = Json::object();
    for (const auto& [key, count] : groups)
        object.set(key, Json::Object{{"n_compared", count.n_compared},
                                     {"n_divergent", count.n_divergent}});
    return object;
}

Json pair_report_json(const PairReport& r) {
    Json rows = Json::array();
    for (std::size_t i = 0; i < r.rows.size() && i < kMaxRowsPerReport; ++i) {
        const auto& row = r.rows[i];
        rows.push_back(Json::Object{{"test_id", row.test_id},
                                    {"field", row.field},
                                    {"left", row.left},
                                    {"right", row.right},
                                    {"left_content_sha", row.left_sha},
                                    {"right_content_sha", row.right_sha},
                                    {"token_identical", row.token_identical}});
    }
    Json out = Json::Object{
        {"left", r.left_arm},
        {"right", r.right_arm},
        {"n_compared", r.n_compared},
        {"n_scored_both", r.n_scored_both},
        {"n_divergent", r.divergent_ids.size()},
        {"divergent_ids", string_list(r.divergent_ids)},
        {"only_in_left", string_list(r.only_left)},
        {"only_in_right", string_list(r.only_right)},
        {"rows", rows},
        {"token_only_ids", string_list(r.token_only_ids)},
        {"logprob_drift_ids", string_list(r.logprob_drift_ids)},
        {"max_logprob_delta", r.max_logprob_delta},
        {"first_divergent_token", index_map(r.first_divergent_token)},
        {"by_family", group_counts(r.by_family)},
        {"by_fill", group_counts(r.by_fill)},
    };
    if (r.rows.size() > kMaxRowsPerReport)
        out.set("rows_truncated", r.rows.size() - kMaxRowsPerReport);
    return out;
}

Json union_report_json(const UnionReport& u) {
    Json passes = Json::array();
    for (const auto& pass : u.per_pass) passes.push_back(pair_report_json(pass));
    return Json::Object{
        {"n_passes", u.per_pass.size()},
        {"n_comparisons", u.n_comparisons},
        {"n_scored_comparisons", u.n_scored_comparisons},
        {"n_divergent", u.divergent_ids.size()},
        {"divergent_ids", string_list(u.divergent_ids)},
        {"token_only_ids", string_list(u.token_only_ids)},
        {"logprob_drift_ids", string_list(u.logprob_drift_ids)},
        {"per_pass_divergent", number_list(u.per_pass_divergent)},
        {"per_pass_token_only", number_list(u.per_pass_token_only)},
        {"max_logprob_delta", u.max_logprob_delta},
        {"first_divergent_token", index_map(u.first_divergent_token)},
        {"per_pass", passes},
    };
}

Json server_evidence_json(const ServerOverlapEvidence& s) {
    return Json::Object{{"peak_busy_slots", s.peak_busy_slots},
                        {"peak_requests_processing", s.peak_requests_processing},
                        {"mean_busy_slots_per_decode", optional_number(s.mean_busy_slots_per_decode)},
                        {"n_samples", s.n_samples}};
}

Json census_json(const CompletionCensus& c) {
    Json modes = Json::object();
    for (const auto& [mode, count] : c.by_mode) modes.set(mode, count);
    return Json::Object{{"n", c.n}, {"n_ok", c.n_ok}, {"ratio", c.ratio()}, {"by_mode", modes},
                        {"ok", c.meets(kCompletionFloor)}};
}

Json coverage_json(const PassCoverage& c) {
    return Json::Object{{"pass", c.pass},
                        {"n_ids", c.n_ids},
                        {"n_cobatched", c.n_cobatched},
                        {"required", c.required},
                        {"client_depth", c.client_depth},
                        {"attribution_certain", c.attribution_certain},
                        {"missing_interval_ids", string_list(c.missing_interval_ids)},
                        {"not_cobatched_ids", string_list(c.not_cobatched_ids)},
                        {"ok", c.ok}};
}

Json nullable(const std::string& text) { return text.empty() ? Json() : Json(text); }

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
        while (j < name.size() && (std::isdigit(static_cast<unsigned char>(name[j])) || name[j] == '.'))
            ++j;
        if (j > i + 1 && j < name.size() && name[j] == 'b') return true;
    }
    return false;
}

}  // namespace

std::string moe_hint(std::string_view model) {
    const std::string name = lower(model);
    static const char* kMarkers[] = {"moe", "mixtral", "-a3b", "-a22b", "-a2.7b", "-a14b",
                                     "-a17b", "gpt-oss", "deepseek-v2", "deepseek-v3",
                                     "granite-3.0-3b-a800m", "olmoe", "phi-3.5-moe"};
    bool moe = has_expert_count(name);
    for (const char* marker : kMarkers) moe = moe || name.find(marker) != std::string::npos;
    if (!moe) return "";
    return "the model name suggests a mixture-of-experts model: expert routing can depend on batch "
           "composition, so this cert says nothing about any other N, ctx or work-set";
}

std::string cert_file_name(std::string_view model, std::int64_t ctx, std::int64_t dispatch_n) {
    std::string safe(model);
    std::replace(safe.begin(), safe.end(), '/', '_');
    return safe + "__ctx" + std::to_string(ctx) + "__N" + std::to_string(dispatch_n) + ".json";
}

Json build_cert(const CertContext& context, const Verdict& v) {
    const CellIdentity& cell = context.cell;
    Json cert = Json::object();

    cert.set("schema", std::string(kCertSchema));
    cert.set("model", cell.model);
    cert.set("ctx", cell.ctx);
    cert.set("dispatch_n", cell.dispatch_n);
    cert.set("kv_label", cell.kv_label);
    cert.set("reps", cell.reps);
    cert.set("status", v.status);
    cert.set("source", context.source);
    cert.set("gate", std::string(kGate));
    cert.set("ts_utc", context.ts_utc);
    cert.set("n_passes", v.ac.per_pass.size());
    cert.set("stopped_early", context.stopped_early);

    Json invariant = Json::array();
    for (auto field : kInvariantFields) invariant.push_back(std::string(field));
    cert.set("invariant_fields", invariant);

    cert.set("overlap_ok", v.overlap_ok);
    Json overlap = server_evidence_json(v.server_c);
    overlap.set("ok", v.overlap_ok);
    overlap.set("client_max_depth", v.client_depth);
    overlap.set("per_pass_client_depth", number_list(v.per_pass_client_depth));
    cert.set("overlap", overlap);

    Json arms = Json::object();
    for (const auto& census : v.census) arms.set(census.arm, census_json(census));
    cert.set("completion_floor", Json::Object{{"ok", v.completion_floor_ok},
                                              {"threshold", kCompletionFloor},
                                              {"arms", arms}});

    Json per_pass = Json::array();
    for (const auto& coverage : v.coverage) per_pass.push_back(coverage_json(coverage));
    cert.set("cobatch_coverage", Json::Object{{"ok", v.cobatch_coverage_ok},
                                              {"checked", v.cobatch_coverage_checked},
                                              {"per_pass", per_pass}});

    Json arm_b = Json::Object{{"ran", v.ab.has_value()},
                              {"ab_passed", v.ab ? Json(v.ab->clean()) : Json()},
                              {"bc_passed", v.bc ? Json(v.bc->clean()) : Json()},
                              {"serial", v.arm_b_serial}};
    if (v.server_b) arm_b.set("server", server_evidence_json(*v.server_b));
    cert.set("arm_b", arm_b);

    Json serial = Json::Object{{"ran", v.serial_check.has_value()}};
    if (v.serial_check) {
        serial.set("passed", v.serial_check->clean());
        serial.set("n_compared", v.serial_check->n_compared);
        serial.set("divergent_ids", string_list(v.serial_check->divergent_ids));
    }
    cert.set("serial_self_check", serial);

    cert.set("divergence_class", nullable(v.divergence_class));
    cert.set("anomaly", nullable(v.anomaly));
    cert.set("mismatch", string_list(v.ac.divergent_ids));
    cert.set("token_divergence_ids", string_list(v.ac.token_only_ids));
    cert.set("per_pass_ac_divergent", number_list(v.ac.per_pass_divergent));
    cert.set("per_pass_ac_token_only", number_list(v.ac.per_pass_token_only));
    cert.set("first_divergent_token", index_map(v.ac.first_divergent_token));

    Json report = Json::Object{{"AC", union_report_json(v.ac)}};
    report.set("AB", v.ab ? pair_report_json(*v.ab) : Json());
    report.set("BC", v.bc ? union_report_json(*v.bc) : Json());
    if (v.serial_check) report.set("AA_prime", pair_report_json(*v.serial_check));
    cert.set("divergence_report", report);

    const Sensitivity& s = v.sensitivity;
    cert.set("sensitivity",
             Json::Object{{"n_hot_trials", s.n_hot_trials},
                          {"divergences_seen", s.divergences_seen},
                          {"rule_of_three_upper", optional_number(s.rule_of_three_upper)},
                          {"clopper_pearson_upper_95", optional_number(s.clopper_pearson_upper_95)}});

    Json valid_for = Json::Object{{"model", cell.model},
                                  {"ctx", cell.ctx},
                                  {"dispatch_n", cell.dispatch_n},
                                  {"kv_label", cell.kv_label}};
    if (const Json* run = context.extras.find("run"))
        if (const Json* flags = run->find("server_flags")) valid_for.set("server_flags", *flags);
    cert.set("promotion_scope", Json::Object{{"valid_for", valid_for},
                                             {"generalizes", false},
                                             {"moe_hint", nullable(moe_hint(cell.model))}});

    cert.set("decision_reasons", string_list(v.decision_reasons));

    if (context.extras.is_object())
        for (const auto& [key, value] : context.extras.as_object())
            if (!cert.find(key)) cert.set(key, value);
    return cert;
}

bool cert_is_green(const Json& cert, std::string_view require_source) {
    const Json* st = cert.find("status");
    const Json* source = cert.find("source");
    return st && st->is_string() && st->as_string() == status::kGreen && source &&
           source->is_string() && source->as_string() == require_source;
}

Promotion check_promotable(const Json& cert, bool digest_intact) {
    Promotion p;
    auto& why = p.reasons;
    const std::string schema = cert.string_or("schema", "");
    if (schema != kCertSchema)
        why.push_back("unknown schema '" + schema + "' (expected " + std::string(kCertSchema) + ")");
    if (!digest_intact) why.push_back("digest does not match the content (edited or corrupted)");
    const std::string st = cert.string_or("status", "");
    if (st != status::kGreen) why.push_back("status is '" + st + "', not 'green'");
    const std::string source = cert.string_or("source", "");
    if (source != "live") why.push_back("source is '" + source + "'; only a live run is promotable");
    if (!cert.bool_or("overlap_ok", false)) why.push_back("overlap was not proven");
    const std::string gate = cert.string_or("gate", "");
    if (gate != kGate) why.push_back("gate is '" + gate + "', not '" + std::string(kGate) + "'");
    const Json* floor = cert.find("completion_floor");
    if (!floor || !floor->bool_or("ok", false)) why.push_back("completion floor not met");
    const Json* coverage = cert.find("cobatch_coverage");
    if (coverage && coverage->bool_or("checked", false) && !coverage->bool_or("ok", false))
        why.push_back("co-batch coverage not met");
    if (!coverage) why.push_back("co-batch coverage missing");
    p.promotable = why.empty();
    return p;
}

std::string validate_cert_shape(const Json& cert) {
    if (!cert.is_object()) return std::string("$: expected object, got ") + type_name(cert.type());
    struct Field {
        const char* parent;  // nullptr for top level
        const char* key;
        Json::Type type;
    };
    static const Field kFields[] = {
        {nullptr, "schema", Json::Type::String},
        {nullptr, "model", Json::Type::String},
        {nullptr, "ctx", Json::Type::Int},
        {nullptr, "dispatch_n", Json::Type::Int},
        {nullptr, "status", Json::Type::String},
        {nullptr, "source", Json::Type::String},
        {nullptr, "gate", Json::Type::String},
        {nullptr, "ts_utc", Json::Type::String},
        {nullptr, "n_passes", Json::Type::Int},
        {nullptr, "overlap_ok", Json::Type::Bool},
        {nullptr, "overlap", Json::Type::Object},
        {nullptr, "completion_floor", Json::Type::Object},
        {"completion_floor", "ok", Json::Type::Bool},
        {nullptr, "cobatch_coverage", Json::Type::Object},
        {"cobatch_coverage", "ok", Json::Type::Bool},
        {"cobatch_coverage", "checked", Json::Type::Bool},
        {nullptr, "arm_b", Json::Type::Object},
        {nullptr, "divergence_report", Json::Type::Object},
        {nullptr, "mismatch", Json::Type::Array},
        {nullptr, "invariant_fields", Json::Type::Array},
        {nullptr, "decision_reasons", Json::Type::Array},
        {nullptr, "digest", Json::Type::String},
    };
    for (const auto& field : kFields) {
        const Json* holder = field.parent ? cert.find(field.parent) : &cert;
        const std::string path =
            std::string("$.") + (field.parent ? std::string(field.parent) + "." : "") + field.key;
        const Json* value = holder ? holder->find(field.key) : nullptr;
        if (!value) return path + ": missing";
        if (value->type() != field.type)
            return path + ": expected " + type_name(field.type) + ", got " +
                   type_name(value->type());
    }
    const std::string& st = cert.find("status")->as_string();
    if (st != status::kGreen && st != status::kFailed && st != status::kGreenWithCaveat &&
        st != status::kGreenUnverified)
        return "$.status: unknown status '" + st + "'";
    const auto& reasons = cert.find("decision_reasons")->as_array();
    for (std::size_t i = 0; i < reasons.size(); ++i)
        if (!reasons[i].is_string())
            return "$.decision_reasons[" + std::to_string(i) + "]: expected string, got " +
                   type_name(reasons[i].type());
    return "";
}

}  // namespace bi::core
