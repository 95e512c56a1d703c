#include "baseline_run.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "cell_runner.hpp"
#include "core/error.hpp"
#include "core/request_field.hpp"
#include "http/completion_request.hpp"
#include "interrupt.hpp"
#include "io/baseline_io.hpp"
#include "io/baseline_schema.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "io/server_kind_io.hpp"
#include "server/guards.hpp"
#include "trust/judge.hpp"

namespace bi::driver {

using core::field_ref;
using F = core::RequestField;

namespace fs = std::filesystem;

namespace {

[[noreturn]] void untrusted(const std::string& message) {
    throw Error(ErrorCategory::Trust, message);
}

// Runs A and A' of the plan's one ctx into a baseline value, with `path` and the server log
// beside it locked, and hands the value to `write` while the locks are held.
template <typename Write>
core::SerialBaseline run_serial_side(RunPlan plan, const std::string& path,
                                     plugin_host::ScorerInstance& scorer, const WorkRowSource& rows,
                                     Progress& progress, const Write& write) {
    if (plan.ctxs.size() != 1)
        throw Error(ErrorCategory::Internal, "a baseline run has exactly one ctx");
    const std::int64_t ctx = plan.ctxs.front();
    const fs::path target(path);
    plan.options.out_dir = target.has_parent_path() ? target.parent_path().string() : ".";
    plan.log_file = target.filename().string() + ".server.log";
    plan.out_option = F::Out;
    check_cell_names(plan.options);
    std::error_code ec;
    fs::create_directories(plan.options.out_dir, ec);
    if (ec) throw Error(ErrorCategory::Io, plan.options.out_dir + ": " + ec.message());
    const auto locks = lock_outputs(plan, {path, plan.log_path(ctx)}, progress);
    RunOptions options = plan.options;
    hash_model(options, progress);
    auto launcher = make_launcher(plan, ctx);
    CellRunner runner(*launcher, scorer, options, progress);
    const auto serial = runner.run_serial(ctx, rows);
    // A baseline is A's answers: an arm given up on its completion floor has too few of them.
    if (const auto& given_up = serial.given_up)
        throw Error(ErrorCategory::Server, "arm " + given_up->arm + " given up: " +
                                               given_up->reason + "; no baseline is written");
    auto side = runner.serial_baseline(serial);
    throw_if_interrupted();
    write(side);
    return side;
}

// Whether two paths name one file (the second exists; the first may not yet).
bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    if (fs::equivalent(a, b, ec)) return true;
    return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec) && !ec;
}

std::string file_problem(const std::string& path) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (!fs::exists(status)) return field_ref(F::Baseline) + " " + path + ": no such file";
    if (!fs::is_regular_file(status))
        return field_ref(F::Baseline) + " " + path + ": not a regular file";
    return "";
}

}  // namespace

StoredBaseline load_baseline(const std::string& path, trust::TrustedKeys trusted) {
    if (const auto problem = file_problem(path); !problem.empty())
        throw Error(ErrorCategory::Usage, problem);
    trust::JudgeOptions options;
    options.trusted = std::move(trusted);
    const auto j = trust::judge(path, options);
    if (j.kind == trust::FileKind::Unreadable) throw Error(ErrorCategory::Io, j.problem);
    if (!j.baseline) {
        const std::string what = j.has_cert() ? "a cert"
                                 : j.check    ? "a baseline check report"
                                 : j.envelope ? "an attestation"
                                 : j.upstream ? "an upstream cert"
                                              : "not a bi-baseline/1 document";
        untrusted(path + ": not a baseline (" + what + ")");
    }
    if (j.kind != trust::FileKind::Baseline) untrusted(j.problem);
    // Given keys, only a signature that verifies under one of them will do: an unsigned
    // baseline is as good as an edited one.
    if (!options.trusted.empty() && j.signature.state != trust::SignatureState::Verified)
        untrusted(path + ": " + j.signature.line + ", and " + field_ref(F::BaselineKeys) +
                  " asks for a signature by a trusted key");
    StoredBaseline stored;
    stored.value = *j.baseline->value;
    stored.file = {path, j.baseline->file_sha256, stored.value.digest.value_or(""),
                   j.signature.line};
    return stored;
}

WorkRowSource stored_rows(const core::SerialBaseline& baseline) {
    return [rows = baseline.rows](const plugin_host::TokenCounter&, const std::string&,
                                  std::int64_t) { return rows; };
}

BaselineSettings baseline_settings(const core::SerialBaseline& b, const std::string& file) {
    const auto endpoint = http::endpoint_of_path(b.run.endpoint.value_or(""));
    if (!endpoint)
        throw Error(ErrorCategory::Trust, file + ": run.endpoint '" + b.run.endpoint.value_or("") +
                                              "' is no endpoint this bi-run sends to");
    return {b.model,
            {b.ctx},
            b.reps,
            b.run.n_predict.value_or(core::RunRequest{}.n_predict),
            *endpoint,
            b.run.logprobs.value_or(0),
            b.run.scorer,
            b.scorer_config,
            b.run.logit_drift_eps.value_or(0.0)};
}

BaselineSettings run_settings(const RunPlan& plan) {
    const auto& o = plan.options;
    return {o.model_alias,
            plan.ctxs,
            o.reps,
            o.request.n_predict,
            o.request.endpoint,
            o.request.logprobs,
            o.run_labels.scorer,
            o.scorer_config.empty() ? std::nullopt : std::optional<std::string>(o.scorer_config),
            o.logit_drift_eps};
}

std::vector<std::string> setting_differences(const BaselineSettings& recorded,
                                             const BaselineSettings& run) {
    std::vector<std::string> differ;
    const auto expect = [&differ](F field, const std::string& was, const std::string& now) {
        if (was != now) differ.push_back(field_ref(field) + " " + was + " (this run: " + now + ")");
    };
    expect(F::ModelAlias, recorded.model, run.model);
    for (const auto ctx : recorded.ctxs)
        if (std::find(run.ctxs.begin(), run.ctxs.end(), ctx) == run.ctxs.end())
            differ.push_back(field_ref(F::Ctxs) + " " + std::to_string(ctx) +
                             " (not among this run's)");
    expect(F::Reps, std::to_string(recorded.reps), std::to_string(run.reps));
    expect(F::NPredict, std::to_string(recorded.n_predict), std::to_string(run.n_predict));
    expect(F::Endpoint, std::string(core::endpoint_name(recorded.endpoint)),
           std::string(core::endpoint_name(run.endpoint)));
    expect(F::Logprobs, std::to_string(recorded.logprobs), std::to_string(run.logprobs));
    expect(F::Scorer, recorded.scorer.value_or(""), run.scorer.value_or(""));
    expect(F::ScorerConfig, recorded.scorer_config.value_or("(none)"),
           run.scorer_config.value_or("(none)"));
    const auto eps = [](double value) {
        std::ostringstream out;
        out << value;
        return out.str();
    };
    expect(F::LogitDriftEps, eps(recorded.logit_drift_eps), eps(run.logit_drift_eps));
    return differ;
}

core::RunRequest request_from_baseline(const core::SerialBaseline& b, const std::string& file,
                                       core::RunRequest r) {
    const auto settings = baseline_settings(b, file);
    r.model_alias = settings.model;
    r.ctxs = settings.ctxs;
    r.reps = settings.reps;
    r.n_predict = settings.n_predict;
    r.endpoint = settings.endpoint;
    r.logprobs = settings.logprobs;
    if (b.run.seed) r.seed = static_cast<std::uint64_t>(*b.run.seed);
    r.scoring.scorer = settings.scorer;
    r.scoring.scorer_config = settings.scorer_config;
    r.scoring.logit_drift_eps = settings.logit_drift_eps;
    // The baseline's KV cache unless told otherwise: by a label, or by the server's flags (read
    // as the default kind's, as a run's kind is not resolved yet).
    if (!r.kv_label &&
        !server::kv_cache_from_flags(io::default_server_kind().flags, r.target.server_flags))
        r.kv_label = b.kv_label;
    return r;
}

void attach_baseline(RunSetup& setup, const core::RunRequest& request, StoredBaseline stored) {
    const auto& b = stored.value;
    auto& o = setup.plan.options;
    const auto differ =
        setting_differences(baseline_settings(b, stored.file.path), run_settings(setup.plan));
    if (!differ.empty()) {
        std::string list;
        for (const auto& line : differ) list += (list.empty() ? "" : ", ") + line;
        throw Error(ErrorCategory::Usage,
                    field_ref(F::Baseline) + " " + stored.file.path + " was recorded with " + list +
                        ": run with the baseline's settings, or record a new baseline");
    }
    if (same_file(setup.plan.check_path(b.ctx), stored.file.path))
        throw Error(ErrorCategory::Usage, field_ref(F::Baseline) + " " + stored.file.path +
                                              " is where this run writes its check report; keep "
                                              "the baseline outside " +
                                              field_ref(F::OutDir) + " or rename it");
    const auto& scoring = request.scoring;
    if (!scoring.workset && !scoring.generator && setup.plugin_profile.empty()) {
        setup.rows = stored_rows(b);
        o.run_labels.workset = "(the rows of --baseline " + stored.file.path + ")";
    }
    setup.plan.baseline = std::make_shared<const StoredBaseline>(std::move(stored));
}

RecordOutcome record_baseline(const RunPlan& plan, plugin_host::ScorerInstance& scorer,
                              const WorkRowSource& rows, Progress& progress,
                              const std::string& path, bool replace) {
    const auto refuse_existing = [&] {
        throw Error(ErrorCategory::Usage,
                    field_ref(F::Out) + " " + path +
                        ": a file is there; a baseline is a reference to keep, so give " +
                        field_ref(F::Replace) + " to record over it, or another " +
                        field_ref(F::Out));
    };
    std::error_code ec;
    if (!replace && fs::exists(fs::symlink_status(path, ec))) refuse_existing();
    io::check_output_file(path, field_ref(F::Out), fs::path(path).parent_path().string());
    RecordOutcome outcome;
    outcome.path = path;
    const auto* signer = plan.options.sign_key.get();
    outcome.baseline =
        run_serial_side(plan, path, scorer, rows, progress, [&](core::SerialBaseline& baseline) {
            const std::string text = io::render_baseline(baseline, signer);
            baseline.digest = io::cert_digest(io::baseline_to_json(baseline));
            // Written all the same: the reader's bound is a setting, the run is not repeatable.
            if (text.size() > io::max_input_bytes())
                progress.notice(path + " is " + std::to_string(text.size()) + " bytes, over the " +
                                std::to_string(io::max_input_bytes()) +
                                " a reader takes: check with BI_MAX_INPUT_BYTES set above it");
            if (replace)
                io::write_file_atomically(path, text);
            else if (!io::create_file_atomically(path, text))
                throw Error(ErrorCategory::Io,
                            path +
                                ": a file appeared there while the baseline ran; it was left "
                                "alone and nothing was written");
        });
    outcome.problems =
        core::reference_problems(core::baseline_side(outcome.baseline), "the recorded");
    return outcome;
}

CheckOutcome check_baseline(const RunPlan& plan, plugin_host::ScorerInstance& scorer,
                            Progress& progress, const StoredBaseline& stored,
                            const std::string& path) {
    if (same_file(path, stored.file.path))
        throw Error(ErrorCategory::Usage, field_ref(F::Out) + " " + path +
                                              " is the baseline itself; the check report goes to "
                                              "a file of its own");
    io::check_output_file(path, field_ref(F::Out), fs::path(path).parent_path().string());
    CheckOutcome outcome;
    outcome.path = path;
    const auto* signer = plan.options.sign_key.get();
    run_serial_side(plan, path, scorer, stored_rows(stored.value), progress,
                    [&](const core::SerialBaseline& current) {
                        outcome.check = core::build_check(stored.value, stored.file, current);
                        io::write_file_atomically(path, io::render_check(outcome.check, signer));
                    });
    return outcome;
}

}  // namespace bi::driver
