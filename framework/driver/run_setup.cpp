#include "run_setup.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "builtin_workset.hpp"
#include "core/error.hpp"
#include "core/sha256.hpp"
#include "core/utf8.hpp"
#include "interrupt.hpp"
#include "io/file_hash_cache.hpp"
#include "io/files.hpp"
#include "io/model_profile.hpp"
#include "io/workset.hpp"
#include "plugin_host/bundled_plugins.hpp"
#include "plugin_host/plugin_fault.hpp"

namespace bi::driver {

namespace {

std::set<std::string> bundled_paths(const plugin_host::PluginSet& plugins) {
    std::set<std::string> paths;
    for (const auto& plugin : plugins.list())
        if (plugin.bundled) paths.insert(plugin.path);
    return paths;
}

// An unreadable or missing models file names no alias here; run-live reports its problems
// when it reads the file for real.
bool names_model_alias(const std::string& file, const std::string& name) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) return false;
    try {
        const auto aliases = io::list_models(file).aliases;
        return std::find(aliases.begin(), aliases.end(), name) != aliases.end();
    } catch (const Error&) {
        return false;
    }
}

// Proves the directory is (or can be created) writable, so that a run never ends with a verdict
// it cannot save; it is created only when the run starts (driver::run_plan), so a refused run
// leaves nothing behind.
std::string prepare_out_dir(const std::string& dir) {
    namespace fs = std::filesystem;
    if (dir.empty()) usage_error("--out-dir is required (the directory the cert is written to)");
    std::error_code ec;
    fs::path existing = fs::absolute(dir, ec);
    while (!existing.empty() && !fs::exists(existing, ec) && existing != existing.parent_path())
        existing = existing.parent_path();
    if (!fs::is_directory(existing, ec))
        usage_error("--out-dir " + dir + ": " + existing.string() + " is not a directory");
    if (::access(existing.c_str(), W_OK) != 0)
        usage_error("--out-dir " + dir + ": " + existing.string() + " is not writable");
    return dir;
}

std::string env_or(const char* name, const std::string& fallback) {
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

}  // namespace

std::vector<std::string> split_path_list(const char* text) {
    std::vector<std::string> dirs;
    if (!text) return dirs;
    std::string list = text;
    std::size_t start = 0;
    while (start <= list.size()) {
        const auto colon = list.find(':', start);
        const auto dir = list.substr(start, colon == std::string::npos ? colon : colon - start);
        if (!dir.empty()) dirs.push_back(dir);
        if (colon == std::string::npos) break;
        start = colon + 1;
    }
    return dirs;
}

std::vector<std::int64_t> whole_number_list(const std::string& text, const std::string& flag,
                                            std::int64_t minimum, bool allow_lists) {
    std::vector<std::int64_t> values;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const std::string item =
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        std::size_t used = 0;
        long long value = 0;
        try {
            value = std::stoll(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size())
            usage_error("--" + flag + " " + text + ": expected a whole number" +
                        (allow_lists ? " or a comma-separated list" : ""));
        if (value < minimum)
            usage_error("--" + flag + " must be at least " + std::to_string(minimum));
        if (std::find(values.begin(), values.end(), value) != values.end())
            usage_error("--" + flag + " " + text + ": " + item + " is listed twice");
        values.push_back(value);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (values.size() > 1 && !allow_lists)
        usage_error("--" + flag + " takes one value here; bi-run sweep runs several cells");
    return values;
}

std::chrono::milliseconds seconds_value(double seconds, const char* name, bool zero_allowed) {
    const std::string flag = std::string("--") + name;
    if (!std::isfinite(seconds) || seconds > 1e6)
        usage_error(flag + ": expected a number of seconds up to 1000000");
    if (zero_allowed ? seconds < 0 : !(seconds > 0))
        usage_error(flag + (zero_allowed ? " must not be negative" : " must be positive"));
    return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

std::size_t max_response_bytes_value(const std::string& text) {
    constexpr unsigned long long kMin = 1024;
    constexpr unsigned long long kMax = 1ULL << 30;
    const bool digits =
        !text.empty() && text.size() <= 19 &&
        std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    const unsigned long long value = digits ? std::stoull(text) : 0;
    if (!digits || value < kMin || value > kMax)
        usage_error("--max-response-bytes " + text + ": expected a whole number of bytes from " +
                    std::to_string(kMin) + " to " + std::to_string(kMax));
    return static_cast<std::size_t>(value);
}

std::string resolve_plugin_path(const std::string& name,
                                const std::vector<std::string>& plugin_dirs) {
    namespace fs = std::filesystem;
    if (name.find('/') != std::string::npos) return name;
    std::vector<std::string> dirs = plugin_dirs;
    for (auto& dir : split_path_list(std::getenv("BI_PLUGIN_PATH"))) dirs.push_back(dir);
    for (auto& dir : plugin_host::bundled_plugin_dirs()) dirs.push_back(dir);
    dirs.emplace_back(".");
    std::string searched;
    for (const auto& dir : dirs) {
        const fs::path candidate = fs::path(dir) / name;
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec)) return candidate.string();
        searched += (searched.empty() ? "" : ", ") + dir;
    }
    usage_error("--plugin " + name +
                ": not found in --plugin-dir, $BI_PLUGIN_PATH, the bundled plugin "
                "directory or the current directory (searched: " +
                searched + ")");
}

std::vector<std::string> load_plugins(plugin_host::PluginSet& plugins,
                                      const core::ScoringRequest& request, std::ostream& notes) {
    plugins.set_call_timeout(seconds_value(request.plugin_timeout_s, "plugin-timeout"));
    driver::install_interrupt_handlers();
    plugins.set_interrupt_check(driver::throw_if_interrupted);
    std::vector<std::string> resolved;
    try {
        plugins.load_bundled();
        for (const auto& name : request.plugins) {
            const std::string path = resolve_plugin_path(name, request.plugin_dirs);
            if (path != name) notes << "bi-run: note: --plugin " << name << " is " << path << "\n";
            const auto before = bundled_paths(plugins);
            plugins.load(path);
            resolved.push_back(path);
            const auto after = bundled_paths(plugins);
            for (const auto& bundled : before)
                if (!after.count(bundled))
                    notes << "bi-run: note: " << path << " shadows the bundled " << bundled
                          << " (same ids)\n";
        }
    } catch (const plugin_host::PluginFault&) {
        throw;
    } catch (const Error& e) {
        throw Error(ErrorCategory::Usage, without_bi_prefix(e.what()));
    }
    return resolved;
}

std::vector<std::pair<std::string, std::string>> parse_generator_params(
    const std::vector<std::string>& values) {
    std::vector<std::pair<std::string, std::string>> params;
    for (const auto& piece : values) {
        const auto equals = piece.find('=');
        if (equals == std::string::npos) {
            if (params.empty())
                throw Error(ErrorCategory::Usage,
                            "--generator-param '" + piece + "': expected KEY=VALUE");
            params.back().second += "," + piece;
            continue;
        }
        if (equals == 0)
            throw Error(ErrorCategory::Usage,
                        "--generator-param '" + piece + "': the key is empty");
        params.emplace_back(piece.substr(0, equals), piece.substr(equals + 1));
    }
    return params;
}

std::string models_file_path(const std::optional<std::string>& given) {
    if (given) return *given;
    const char* env = std::getenv("BI_MODELS_TOML");
    return env && *env ? env : "models.toml";
}

std::string chosen_plugin_profile(const core::RunRequest& request,
                                  const plugin_host::PluginSet& plugins, ProfileScope scope) {
    if (!request.profile) return "";
    const std::string& name = *request.profile;
    if (scope == ProfileScope::ModelsFileFirst &&
        names_model_alias(models_file_path(request.target.models_toml), name))
        return "";
    if (!plugins.has_generator(name) || !plugins.has_scorer(name)) {
        if (scope == ProfileScope::PluginOnly)
            usage_error("--profile " + name +
                        ": no loaded plugin offers both a generator and a scorer with that id (see "
                        "bi-run plugins)");
        return "";
    }
    if (request.scoring.generator || (request.scoring.scorer && !request.scoring.scorer->empty()))
        usage_error("--profile " + name + " selects the generator and scorer '" + name +
                    "'; leave out --generator and --scorer, or leave out --profile");
    return name;
}

core::ProvenanceRecord provenance_record(const plugin_host::PluginSet& plugins,
                                         const Invocation& invocation) {
    core::ProvenanceRecord record;
    record.version = invocation.version;
    record.commit = invocation.commit;
    for (const auto& arg : invocation.argv) record.argv.push_back(core::replace_invalid_utf8(arg));
    for (const auto& info : plugins.list()) {
        core::PluginRecord plugin{info.name, info.version, info.path, std::nullopt};
        try {
            plugin.sha256 = io::stream_file_sha256(info.path);
        } catch (const Error&) {
            // a plugin file that cannot be read again stays recorded, without its hash
        }
        record.plugins.push_back(std::move(plugin));
    }
    return record;
}

std::shared_ptr<const trust::SigningKey> signing_key(const std::string& flag_value) {
    if (!flag_value.empty()) return trust::SigningKey::load(flag_value, "--sign-key");
    const char* env = std::getenv("BI_SIGN_KEY");
    if (env && *env) return trust::SigningKey::load(env, "$BI_SIGN_KEY");
    return nullptr;
}

RunSetup prepare_run(const core::RunRequest& request, const Invocation& invocation,
                     bool allow_lists, ProfileScope profile_scope, std::ostream& notes) {
    RunSetup setup;
    auto& o = setup.plan.options;
    o.out_dir = prepare_out_dir(request.out_dir);
    o.sign_key = signing_key(request.sign_key.value_or(""));
    o.model_alias = request.model_alias.value_or("");
    o.kv_label = request.kv_label.value_or(std::string(core::kDefaultKvLabel));
    if (!allow_lists && (request.ctxs.size() != 1 || request.parallels.size() != 1))
        usage_error("--ctx and --parallel take one value here; bi-run sweep runs several cells");
    if (request.ctxs.empty() || request.parallels.empty())
        usage_error("--ctx and --parallel need at least one value");
    setup.plan.ctxs = request.ctxs;
    for (auto n : request.parallels) {
        if (n < 1) usage_error("--parallel must be at least 1");
        if (n > 4096) usage_error("--parallel " + std::to_string(n) + ": at most 4096");
        setup.plan.parallels.push_back(static_cast<int>(n));
    }
    // llama-server keeps a context size in 32 bits: refuse what would wrap before any launch.
    constexpr std::int64_t kMaxContext = 2147483647;
    for (auto ctx : setup.plan.ctxs) {
        if (ctx < 16) usage_error("--ctx must be at least 16");
        if (ctx > kMaxContext) usage_error("--ctx " + std::to_string(ctx) + ": at most 2147483647");
        for (int n : setup.plan.parallels)
            if (ctx * n > kMaxContext)
                usage_error("--ctx " + std::to_string(ctx) + " x --parallel " + std::to_string(n) +
                            " = " + std::to_string(ctx * n) +
                            " tokens for the N-slot server: at most 2147483647");
    }
    const auto at_least = [](std::int64_t value, const char* name, std::int64_t minimum) {
        if (value < minimum)
            usage_error("--" + std::string(name) + " must be at least " + std::to_string(minimum));
        if (value > 1000000000)
            usage_error("--" + std::string(name) + " must be at most 1000000000");
        return static_cast<int>(value);
    };
    o.passes = at_least(request.passes.value_or(4), "passes", 1);
    o.confidence = request.confidence;
    if (!(o.confidence > 0.0 && o.confidence < 1.0))
        usage_error("--confidence must be between 0 and 1 (exclusive), e.g. 0.95");
    o.max_passes = at_least(request.max_passes.value_or(kDefaultMaxPasses), "max-passes", 1);
    if (request.target_rate) {
        const double rate = *request.target_rate;
        if (!(rate > 0.0 && rate < 1.0))
            usage_error("--target-rate must be between 0 and 1 (exclusive), e.g. 0.01");
        if (request.passes)
            usage_error("--target-rate plans the passes itself: leave out --passes");
        o.target_rate = rate;
    } else if (request.max_passes) {
        usage_error(
            "--max-passes caps the planned passes of --target-rate: give --target-rate too");
    }
    o.reps = at_least(request.reps, "reps", 1);
    o.request.n_predict = at_least(request.n_predict, "n-predict", 1);
    o.request.logprobs = at_least(request.logprobs, "logprobs", 0);
    if (o.request.logprobs > 20) usage_error("--logprobs must be at most 20");
    const auto endpoint_kind = http::parse_endpoint(request.endpoint);
    if (!endpoint_kind)
        usage_error("--endpoint must be chat or completion, not '" + request.endpoint + "'");
    o.request.endpoint = *endpoint_kind;
    o.seed = request.seed;
    o.stagger = std::chrono::milliseconds(at_least(request.stagger_ms, "stagger-ms", 0));
    o.request.timeout = seconds_value(request.req_timeout_s, "req-timeout");
    o.request.max_response_bytes = request.max_response_bytes.empty()
                                       ? http::kDefaultMaxResponseBytes
                                       : max_response_bytes_value(request.max_response_bytes);
    if (const auto deadline = seconds_value(request.arm_deadline_s, "arm-deadline", true);
        deadline.count() > 0)
        o.arm_deadline = deadline;
    o.stop_on_red = request.stop_on_red;
    const auto& scoring = request.scoring;
    if (!(scoring.logit_drift_eps >= 0 && scoring.logit_drift_eps <= 1e6))
        usage_error("--logit-drift-eps must be between 0 and 1e+06");
    o.logit_drift_eps = scoring.logit_drift_eps;

    setup.plugins = std::make_unique<plugin_host::PluginSet>();
    load_plugins(*setup.plugins, scoring, notes);
    setup.plugin_profile = chosen_plugin_profile(request, *setup.plugins, profile_scope);
    const auto scorer_id =
        setup.plugin_profile.empty() ? scoring.scorer.value_or("") : setup.plugin_profile;
    setup.scorer = setup.plugins->create_scorer(scorer_id, scoring.scorer_config.value_or(""));
    o.scorer_config = scoring.scorer_config.value_or("");

    o.provenance = provenance_record(*setup.plugins, invocation);
    core::RunRecord& run = o.run_labels;
    run.scorer = scorer_id.empty() ? std::string(plugin_host::kDefaultScorerId) : scorer_id;
    if (!setup.plugin_profile.empty()) run.profile = setup.plugin_profile;
    // With --workset the file replaces the profile's generator; its scorer still applies.
    const bool profile_generates = !setup.plugin_profile.empty() && !scoring.workset;
    if (scoring.workset && scoring.generator)
        usage_error("--workset and --generator cannot be used together");
    if (scoring.workset) {
        const auto& path = *scoring.workset;
        std::vector<core::WorkRow> rows;
        std::vector<std::string> warnings;
        std::string text;  // read once: a stream ("-", a FIFO) cannot be read again to hash it
        try {
            text = io::read_file_or_stream(path);  // fail now, before any server starts
            rows = io::parse_workset_text(text, path == "-" ? "standard input" : path, &warnings);
        } catch (const Error& e) {
            usage_error(std::string("--workset: ") + e.what());
        }
        for (const auto& warning : warnings) notes << "bi-run: warning: " << warning << "\n";
        if (rows.empty()) usage_error("--workset " + path + ": the work-set has no rows");
        setup.rows = [rows](const plugin_host::TokenCounter&, const std::string&, std::int64_t) {
            return rows;
        };
        run.workset = path;
        o.provenance->workset_sha256 = core::sha256_hex(text);
    } else if (scoring.generator || profile_generates) {
        const auto id = profile_generates ? setup.plugin_profile : *scoring.generator;
        if (!setup.plugins->has_generator(id))
            usage_error("--generator " + id + ": no loaded plugin offers it (see bi-run plugins)");
        plugin_host::GenerationRequest generation;
        generation.seed = o.seed;
        if (!scoring.generator_params.empty()) {
            generation.parameters = parse_generator_params(scoring.generator_params);
            run.generator_params = scoring.generator_params;
        }
        // A generator refuses bad parameters when it runs, so it runs once now, before any
        // server starts, on the first cell's context and with estimated token counts.
        auto probe = generation;
        probe.model_id = o.model_alias;
        probe.ctx = setup.plan.ctxs.front();
        try {
            setup.plugins->generate_rows(id, probe);
        } catch (const plugin_host::PluginFault&) {
            throw;  // the plugin failed, not its parameters: the message says so already
        } catch (const Error& e) {
            throw Error(e.category(), "--generator " + id + ": " + without_bi_prefix(e.what()));
        }
        // The plugin set lives in the RunSetup, on the heap, for as long as the run.
        const plugin_host::PluginSet* plugins = setup.plugins.get();
        setup.rows = [plugins, id, generation](const plugin_host::TokenCounter& count,
                                               const std::string& model_id, std::int64_t ctx) {
            auto r = generation;
            r.model_id = model_id;
            r.ctx = ctx;
            return plugins->generate_rows(id, r, count);
        };
        run.generator = id;
        o.provenance->generator_params = scoring.generator_params;
        o.provenance->generator_seed = static_cast<std::int64_t>(generation.seed);
    } else {
        setup.rows = [](const plugin_host::TokenCounter&, const std::string&, std::int64_t) {
            return builtin_work_rows();
        };
        run.workset = "(built-in)";
    }
    return setup;
}

// `profile_is_model` is false when --profile named a measurement profile instead.
LiveTarget resolve_target(const core::RunRequest& request, bool profile_is_model) {
    LiveTarget target;
    const auto& t = request.target;
    if (request.profile && profile_is_model) {
        const std::string file = models_file_path(t.models_toml);
        const std::string dir = t.models_dir ? *t.models_dir : env_or("MODELS_DIR", "");
        if (!std::filesystem::exists(file))
            usage_error("--profile needs a models file: " + file +
                        " not found (see --models-toml)");
        const auto profile = io::load_model_profile(file, *request.profile, dir);
        target = {profile.server_bin, profile.gguf,         profile.alias,
                  profile.kv,         profile.server_flags, profile.server_kind};
    }
    if (t.server_bin) target.server_bin = *t.server_bin;
    if (t.model) target.model = *t.model;
    if (t.server_kind) target.server_kind = *t.server_kind;
    for (const auto& flag : t.server_flags) target.flags.push_back(flag);
    target.kv_given = !target.kv.empty();
    if (target.kv.empty()) target.kv = core::kDefaultKvLabel;
    if (target.alias.empty() && !target.model.empty())
        target.alias = std::filesystem::path(target.model).stem().string();
    return target;
}

std::optional<double> footprint_cap(double gb) {
    if (gb == 0) return std::nullopt;
    if (!(gb >= 0.001 && gb <= 1e6))
        usage_error("--max-footprint-gb must be 0 (no cap) or between 0.001 and 1e+06");
    return gb;
}

server::GuardLimits guard_limits(const core::TargetRequest& target) {
    server::GuardLimits limits;
    if (target.max_footprint_gb) limits.max_footprint_gb = footprint_cap(*target.max_footprint_gb);
    for (auto port : target.reserved_ports) {
        if (port < 1 || port > 65535)
            usage_error("--reserved-port " + std::to_string(port) + ": not a port");
        limits.reserved_ports.push_back(static_cast<std::uint16_t>(port));
    }
    for (auto pid : target.untouchable_pids) {
        if (pid < 1 || pid > 2147483647)
            usage_error("--untouchable-pid " + std::to_string(pid) + ": not a PID");
        limits.untouchable_pids.push_back(static_cast<int>(pid));
    }
    return limits;
}

std::optional<std::uint16_t> chosen_port(const core::TargetRequest& target) {
    if (!target.port) return std::nullopt;
    const auto port = *target.port;
    if (port < 1 || port > 65535) usage_error("--port " + std::to_string(port) + ": not a port");
    return static_cast<std::uint16_t>(port);
}

namespace {

// With a measurement profile, the model is --model-alias's models.toml entry (the upstream
// tool's `--profile spark --model-alias NAME` form), else --server-bin and --model.
LiveTarget measured_target(const core::RunRequest& request, const std::string& profile) {
    const std::string file = models_file_path(request.target.models_toml);
    if (request.model_alias && names_model_alias(file, *request.model_alias)) {
        core::RunRequest entry = request;
        entry.profile = request.model_alias;
        return resolve_target(entry, true);
    }
    LiveTarget target = resolve_target(request, false);
    if (!target.server_bin.empty() && !target.model.empty()) return target;
    const std::string form = "--profile " + profile +
                             " is a measurement profile (generator and scorer), not a "
                             "models.toml alias: ";
    const std::string or_explicit = "; or give --server-bin and --model";
    if (!request.model_alias)
        usage_error(form + "name the model with --model-alias ALIAS (an alias in " + file + ")" +
                    or_explicit);
    const std::string alias = "--model-alias " + *request.model_alias;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        usage_error(form + alias + " names a models.toml entry, but " + file +
                    " is not there (see --models-toml)" + or_explicit);
    std::string known;
    for (const auto& name : io::list_models(file).aliases)
        known += (known.empty() ? "" : ", ") + name;
    usage_error(form + alias + " is not an alias in " + file +
                " (aliases: " + (known.empty() ? "none" : known) + ")" + or_explicit);
}

}  // namespace

// The live half of the plan from the request; plan_live checks it before the first launch.
void plan_from_request(const core::RunRequest& request, RunSetup& setup) {
    LivePlan live;
    live.target = setup.plugin_profile.empty() ? resolve_target(request, true)
                                               : measured_target(request, setup.plugin_profile);
    live.kind_dirs = request.target.server_kind_dirs;
    live.limits = guard_limits(request.target);
    live.port = chosen_port(request.target);
    live.ready_timeout = seconds_value(request.target.ready_timeout_s, "ready-timeout");
    live.grace = seconds_value(request.target.shutdown_grace_s, "shutdown-grace", true);
    plan_live(setup.plan, std::move(live), request.model_alias.has_value(), request.kv_label);
}

// The items a cell will send, when the work-set can be sized without a server (its tokenizer is
// not needed to count rows); nullopt when the generator needs it.
std::optional<std::size_t> work_set_size(const RunSetup& setup) {
    const plugin_host::TokenCounter no_tokenizer = [](std::string_view) {
        return std::optional<std::int64_t>();
    };
    try {
        const auto rows =
            setup.rows(no_tokenizer, setup.plan.options.model_alias, setup.plan.ctxs.front());
        return rows.size() * static_cast<std::size_t>(setup.plan.options.reps);
    } catch (const Error&) {
        return std::nullopt;
    }
}

server::ModelFacts model_facts(const std::string& model, const ModelShape& shape) {
    const char* kShape[] = {"n-layer", "n-head-kv", "head-dim"};
    const std::optional<std::int64_t> given[] = {shape.n_layer, shape.n_head_kv, shape.head_dim};
    if (!shape.file_gib) {
        for (std::size_t i = 0; i < 3; ++i)
            if (given[i])
                usage_error(std::string("--") + kShape[i] +
                            " describes a model without its file: give "
                            "--gguf-gb too (or --model and no shape)");
        if (model.empty())
            usage_error(
                "name the model: --model FILE, --profile ALIAS, or --gguf-gb with --n-layer, "
                "--n-head-kv and --head-dim");
        server::check_model(model);
        return server::read_model_facts(model);
    }
    if (!model.empty()) usage_error("--gguf-gb stands for the model file: leave out --model");
    std::string missing;
    for (std::size_t i = 0; i < 3; ++i)
        if (!given[i]) missing += std::string(missing.empty() ? "" : ", ") + "--" + kShape[i];
    if (!missing.empty()) usage_error("--gguf-gb needs the KV shape too: missing " + missing);
    const double gib = *shape.file_gib;
    if (!(gib >= 0.001 && gib <= 1e6)) usage_error("--gguf-gb must be between 0.001 and 1e+06");
    const auto whole = [](std::int64_t value, const char* name) {
        if (value < 1 || value > 1000000)
            usage_error(std::string("--") + name + " must be between 1 and 1000000");
        return value;
    };
    server::ModelFacts facts;
    facts.path = "(--gguf-gb)";
    facts.file_bytes = static_cast<std::uint64_t>(gib * 1024.0 * 1024.0 * 1024.0);
    facts.n_layer = whole(*shape.n_layer, "n-layer");
    facts.n_head_kv = whole(*shape.n_head_kv, "n-head-kv");
    facts.n_head = facts.n_head_kv;
    facts.key_length = facts.value_length = whole(*shape.head_dim, "head-dim");
    facts.n_embd = *facts.key_length * *facts.n_head_kv;
    return facts;
}

}  // namespace bi::driver
