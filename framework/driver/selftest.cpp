#include "selftest.hpp"

#include <unistd.h>

#include <filesystem>
#include <system_error>
#include <utility>

#include "builtin_workset.hpp"
#include "core/error.hpp"
#include "core/request_field.hpp"
#include "core/run_request.hpp"
#include "gguf/synth_model.hpp"
#include "interrupt.hpp"
#include "io/temporary_directory.hpp"
#include "plugin_host/plugin_set.hpp"
#include "progress.hpp"
#include "run_plan.hpp"
#include "server/argv.hpp"
#include "server/guards.hpp"
#include "server_kinds.hpp"

namespace bi::driver {

using core::field_ref;
using F = core::RequestField;

namespace {

// What a selftest leaves behind. The synthetic model always goes (the cert keeps its facts); a
// temp directory made here goes too unless the run produced a cert or `keep` was asked for, so a
// failed selftest leaves nothing in /tmp. A directory the user named is theirs: only the model
// file is removed from it.
class SelftestFiles {
public:
    SelftestFiles(std::string dir, bool made_here, bool keep)
        : dir_(std::move(dir)), made_here_(made_here), keep_(keep) {}
    ~SelftestFiles() {
        std::error_code ignored;
        if (!model_.empty()) std::filesystem::remove(model_, ignored);
        if (made_here_ && !keep_ && !produced_cert_) std::filesystem::remove_all(dir_, ignored);
    }
    SelftestFiles(const SelftestFiles&) = delete;
    SelftestFiles& operator=(const SelftestFiles&) = delete;

    void set_model(std::string path) { model_ = std::move(path); }
    void keep_for_cert() { produced_cert_ = true; }

private:
    std::string dir_;
    std::string model_;
    bool made_here_;
    bool keep_;
    bool produced_cert_ = false;
};

// Everything that can be refused is refused before the model is written; returns the kind.
core::ServerKind checked_kind(const SelftestRequest& r) {
    if (!r.target.server_bin) usage_error(field_ref(F::ServerBin) + " is required");
    if (r.parallel < 2)
        usage_error(field_ref(F::Parallel) + " must be at least 2 (a selftest needs co-batching)");
    if (r.parallel > 64) usage_error(field_ref(F::Parallel) + " must be at most 64 for a selftest");
    server::check_binary(*r.target.server_bin);  // plan_live checks the rest
    auto kind = r.target.server_kind
                    ? resolve_server_kind(*r.target.server_kind, r.target.server_kind_dirs)
                    : detect_server_kind(*r.target.server_bin, r.target.server_kind_dirs).kind;
    core::check_user_flags(kind, r.target.server_flags);
    if (kind.launch.model_form != core::ModelForm::Gguf)
        usage_error(field_ref(F::ServerKind) + " " + kind.name +
                    ": a selftest writes a GGUF model, and this kind " + "takes a model " +
                    std::string(core::model_form_name(kind.launch.model_form)));
    if (!gguf::tensor_type_named(r.dtype)) usage_error(field_ref(F::Dtype) + " must be f32 or f16");
    if (r.passes < 1) usage_error(field_ref(F::Passes) + " must be at least 1");
    if (r.n_predict < 1) usage_error(field_ref(F::NPredict) + " must be at least 1");
    if (r.ctx < 256) usage_error(field_ref(F::Ctx) + " must be at least 256");
    if (r.ctx > 1 << 20) usage_error(field_ref(F::Ctx) + " must be at most 1048576 for a selftest");
    return kind;
}

}  // namespace

SelftestResult run_selftest(const SelftestRequest& request, const Invocation& invocation,
                            std::ostream& notes) {
    core::ServerKind kind = checked_kind(request);
    const auto limits = guard_limits(request.target);
    const auto port = chosen_port(request.target);
    if (port) server::check_port(*port, limits);
    const auto ready_timeout = seconds_value(request.target.ready_timeout, F::ReadyTimeout);
    const auto parallel = static_cast<int>(request.parallel);

    RunPlan plan;
    RunOptions& o = plan.options;
    o.model_alias = "bi-selftest-" + request.dtype;
    o.passes = static_cast<int>(request.passes);
    // The native endpoint returns token ids; a kind without one is asked through chat.
    o.request.endpoint = kind.request.completion_path.empty() ? http::EndpointKind::Chat
                                                              : http::EndpointKind::Completion;
    o.request.n_predict = static_cast<int>(request.n_predict);
    o.request.logprobs = 1;
    o.request.max_response_bytes = checked_max_response_bytes(request.max_response_bytes);
    o.out_dir = request.out_dir ? *request.out_dir : io::make_temporary_directory("bi-selftest");
    std::filesystem::create_directories(o.out_dir);
    SelftestFiles files(o.out_dir, !request.out_dir, request.keep);

    const std::string model = o.out_dir + "/" + o.model_alias + ".gguf";
    files.set_model(model);
    gguf::ModelSpec spec;
    spec.dtype = gguf::tensor_type_named(request.dtype).value_or(gguf::TensorType::F32);
    spec.ctx = request.ctx * parallel;
    const auto synth = gguf::write_synth_model(model, spec);
    core::ModelFileRecord model_record;
    model_record.path = model;
    model_record.size = static_cast<std::int64_t>(synth.file.bytes);
    model_record.synthesized = synth.name;
    o.model_file = model_record;
    o.run_labels.scorer = "exact";
    o.run_labels.workset = "(built-in)";
    o.run_labels.server_flags = request.target.server_flags;
    o.run_labels.selftest = true;

    plugin_host::PluginSet plugins;
    core::ScoringRequest scoring;
    scoring.plugin_timeout = request.plugin_timeout;
    load_plugins(plugins, scoring, notes);
    auto scorer = plugins.create_scorer("", "");
    o.provenance = provenance_record(plugins, invocation);
    install_interrupt_handlers();
    Progress progress(Progress::detect(request.quiet), notes);
    if (!request.quiet)
        progress.note("selftest model " + model + " (" + synth.name + "), cert and log in " +
                      o.out_dir);

    LivePlan live;
    live.target = {*request.target.server_bin,
                   model,
                   o.model_alias,
                   std::string(core::kDefaultKvLabel),
                   request.target.server_flags,
                   request.target.server_kind.value_or("")};
    live.kind = std::move(kind);
    live.ready_timeout = ready_timeout;
    live.limits = limits;
    live.port = port;
    plan.ctxs = {request.ctx};
    plan.parallels = {parallel};
    plan.log_file = "selftest.server.log";
    plan_live(plan, std::move(live), true, std::nullopt);  // f16, unless --server-flag -ctk says
    o.model_file = model_record;                           // the synthetic model's own record
    const auto results = run_plan(
        plan, *scorer,
        [](const plugin_host::TokenCounter&, const std::string&, std::int64_t) {
            return builtin_work_rows();
        },
        progress);
    SelftestResult result{results.front().outcome, 0};
    const auto& run = result.outcome.cert.run;
    if (run && run->n_items) result.n_prompts = static_cast<std::size_t>(*run->n_items);
    files.keep_for_cert();
    return result;
}

}  // namespace bi::driver
