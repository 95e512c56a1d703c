#include "run_plan.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cell_configuration.hpp"
#include "core/baseline_documents.hpp"
#include "core/cert.hpp"
#include "core/error.hpp"
#include "core/model_name.hpp"
#include "core/request_field.hpp"
#include "core/run_request.hpp"
#include "core/text.hpp"
#include "io/baseline_io.hpp"
#include "io/cert_io.hpp"
#include "io/file_hash_cache.hpp"
#include "io/files.hpp"
#include "mock_launcher.hpp"
#include "server/argv.hpp"
#include "server/guards.hpp"
#include "server_kinds.hpp"

namespace bi::driver {

using core::field_ref;
using F = core::RequestField;

std::string RunPlan::cert_path(std::int64_t ctx, int parallel) const {
    return options.out_dir + "/" +
           core::cert_file_name(options.model_alias, ctx, parallel,
                                options.determinism.value_or(false));
}

std::string RunPlan::check_path(std::int64_t ctx) const {
    return options.out_dir + "/" + core::check_file_name(options.model_alias, ctx);
}

std::string RunPlan::log_path(std::int64_t ctx) const {
    if (log_file) return options.out_dir + "/" + *log_file;
    std::string stem = core::cert_file_name(options.model_alias, ctx, 0);
    stem = stem.substr(0, stem.rfind("__N"));
    return options.out_dir + "/" + stem + ".server.log";
}

LiveServerConfig RunPlan::launcher_config(std::int64_t ctx) const {
    LiveServerConfig config;
    config.command = {live->target.server_bin,
                      live->target.model,
                      live->target.flags,
                      live->kind,
                      options.determinism.value_or(false),
                      options.prefill_chunk.value_or(0)};
    config.limits = live->limits;
    config.port = live->port;
    config.ready_timeout = live->ready_timeout;
    config.max_response_bytes = options.request.max_response_bytes;
    config.grace = live->grace;
    config.log_path = log_path(ctx);
    return config;
}

server::Footprint RunPlan::footprint(std::int64_t ctx, int parallel) const {
    return server::project_footprint(live->facts, ctx * parallel,
                                     live->kv_types.empty() ? options.kv_label : live->kv_types);
}

void check_cell_names(const RunOptions& options) {
    // A kind with llama.cpp's cache-type flags (and the mock) takes llama.cpp's types; another
    // kind's label is its own flag's value or kServerDefaultKvLabel, checked by plan_live.
    const bool llama_types = !options.kind || options.kind->flags.has_kv_cache_type();
    if (llama_types && !server::kv_bytes_per_element(options.kv_label))
        throw Error(ErrorCategory::Usage,
                    field_ref(F::KvLabel) + " " + options.kv_label +
                        ": not a llama.cpp cache type (f32, f16, bf16, q8_0, q5_1, q5_0, q4_1, "
                        "q4_0, iq4_nl)");
    check_model_name(options);
}

void check_model_name(const RunOptions& options) {
    const std::string& model = options.model_alias;
    const std::string problem = core::model_name_problem(model);
    if (problem.empty()) return;
    const F from = options.model_alias_from;
    if (from == F::ModelAlias)
        throw Error(ErrorCategory::Usage, field_ref(from) + " '" + model + "': " + problem);
    throw Error(ErrorCategory::Usage, field_ref(from) + ": the model's name '" + model + "' is " +
                                          problem + "; name the cell with " +
                                          field_ref(F::ModelAlias));
}

namespace {

// The kind the caller named, else the one the binary's name and probes say.
void resolve_kind(LivePlan& live) {
    if (!live.kind.launch.argv.empty()) return;  // resolved by the caller already
    if (live.target.server_kind.empty()) {
        auto detected = detect_server_kind(live.target.server_bin, live.kind_dirs);
        live.kind = std::move(detected.kind);
        live.kind_how = std::move(detected.how);
    } else {
        live.kind = resolve_server_kind(live.target.server_kind, live.kind_dirs);
    }
}

// The side --determinism starts with: on for `on`, off for `off` and `both` (whose second side
// run_cells runs on); nothing for a kind without a mode, which refuses on and both.
void plan_determinism(RunOptions& o, const core::ServerKind& kind) {
    o.determinism.reset();
    if (!o.determinism_choice) return;
    const auto choice = *o.determinism_choice;
    if (choice != core::DeterminismChoice::Off && !kind.determinism.available())
        throw Error(ErrorCategory::Usage,
                    field_ref(F::Determinism) + " " + std::string(core::name(choice)) +
                        ": server kind '" + kind.name + "' has no determinism mode" +
                        (kind.determinism.none.empty() ? "" : " (" + kind.determinism.none + ")"));
    if (kind.determinism.available()) o.determinism = choice == core::DeterminismChoice::On;
}

// The model as the kind takes it: a GGUF file read for its facts, a directory, or a store name.
void check_live_model(LivePlan& live) {
    const core::ModelForm form = live.kind.launch.model_form;
    if (form == core::ModelForm::Gguf) {
        server::check_model(live.target.model);
        live.facts = server::read_model_facts(live.target.model);
        return;
    }
    if (form == core::ModelForm::Directory)
        server::check_model_directory(live.target.model);
    else if (live.target.model.empty())
        throw Error(ErrorCategory::Guard,
                    "no model given (" + field_ref(F::Model) + ": a name in the server's store)");
    live.facts = server::ModelFacts{};
    live.facts.path = live.target.model;
}

// The KV label the cert names and the cache types the guard projects. The server's own
// cache-type flags decide them; a --kv-label or models.toml `kv` that says otherwise is refused,
// and a label with no flags to say it is passed on as flags. A kind with one flag for the whole
// cache (kv_cache_type) is labelled with its value; a kind without KV flags, or one whose flag
// is not given, records kServerDefaultKvLabel, and a label asked of a kind without one is refused.
void plan_kv_cache(RunOptions& o, LivePlan& live,
                   const std::optional<std::string>& kv_label_given) {
    o.kv_label = kv_label_given ? *kv_label_given : live.target.kv;
    live.kv_types = o.kv_label;
    const auto& names = live.kind.flags;
    // A label of server-default (a baseline's, say) asks for nothing.
    const bool asked =
        (kv_label_given || live.target.kv_given) && o.kv_label != core::kServerDefaultKvLabel;
    const std::string asked_what = kv_label_given ? field_ref(F::KvLabel) + " " + *kv_label_given
                                                  : "models.toml kv = \"" + live.target.kv + "\"";
    if (!names.has_kv_cache_type() || live.kind.launch.model_form != core::ModelForm::Gguf) {
        if (names.kv_cache_type.empty()) {
            if (asked)
                throw Error(ErrorCategory::Usage,
                            asked_what + ": server kind '" + live.kind.name +
                                "' has no KV cache flag ([flags] kv_cache_type), so nothing "
                                "would set that type; its KV cache is as the server defaults");
            o.kv_label = live.kv_types = std::string(core::kServerDefaultKvLabel);
            return;
        }
        const std::string& flag = names.kv_cache_type.front();
        if (const auto set = server::kv_cache_type_from_flag(names, live.target.flags)) {
            if (set->empty())
                throw Error(ErrorCategory::Usage,
                            field_ref(F::ServerFlags) + " " + flag + ": no value");
            if (asked && o.kv_label != *set)
                throw Error(ErrorCategory::Usage, asked_what +
                                                      " contradicts the server's KV flag, which "
                                                      "gives " +
                                                      *set);
            o.kv_label = live.kv_types = *set;
            return;
        }
        if (!asked) {
            o.kv_label = live.kv_types = std::string(core::kServerDefaultKvLabel);
            return;
        }
        live.target.flags.insert(live.target.flags.end(), {flag, o.kv_label});
        return;
    }
    if (const auto flags = server::kv_cache_from_flags(names, live.target.flags)) {
        const auto refuse = [&](const std::string& what) {
            throw Error(ErrorCategory::Usage,
                        what + " contradicts the server's KV flags, which give " + flags->label);
        };
        if (kv_label_given && *kv_label_given != flags->label)
            refuse(field_ref(F::KvLabel) + " " + *kv_label_given);
        if (!kv_label_given && live.target.kv_given && live.target.kv != flags->label)
            refuse("models.toml kv = \"" + live.target.kv + "\"");
        o.kv_label = flags->label;
        live.kv_types = flags->types;
        return;
    }
    if (o.kv_label == core::kDefaultKvLabel) return;
    const auto slash = o.kv_label.find('/');
    const std::string k = o.kv_label.substr(0, slash);
    const std::string v = slash == std::string::npos ? k : o.kv_label.substr(slash + 1);
    if (!server::kv_bytes_per_element(k) || !server::kv_bytes_per_element(v))
        throw Error(ErrorCategory::Usage, field_ref(F::KvLabel) + " " + o.kv_label +
                                              ": not a llama.cpp cache type (f32, f16, "
                                              "bf16, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl)");
    live.target.flags.insert(live.target.flags.end(),
                             {names.kv_cache_type_k.front(), k, names.kv_cache_type_v.front(), v});
    live.kv_types = k == v ? k : k + "/" + v;
}

// Every cell's projected footprint against the cap and MemAvailable, and, with layers offloaded,
// the GPU's share against the free memory of the GPUs the server will use (when nvidia-smi lists
// them); a server that preallocates a fraction of GPU memory needs that much free on each GPU it
// sees. Only a GGUF's shape and size are known before launch.
void check_live_memory(const RunPlan& plan, RunOptions& o, LivePlan& live) {
    const bool gguf = live.kind.launch.model_form == core::ModelForm::Gguf;
    const auto mem = server::mem_available_bytes();
    const auto footprint = [&](std::int64_t ctx, int n) {
        return server::project_footprint(live.facts, ctx * n, live.kv_types);
    };
    for (auto ctx : plan.ctxs)
        for (int n : plan.parallels) {
            if (!gguf) break;
            server::check_context_without_shape(live.facts, ctx * n);
            server::check_footprint(footprint(ctx, n), live.limits, mem);
        }
    const auto& names = live.kind.flags;
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    const char* device_order = std::getenv("CUDA_DEVICE_ORDER");
    if (const auto layers =
            gguf ? server::offloaded_layers(names, live.target.flags) : std::nullopt) {
        if (const auto gpus = server::list_gpus()) {
            const auto selection =
                server::select_gpus(*gpus, visible, device_order, names, live.target.flags);
            live.gpu = server::selected_free(selection);
            live.gpu_selection = selection.why;
            for (auto ctx : plan.ctxs)
                for (int n : plan.parallels)
                    server::check_gpu_footprint(
                        server::gpu_part(footprint(ctx, n), live.facts, *layers), *layers,
                        selection);
        }
    }
    if (const auto fraction =
            server::memory_fraction(live.target.flags, live.kind.launch.memory_fraction_flag,
                                    live.kind.launch.memory_fraction_default)) {
        o.run_labels.gpu_memory_fraction = *fraction;
        if (const auto gpus = server::list_gpus())
            for (const auto& gpu :
                 server::select_gpus(*gpus, visible, device_order, names, {}).gpus)
                server::check_memory_fraction(*fraction, live.kind.launch.memory_fraction_flag,
                                              {gpu.total_bytes, 1}, {gpu.free_bytes, 1});
    }
}

// What the cert records of the model: its file (a directory is hashed as a manifest of its
// files when the run starts, like a GGUF), or the store name the server resolves at launch.
core::ModelFileRecord model_file_record(const LivePlan& live) {
    core::ModelFileRecord record;
    if (live.kind.launch.model_form == core::ModelForm::Name) {
        record.path = live.target.model;
        record.sha256 = std::nullopt;
        return record;
    }
    record.path = live.facts.path;
    record.size = static_cast<std::int64_t>(live.facts.file_bytes);
    record.sha256_head = live.facts.sha256_head;
    record.architecture = live.facts.architecture;
    return record;
}

// A prefill chunk is set through the kind's own flags, alike in every launch: a kind without them
// cannot take one, and a user flag that sets the chunk otherwise would contradict it.
void check_prefill_chunk(const RunOptions& o, const LivePlan& live) {
    if (!o.prefill_chunk) return;
    const std::string chunk = field_ref(F::PrefillChunk) + " " + std::to_string(*o.prefill_chunk);
    const auto& kind = live.kind;
    if (kind.launch.prefill_chunk.empty())
        throw Error(ErrorCategory::Usage,
                    chunk + ": server kind '" + kind.name +
                        "' declares no prefill-chunk flags (launch.prefill_chunk), so bi-run "
                        "cannot set how it prefills a prompt");
    if (const auto given = core::prefill_chunk_flag_among(kind, live.target.flags); !given.empty())
        throw Error(ErrorCategory::Usage,
                    field_ref(F::ServerFlags) + " " + given + " contradicts " + chunk +
                        ": bi-run sets " +
                        core::join(core::flag_names(kind.launch.prefill_chunk), " and ") +
                        " itself in every launch (" + kind.name + ")");
}

}  // namespace

void plan_live(RunPlan& plan, LivePlan live, bool alias_given,
               const std::optional<std::string>& kv_label_given) {
    server::check_binary(live.target.server_bin);
    resolve_kind(live);
    core::check_user_flags(live.kind, live.target.flags);
    check_prefill_chunk(plan.options, live);
    if (live.port) server::check_port(*live.port, live.limits);
    auto& o = plan.options;
    o.kind = live.kind;
    o.request.dialect = live.kind.request;
    o.request.model = live.target.model;
    if (o.request.endpoint == http::EndpointKind::Completion &&
        o.request.dialect.completion_path.empty())
        throw Error(ErrorCategory::Usage, field_ref(F::Endpoint) + " completion: server kind '" +
                                              live.kind.name +
                                              "' has no native completion endpoint (use chat)");
    check_live_model(live);
    plan_kv_cache(o, live, kv_label_given);
    o.cache_arm = o.cache_arm || live.target.cache_arm;  // --cache-arm, or the model's entry
    if (!o.determinism_choice && !live.target.determinism.empty())
        o.determinism_choice = core::parse_determinism(live.target.determinism);
    plan_determinism(o, live.kind);
    check_live_memory(plan, o, live);
    if (!alias_given) {
        o.model_alias = live.target.alias;
        o.model_alias_from = live.target.alias_from;
    }
    o.run_labels.server_flags = live.target.flags;
    o.model_file = model_file_record(live);
    plan.live = std::move(live);
    check_cell_names(o);
}

namespace {

std::unique_ptr<io::FileLock> lock_target(const RunPlan& plan, const std::string& target,
                                          std::string& holder, std::string* took_over) {
    std::error_code ec;
    if (std::filesystem::is_directory(target, ec))
        throw Error(ErrorCategory::Usage, target + " is a directory; bi-run writes a file there");
    try {
        return io::FileLock::try_lock(target + ".lock", holder, plan.stale_lock_after, took_over);
    } catch (const Error& e) {
        throw Error(ErrorCategory::Usage,
                    field_ref(plan.out_option) + " " + plan.options.out_dir + ": " + e.what());
    }
}

}  // namespace

std::vector<std::unique_ptr<io::FileLock>> lock_outputs(const RunPlan& plan,
                                                        const std::vector<std::string>& targets,
                                                        Progress& progress) {
    std::vector<std::unique_ptr<io::FileLock>> locks;
    for (const auto& target : std::set<std::string>(targets.begin(), targets.end())) {
        std::string holder;
        std::string took_over;
        auto lock = lock_target(plan, target, holder, &took_over);
        if (!lock)
            throw Error(ErrorCategory::Usage,
                        target + " is being written by another bi-run" +
                            (holder.empty() ? std::string() : " (pid " + holder + ")") +
                            "; wait for it to finish or use another " + field_ref(plan.out_option));
        if (!took_over.empty()) progress.notice(took_over);
        locks.push_back(std::move(lock));
    }
    return locks;
}

namespace {

// One lock per file this plan writes (every cell's cert, every ctx's server log and the baseline
// check), so a second run of the same cell into the same directory is refused instead of racing
// for the same files. A --log-file shared by every ctx is locked once.
std::vector<std::unique_ptr<io::FileLock>> lock_cells(const RunPlan& plan, Progress& progress) {
    std::vector<std::string> targets;
    for (auto ctx : plan.ctxs) {
        targets.push_back(plan.log_path(ctx));
        for (int n : plan.parallels) targets.push_back(plan.cert_path(ctx, n));
    }
    if (plan.baseline) targets.push_back(plan.check_path(plan.baseline->value.ctx));
    return lock_outputs(plan, targets, progress);
}

}  // namespace

// A progress line every 10% for a file that is hashed.
void hash_model(RunOptions& options, Progress& progress) {
    if (!options.model_file || options.model_file->sha256 || options.model_file->path.empty())
        return;
    if (options.kind && options.kind->launch.model_form == core::ModelForm::Name)
        return;  // a store name
    const std::string path = options.model_file->path;
    int reported = -1;
    const auto report = [&](std::uint64_t done, std::uint64_t total) {
        const int percent = total == 0 ? 100 : static_cast<int>(done * 100 / total);
        if (percent / 10 == reported / 10 && percent != 100) return;
        reported = percent;
        progress.note("hashing the model: " + std::to_string(percent) + "% of " +
                      server::format_size(total));
    };
    const std::string cache = options.out_dir + "/" + kHashCacheName;
    const bool directory =
        options.kind && options.kind->launch.model_form == core::ModelForm::Directory;
    const auto hashed = directory ? io::directory_manifest_sha256(path, cache, report)
                                  : io::cached_file_sha256(path, cache, report);
    if (hashed.from_cache) progress.note("model sha256 from the hash cache (" + path + ")");
    options.model_file->sha256 = hashed.sha256;
}

namespace {

// The cells of one ctx a resumed plan still has to run, each locked, with the ctx's log locked
// too; the others are reported through `on_skip`.
struct ResumedCtx {
    std::vector<std::unique_ptr<io::FileLock>> locks;
    std::vector<int> parallels;
};

ResumedCtx resume_ctx(const RunPlan& plan, const RunOptions& options, std::int64_t ctx,
                      const std::string& binary_sha256, Progress& progress,
                      const std::function<void(const SkippedCell&)>& on_skip) {
    ResumedCtx mine;
    const auto skip = [&](int n, bool done, bool promotable, std::string reason) {
        progress.notice("skipping " + core::cert_file_name(plan.options.model_alias, ctx, n) +
                        ": " + reason);
        if (on_skip) on_skip({ctx, n, done, promotable, std::move(reason)});
    };
    // True (and reported) when the cell's cert answers it already.
    const auto certified = [&](int n) {
        const std::string cert = plan.cert_path(ctx, n);
        const auto existing = check_existing_cert(cert, options, ctx, n, binary_sha256);
        if (!existing.reusable) return false;
        bool promotable = false;
        try {
            const auto loaded = io::read_cert(cert);
            promotable = core::check_promotable(loaded.cert, loaded.digest_intact).promotable;
        } catch (const Error&) {
        }
        skip(n, true, promotable, "done, " + existing.reason);
        return true;
    };
    std::vector<int> wanted;
    for (int n : plan.parallels)
        if (!certified(n)) wanted.push_back(n);
    if (wanted.empty()) return mine;
    std::string holder;
    std::string took_over;
    auto log_lock = lock_target(plan, plan.log_path(ctx), holder, &took_over);
    if (!took_over.empty()) progress.notice(took_over);
    if (!log_lock) {
        for (int n : wanted) skip(n, false, false, "another bi-run runs it (pid " + holder + ")");
        return mine;
    }
    mine.locks.push_back(std::move(log_lock));
    for (int n : wanted) {
        took_over.clear();
        auto lock = lock_target(plan, plan.cert_path(ctx, n), holder, &took_over);
        if (!took_over.empty()) progress.notice(took_over);
        if (!lock) {
            skip(n, false, false, "another bi-run runs it (pid " + holder + ")");
            continue;
        }
        if (certified(n)) continue;  // finished by another task while we looked
        mine.locks.push_back(std::move(lock));
        mine.parallels.push_back(n);
    }
    if (mine.parallels.empty()) mine.locks.clear();
    return mine;
}

// The check of a ctx's serial run against the plan's baseline, written beside the certs (signed
// as they are), and its summary for them; none at another ctx.
std::optional<core::BaselineCheckSummary> check_serial_run(const RunPlan& plan,
                                                           const CellRunner& runner,
                                                           const SerialArms& serial,
                                                           Progress& progress) {
    // An arm given up on its completion floor has too few answers to check.
    if (!plan.baseline || plan.baseline->value.ctx != serial.ctx || serial.given_up)
        return std::nullopt;
    const auto check = core::build_check(plan.baseline->value, plan.baseline->file,
                                         runner.serial_baseline(serial));
    const std::string path = plan.check_path(serial.ctx);
    io::write_file_atomically(path, io::render_check(check, plan.options.sign_key.get()));
    progress.note("baseline check: " + std::string(core::status_word(check.status)) + " (" +
                  check.reasons.front() + "): " + path);
    return core::summarise(check, std::filesystem::path(path).filename().string());
}

}  // namespace

std::unique_ptr<ServerLauncher> make_launcher(const RunPlan& plan, std::int64_t ctx) {
    if (plan.live) return std::make_unique<LiveLauncher>(plan.launcher_config(ctx));
    return std::make_unique<MockLauncher>(*plan.mock);
}

std::vector<CellResult> run_plan(const RunPlan& plan, plugin_host::ScorerInstance& scorer,
                                 const WorkRowSource& rows, Progress& progress,
                                 const std::function<void(const CellResult&)>& on_cell,
                                 const std::function<void(const SkippedCell&)>& on_skip) {
    if (!plan.live && !plan.mock)
        throw Error(ErrorCategory::Internal, "a run plan needs a live target or the mock");
    if (plan.resume && !plan.live)
        throw Error(ErrorCategory::Internal, "only a live plan is resumed");
    check_cell_names(plan.options);
    std::error_code ec;
    std::filesystem::create_directories(plan.options.out_dir, ec);
    if (ec)
        throw Error(ErrorCategory::Io,
                    field_ref(F::OutDir) + " " + plan.options.out_dir + ": " + ec.message());
    std::vector<std::unique_ptr<io::FileLock>> locks;
    if (!plan.resume) locks = lock_cells(plan, progress);
    RunOptions options = plan.options;
    hash_model(options, progress);
    const std::string binary_sha256 = plan.resume ? file_sha256(plan.live->target.server_bin) : "";
    std::vector<CellResult> results;
    for (auto ctx : plan.ctxs) {
        std::vector<int> parallels = plan.parallels;
        ResumedCtx resumed;
        if (plan.resume) {
            resumed = resume_ctx(plan, options, ctx, binary_sha256, progress, on_skip);
            parallels = resumed.parallels;
            if (parallels.empty()) continue;
        }
        auto launcher = make_launcher(plan, ctx);
        CellRunner runner(*launcher, scorer, options, progress);
        const auto serial = runner.run_serial(ctx, rows);
        const auto baseline_check = check_serial_run(plan, runner, serial, progress);
        for (int n : parallels) {
            results.push_back({ctx, n, runner.run_cell(serial, n, baseline_check)});
            if (on_cell) on_cell(results.back());
        }
    }
    return results;
}

}  // namespace bi::driver
