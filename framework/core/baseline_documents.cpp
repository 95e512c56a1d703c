#include "baseline_documents.hpp"

#include <algorithm>

#include "coverage.hpp"
#include "model_name.hpp"
#include "text.hpp"

namespace bi::core {

namespace {

// The model's identity for the terms: its whole-file (or manifest) sha256, else the digest its
// store listed; empty when neither is known, which compares as not comparable.
std::string model_identity(const ModelFileRecord& file) {
    if (file.sha256) return *file.sha256;
    if (file.store_digest) return "store:" + *file.store_digest;
    return "";
}

std::string or_none(const std::optional<std::string>& text) {
    return text && !text->empty() ? *text : "(none)";
}

std::string first_line(const std::optional<std::string>& text) {
    if (!text || text->empty()) return "(none)";
    return text->substr(0, text->find('\n'));
}

std::string joined(const std::vector<std::string>& words) {
    return words.empty() ? "(none)" : join(words);
}

// llama-server's build_info is a string ("b6133-1a2b3c4"); other kinds send other shapes.
std::string word_of(const Json& value) {
    if (value.is_string()) return value.as_string();
    if (value.is_int()) return std::to_string(value.as_int());
    if (value.is_null()) return "(none)";
    return "(an object or list)";
}

void differs(std::vector<std::string>& lines, const std::string& what, const std::string& baseline,
             const std::string& current) {
    if (baseline != current) lines.push_back(what + ": baseline " + baseline + ", now " + current);
}

}  // namespace

BaselineTerms baseline_terms(const SerialBaseline& b) {
    BaselineTerms terms;
    terms.source = b.source;
    terms.model_sha256 = model_identity(b.model_file);
    terms.rows_sha256 = b.rows_sha256;
    terms.model_name = b.model;
    terms.ctx = b.ctx;
    terms.reps = b.reps;
    terms.endpoint = b.run.endpoint.value_or("");
    terms.n_predict = b.run.n_predict.value_or(0);
    terms.logprobs = b.run.logprobs.value_or(0);
    terms.scorer = b.run.scorer.value_or("");
    terms.scorer_config = b.scorer_config.value_or("");
    return terms;
}

BaselineSide baseline_side(const SerialBaseline& b) {
    BaselineSide side;
    side.terms = baseline_terms(b);
    side.arm_a = b.answers;
    side.repeat = b.repeat;
    side.problems = b.identity_problems;
    return side;
}

CheckSide check_side(const SerialBaseline& b) {
    CheckSide side;
    side.ts_utc = b.ts_utc;
    side.source = b.source;
    side.server = b.server;
    side.host = b.host;
    side.model_file = b.model_file;
    side.kv_label = b.kv_label;
    side.server_flags = b.run.server_flags.value_or(std::vector<std::string>{});
    for (const auto& plugin : b.provenance.plugins)
        if (b.run.scorer && plugin.id == *b.run.scorer)
            side.scorer_plugin = plugin.id + " " + plugin.version;
    side.repeat = b.repeat;
    const auto census = completion_census(b.answers, "A");
    side.n_items = census.n;
    side.n_ok = census.n_ok;
    return side;
}

BaselineCheck build_check(const SerialBaseline& stored, BaselineFileRecord file,
                          const SerialBaseline& current) {
    BaselineCheck check;
    check.ts_utc = current.ts_utc;
    check.model = stored.model;
    check.ctx = stored.ctx;
    auto comparison = compare_with_baseline(baseline_side(stored), baseline_side(current),
                                            stored.run.logit_drift_eps.value_or(0.0));
    check.status = comparison.status;
    check.reasons = std::move(comparison.reasons);
    if (comparison.report) {
        for (const auto& id : comparison.report->token_only_ids) {
            if (check.generation_changes.size() >= kMaxForensicsPerReport) break;
            const auto a = stored.answers.find(id);
            const auto b = current.answers.find(id);
            if (a == stored.answers.end() || b == current.answers.end()) continue;
            if (auto change = generation_change(a->second, b->second); !change.empty())
                check.generation_changes.emplace(id, std::move(change));
        }
        check.comparison = stored_report(std::move(*comparison.report));
    }
    check.baseline_file = std::move(file);
    check.baseline = check_side(stored);
    check.current = check_side(current);
    check.differences = side_differences(check.baseline, check.current);
    check.provenance = current.provenance;
    return check;
}

std::string generation_change(const TrialRecord& baseline, const TrialRecord& current) {
    std::vector<std::string> parts;
    if (baseline.reasoning_content != current.reasoning_content) parts.emplace_back("reasoning");
    if (!canonical_equal(baseline.tool_calls, current.tool_calls)) parts.emplace_back("tool calls");
    if (baseline.completion_tokens != current.completion_tokens) {
        const auto count = [](const std::optional<std::int64_t>& n) {
            return n ? std::to_string(*n) : std::string("(none)");
        };
        parts.push_back("completion_tokens " + count(baseline.completion_tokens) + " -> " +
                        count(current.completion_tokens));
    }
    if (baseline.finish_reason != current.finish_reason)
        parts.push_back("finish_reason " + baseline.finish_reason + " -> " + current.finish_reason);
    std::string text;
    for (const auto& part : parts) text += (text.empty() ? "" : "; ") + part;
    return text;
}

std::vector<std::string> side_differences(const CheckSide& baseline, const CheckSide& current) {
    std::vector<std::string> lines;
    const auto& a = baseline.server;
    const auto& b = current.server;
    differs(lines, "server binary", a.launch.binary, b.launch.binary);
    differs(lines, "server binary sha256", or_none(a.launch.binary_sha256),
            or_none(b.launch.binary_sha256));
    differs(lines, "server version", first_line(a.launch.version_text),
            first_line(b.launch.version_text));
    if (!canonical_equal(a.build_info, b.build_info))
        lines.push_back("build info: baseline " + word_of(a.build_info) + ", now " +
                        word_of(b.build_info));
    differs(lines, "server kind", a.kind ? a.kind->name : "(none)",
            b.kind ? b.kind->name : "(none)");
    differs(lines, "server flags", joined(baseline.server_flags), joined(current.server_flags));
    differs(lines, "KV cache", baseline.kv_label, current.kv_label);
    differs(lines, "host", or_none(baseline.host.hostname), or_none(current.host.hostname));
    differs(lines, "CPU", baseline.host.cpu + " x" + std::to_string(baseline.host.n_cpus),
            current.host.cpu + " x" + std::to_string(current.host.n_cpus));
    differs(lines, "GPUs", joined(baseline.host.gpus), joined(current.host.gpus));
    differs(lines, "GPU driver", or_none(baseline.host.gpu_driver),
            or_none(current.host.gpu_driver));
    differs(lines, "scorer plugin", or_none(baseline.scorer_plugin),
            or_none(current.scorer_plugin));
    return lines;
}

std::string baseline_file_name(std::string_view model, std::int64_t ctx) {
    return model_file_stem(model) + "__ctx" + std::to_string(ctx) + ".baseline.json";
}

std::string check_file_name(std::string_view model, std::int64_t ctx) {
    return model_file_stem(model) + "__ctx" + std::to_string(ctx) + ".baseline-check.json";
}

BaselineCheckSummary summarise(const BaselineCheck& check, std::string check_file) {
    BaselineCheckSummary summary;
    summary.status = check.status;
    summary.reasons = check.reasons;
    summary.baseline_digest = check.baseline_file.digest;
    summary.check_file = std::move(check_file);
    if (check.comparison) {
        const auto& ids = check.comparison->divergent_ids;
        summary.n_changed = ids.size();
        summary.changed_ids.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                  ids.size(), kMaxSummaryIds)));
    }
    return summary;
}

std::string_view status_word(BaselineStatus status) {
    switch (status) {
        case BaselineStatus::Same:
            return "SAME";
        case BaselineStatus::Changed:
            return "CHANGED";
        case BaselineStatus::DriftOnly:
            return "DRIFT ONLY";
        case BaselineStatus::NotComparable:
            break;
    }
    return "NOT COMPARABLE";
}

}  // namespace bi::core
