#include "run_plan.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/cert.hpp"
#include "core/error.hpp"
#include "io/file_hash_cache.hpp"
#include "io/files.hpp"
#include "mock_launcher.hpp"
#include "server/argv.hpp"

namespace bi::driver {

std::string RunPlan::cert_path(std::int64_t ctx, int parallel) const {
    return options.out_dir + "/" + core::cert_file_name(options.model_alias, ctx, parallel);
}

std::string RunPlan::log_path(std::int64_t ctx) const {
    if (log_file) return options.out_dir + "/" + *log_file;
    std::string stem = core::cert_file_name(options.model_alias, ctx, 0);
    stem = stem.substr(0, stem.find("__N"));
    return options.out_dir + "/" + stem + ".server.log";
}

LiveServerConfig RunPlan::launcher_config(std::int64_t ctx) const {
    LiveServerConfig config;
    config.command = {live->target.server_bin, live->target.model, live->target.flags};
    config.limits = live->limits;
    config.port = live->port;
    config.ready_timeout = live->ready_timeout;
    config.max_response_bytes = options.request.max_response_bytes;
    config.grace = live->grace;
    config.log_path = log_path(ctx);
    return config;
}

server::Footprint RunPlan::footprint(std::int64_t ctx, int parallel) const {
    return server::project_footprint(live->facts, ctx * parallel, options.kv_label);
}

void check_cell_names(const RunOptions& options) {
    if (!server::kv_bytes_per_element(options.kv_label))
        throw Error(ErrorCategory::Usage,
                    "--kv-label " + options.kv_label +
                        ": not a llama.cpp cache type (f32, f16, bf16, q8_0, q5_1, q5_0, q4_1, "
                        "q4_0, iq4_nl)");
    const std::string& model = options.model_alias;
    const auto plain_char = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
               c == '+' || c == '/';
    };
    const bool plain = !model.empty() && model.size() <= 200 && model.front() != '.' &&
                       model.front() != '/' && model.find("..") == std::string::npos &&
                       std::all_of(model.begin(), model.end(), plain_char);
    if (!plain)
        throw Error(ErrorCategory::Usage,
                    "--model-alias '" + model +
                        "': not a plain model name (letters, digits and . _ - + /, not starting "
                        "with . or /, no '..', at most 200 characters)");
}

void plan_live(RunPlan& plan, LivePlan live, bool alias_given,
               const std::optional<std::string>& kv_label_given) {
    server::check_binary(live.target.server_bin);
    server::check_model(live.target.model);
    server::check_user_flags(live.target.flags);
    if (live.port) server::check_port(*live.port, live.limits);
    live.facts = server::read_model_facts(live.target.model);

    // The guard projects the KV cache the cert will name: --kv-label wins over the target's.
    auto& o = plan.options;
    o.kv_label = kv_label_given ? *kv_label_given : live.target.kv;
    const auto mem = server::mem_available_bytes();
    for (auto ctx : plan.ctxs)
        for (int n : plan.parallels) {
            server::check_context_without_shape(live.facts, ctx * n);
            server::check_footprint(server::project_footprint(live.facts, ctx * n, o.kv_label),
                                    live.limits, mem);
        }
    // With layers offloaded, the GPU's share must fit the free GPU memory too (when known).
    if (const auto layers = server::offloaded_layers(live.target.flags)) {
        live.gpu = server::gpu_free_memory();
        if (live.gpu)
            for (auto ctx : plan.ctxs)
                for (int n : plan.parallels)
                    server::check_gpu_footprint(
                        server::gpu_part(server::project_footprint(live.facts, ctx * n, o.kv_label),
                                         live.facts, *layers),
                        *layers, *live.gpu);
    }

    if (!alias_given) o.model_alias = live.target.alias;
    o.run_labels.server_flags = live.target.flags;
    o.model_file = core::ModelFileRecord{};
    o.model_file->path = live.facts.path;
    o.model_file->size = static_cast<std::int64_t>(live.facts.file_bytes);
    o.model_file->sha256_head = live.facts.sha256_head;
    o.model_file->architecture = live.facts.architecture;
    plan.live = std::move(live);
    check_cell_names(o);
}

namespace {

// One lock per file this plan writes (every cell's cert and every ctx's server log), so a second
// run of the same cell into the same directory is refused instead of racing for the same files.
// Taking them also proves, before any server starts, that the directory takes new files.
std::vector<std::unique_ptr<io::FileLock>> lock_cells(const RunPlan& plan) {
    std::set<std::string> targets;  // a --log-file shared by every ctx is locked once
    for (auto ctx : plan.ctxs) {
        targets.insert(plan.log_path(ctx));
        for (int n : plan.parallels) targets.insert(plan.cert_path(ctx, n));
    }
    std::vector<std::unique_ptr<io::FileLock>> locks;
    for (const auto& target : targets) {
        std::error_code ec;
        if (std::filesystem::is_directory(target, ec))
            throw Error(ErrorCategory::Usage,
                        target + " is a directory; bi-run writes a file there");
        std::string holder;
        std::unique_ptr<io::FileLock> lock;
        try {
            lock = io::FileLock::try_lock(target + ".lock", holder);
        } catch (const Error& e) {
            throw Error(ErrorCategory::Usage,
                        "--out-dir " + plan.options.out_dir + ": " + e.what());
        }
        if (!lock)
            throw Error(ErrorCategory::Usage,
                        target + " is being written by another bi-run" +
                            (holder.empty() ? std::string() : " (pid " + holder + ")") +
                            "; wait for it to finish or use another --out-dir");
        locks.push_back(std::move(lock));
    }
    return locks;
}

// The model's whole-file sha256, from the output directory's hash cache when the file has not
// changed since it was last hashed there; a progress line every 10% for a file that is hashed.
void hash_model(RunOptions& options, Progress& progress) {
    if (!options.model_file || options.model_file->sha256 || options.model_file->path.empty())
        return;
    const std::string path = options.model_file->path;
    int reported = -1;
    const auto report = [&](std::uint64_t done, std::uint64_t total) {
        const int percent = total == 0 ? 100 : static_cast<int>(done * 100 / total);
        if (percent / 10 == reported / 10 && percent != 100) return;
        reported = percent;
        char line[160];
        std::snprintf(line, sizeof line, "hashing the model: %d%% of %.1f GB", percent,
                      static_cast<double>(total) / 1e9);
        progress.note(line);
    };
    const auto hashed =
        io::cached_file_sha256(path, options.out_dir + "/" + kHashCacheName, report);
    if (hashed.from_cache) progress.note("model sha256 from the hash cache (" + path + ")");
    options.model_file->sha256 = hashed.sha256;
}

}  // namespace

std::vector<CellResult> run_plan(const RunPlan& plan, plugin_host::ScorerInstance& scorer,
                                 const WorkRowSource& rows, Progress& progress,
                                 const std::function<void(const CellResult&)>& on_cell) {
    if (!plan.live && !plan.mock)
        throw Error(ErrorCategory::Internal, "a run plan needs a live target or the mock");
    check_cell_names(plan.options);
    std::error_code ec;
    std::filesystem::create_directories(plan.options.out_dir, ec);
    if (ec)
        throw Error(ErrorCategory::Io, "--out-dir " + plan.options.out_dir + ": " + ec.message());
    const auto locks = lock_cells(plan);
    RunOptions options = plan.options;
    hash_model(options, progress);
    std::vector<CellResult> results;
    for (auto ctx : plan.ctxs) {
        std::unique_ptr<ServerLauncher> launcher;
        if (plan.live)
            launcher = std::make_unique<LiveLauncher>(plan.launcher_config(ctx));
        else
            launcher = std::make_unique<MockLauncher>(*plan.mock);
        CellRunner runner(*launcher, scorer, options, progress);
        const auto baseline = runner.run_baseline(ctx, rows);
        for (int n : plan.parallels) {
            results.push_back({ctx, n, runner.run_cell(baseline, n)});
            if (on_cell) on_cell(results.back());
        }
    }
    return results;
}

}  // namespace bi::driver
