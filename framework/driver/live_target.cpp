// The live target: server binary, model, flags and KV label from the request or models.toml,
// and the guards and limits checked before a launch.
#include "run_setup.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "io/model_profile.hpp"

namespace bi::driver {

namespace {

std::string env_or(const char* name, const std::string& fallback) {
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

}  // namespace

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

std::string models_file_path(const std::optional<std::string>& given) {
    if (given) return *given;
    const char* env = std::getenv("BI_MODELS_TOML");
    return env && *env ? env : "models.toml";
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
    live.ready_timeout = seconds_value(request.target.ready_timeout, "ready-timeout");
    live.grace = seconds_value(request.target.shutdown_grace, "shutdown-grace", true);
    plan_live(setup.plan, std::move(live), request.model_alias.has_value(), request.kv_label);
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
