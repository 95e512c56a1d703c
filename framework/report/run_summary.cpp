#include "run_summary.hpp"

#include <cstdio>
#include <sstream>

#include "baseline_text.hpp"
#include "core/cert_history.hpp"
#include "core/logprob_drift.hpp"
#include "io/json_text.hpp"
#include "sensitivity_text.hpp"
#include "throughput_text.hpp"
#include "verdict_headline.hpp"

namespace bi::report {

namespace {

// A summary with "version" (what bi-run --version --json prints) when the caller gave one.
core::Json with_version(core::Json summary, const core::Json& version) {
    if (!version.is_null()) summary.set("version", version);
    return summary;
}

template <typename Optional>
core::Json optional_name(const Optional& value) {
    return value ? core::Json(core::name(*value)) : core::Json();
}

// Prompts whose generated tokens (or, failing token ids, text) moved in a pass, and prompts
// whose chosen-token logprobs moved.
struct PassChange {
    std::size_t tokens = 0;
    std::size_t logprobs = 0;
};

PassChange changes_in(const core::PairReport& pass) {
    PassChange c;
    c.tokens = pass.first_divergent_token.size();
    c.logprobs = c.tokens + pass.logprob_drift_ids.size();
    return c;
}

bool serial_reproducible(const core::Verdict& v) {
    return v.serial_check && v.serial_check->clean();
}

bool b_matches_a(const core::Verdict& v) {
    return v.ab && v.ab->clean();
}

std::string headline(const DecidedCell& cell) {
    const auto& v = cell.verdict;
    return verdict_headline(v.status, v.divergence_class, v.anomaly, cell.promotable);
}

}  // namespace

std::string cell_text(const DecidedCell& cell) {
    const core::Cert& cert = cell.cert;
    std::ostringstream out;
    out << headline(cell) << "  " << cert.cell.model << "  ctx " << cert.cell.ctx << "  N "
        << cert.cell.dispatch_n << "  [source " << core::name(cert.source)
        << (cell.promotable ? ", promotable" : ", not promotable") << "]\n";
    for (const auto& reason : cell.verdict.decision_reasons) out << "  - " << reason << "\n";
    // A verdict that is not RED yet not promotable for its history says so where it is printed.
    for (const auto& reason : core::sticky_red_reasons(cert))
        out << "  held back: " << reason << "\n";
    for (const auto& line : sensitivity_lines(cert)) out << "  " << line << "\n";
    if (cert.throughput)
        if (const auto line = throughput_line(*cert.throughput, cert.cell.dispatch_n))
            out << "  " << *line << "\n";
    // What a GREEN looked at besides the invariants: the logprobs, or that none were asked for.
    if (cell.verdict.status == core::Status::Green) {
        const auto& run = cert.run;
        out << "  logprobs: "
            << (run && run->logprobs.value_or(0) > 0
                    ? "held; " + core::logprob_drift_size(cert.divergence.ac.max_logprob_delta,
                                                          run->logit_drift_eps.value_or(0.0))
                    : std::string(core::kLogprobsNotCompared))
            << "\n";
    }
    if (cert.verdict.status == core::Status::Green && cert.source != core::Source::Live)
        out << "  (a GREEN against the mock shows the harness works; only a live server's GREEN "
               "is promotable)\n";
    if (cert.baseline_check) out << summary_line(*cert.baseline_check) << "\n";
    if (cert.cache_check)
        out << "cache check: " << core::cache_check_line(*cert.cache_check) << "\n";
    if (!cell.replaced.empty()) out << "replaced: " << cell.replaced << "\n";
    out << "cert: " << cell.cert_path << "\n";
    return out.str();
}

std::string cell_json(const DecidedCell& cell, const core::Json& version) {
    const core::Cert& cert = cell.cert;
    const auto& v = cert.verdict;
    core::Json summary = core::Json::Object{
        {"cert", cell.cert_path},
        {"model", cert.cell.model},
        {"ctx", cert.cell.ctx},
        {"dispatch_n", cert.cell.dispatch_n},
        {"status", std::string(core::name(v.status))},
        {"source", std::string(core::name(cert.source))},
        {"promotable", cell.promotable},
        {"divergence_class", optional_name(v.divergence_class)},
        {"anomaly", optional_name(v.anomaly)},
        {"n_passes", cert.n_passes()},
        {"n_divergent", cert.divergence.ac.divergent_ids.size()},
        {"trials_counted", cert.sensitivity.per_trial.n},
        {"target_reached", cert.plan ? core::Json(cert.plan->reached) : core::Json()},
        {"speedup", cert.throughput && cert.throughput->speedup()
                        ? core::Json(*cert.throughput->speedup())
                        : core::Json()},
    };
    if (!cell.replaced.empty()) summary.set("replaced", cell.replaced);
    if (const auto held = core::sticky_red_reasons(cert); !held.empty()) {
        core::Json lines = core::Json::array();
        for (const auto& line : held) lines.push_back(line);
        summary.set("held_back", lines);
    }
    if (cert.baseline_check)
        summary.set(
            "baseline_check",
            core::Json::Object{{"status", std::string(core::name(cert.baseline_check->status))},
                               {"check", cert.baseline_check->check_file},
                               {"n_changed", cert.baseline_check->n_changed}});
    if (cert.cache_check)
        summary.set(
            "cache_check",
            core::Json::Object{{"status", std::string(core::name(cert.cache_check->status))},
                               {"n_changed", cert.cache_check->changed_ids.size()},
                               {"n_served", cert.cache_check->n_served}});
    return io::to_json_text(with_version(summary, version));
}

std::string sweep_table(const std::string& model, const std::vector<SweepRow>& rows) {
    std::string out = "\nsummary (" + model + ")\n";
    char line[256];
    bool cache = false;
    for (const auto& row : rows) cache = cache || row.cache != "-";
    const auto cache_cell = [cache](const std::string& text) {
        return cache ? "  " + text : std::string();
    };
    std::snprintf(line, sizeof line, "  %-8s %-4s %-44s %-10s %-7s", "ctx", "N", "verdict",
                  "promotable", "speedup");
    out += line + cache_cell("cache");
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
    for (const auto& row : rows) {
        std::snprintf(line, sizeof line, "  %-8lld %-4d %-44s %-10s %-7s",
                      static_cast<long long>(row.ctx), row.parallel, row.verdict.c_str(),
                      row.promotable ? "yes" : "no", row.speedup.c_str());
        std::string text = line + cache_cell(row.cache);
        while (!text.empty() && text.back() == ' ') text.pop_back();
        out += text + "\n";
    }
    return out;
}

std::string selftest_interpretation(const core::Verdict& v, int parallel) {
    const std::string n = std::to_string(parallel);
    if (v.divergence_class == core::DivergenceClass::SerialNondeterminism)
        return "This server does not reproduce itself even serially, so batching cannot be judged; "
               "check its flags (sampling, caching) before anything else.";
    if (v.status == core::Status::Failed)
        return "Batching changes this server's answers: with these flags, --parallel " + n +
               " is not safe where outputs must match a serial run.";
    if (v.anomaly == core::Anomaly::AcAgreeBDisagrees)
        return "Slot allocation alone moved some answers while batching did not; the cell is not "
               "clean.";
    if (v.status == core::Status::GreenWithCaveat)
        return "Scores held, but co-batching moved the numbers underneath (" +
               std::string(v.anomaly ? core::name(*v.anomaly) : "") +
               "): the batched kernels reduce in another order, so longer or other prompts may "
               "change.";
    if (v.status == core::Status::GreenUnverified)
        return "The run could not prove that requests shared a batch (or too few completed), so "
               "it certifies nothing; see the reasons above.";
    return "No difference was detected in this cell with this tiny model - a per-cell 'not "
           "detected', not a proof for your real model.";
}

std::string selftest_text(const SelftestCell& s) {
    const auto& v = s.cell.verdict;
    std::ostringstream out;
    out << "selftest of " << s.binary << " at N=" << s.parallel << " (" << s.n_prompts
        << " prompts x " << s.n_predict << " tokens, " << v.ac.per_pass.size()
        << " concurrent passes)\n"
        << "  serial runs reproduce themselves: " << (serial_reproducible(v) ? "yes" : "NO") << "\n"
        << "  arm B (N slots, serial) matches A: " << (b_matches_a(v) ? "yes" : "NO") << "\n";
    for (std::size_t t = 0; t < v.ac.per_pass.size(); ++t) {
        const auto c = changes_in(v.ac.per_pass[t]);
        out << "  concurrent pass " << t + 1 << ": " << c.tokens << " of " << s.n_prompts
            << " prompts changed tokens, " << c.logprobs << " changed logprobs\n";
    }
    out << "  verdict: " << headline(s.cell) << " [source " << core::name(s.cell.cert.source)
        << "]\n"
        << "  " << selftest_interpretation(v, s.parallel) << "\n"
        << "cert: " << s.cell.cert_path << "\n";
    return out.str();
}

std::string selftest_json(const SelftestCell& s, const core::Json& version) {
    const auto& v = s.cell.verdict;
    core::Json per_pass = core::Json::array();
    for (const auto& pass : v.ac.per_pass) {
        const auto c = changes_in(pass);
        per_pass.push_back(
            core::Json::Object{{"tokens_changed", c.tokens}, {"logprobs_changed", c.logprobs}});
    }
    const core::Json summary =
        core::Json::Object{{"cert", s.cell.cert_path},
                           {"status", std::string(core::name(v.status))},
                           {"source", std::string(core::name(s.cell.cert.source))},
                           {"serial_reproducible", serial_reproducible(v)},
                           {"b_matches_a", b_matches_a(v)},
                           {"per_pass", per_pass},
                           {"n_prompts", s.n_prompts},
                           {"interpretation", selftest_interpretation(v, s.parallel)}};
    return io::to_json_text(with_version(summary, version));
}

}  // namespace bi::report
