// The live target: server binary, model, flags and KV label from the request or models.toml,
// and the guards and limits checked before a launch.
#include "run_setup.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "core/error.hpp"
#include "core/request_field.hpp"
#include "io/model_profile.hpp"

namespace bi::driver {

using core::field_ref;
using F = core::RequestField;

namespace {

std::string env_or(const char* name, const std::string& fallback) {
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

}  // namespace

// The name a model goes by when nothing names it: a GGUF file's name without ".gguf"
// ("model.Q4_K_M.gguf" -> "model.Q4_K_M"), a directory's whole name ("Qwen2.5-7B-Instruct"), a
// store name whole ("llama3.1:8b", "library/mistral:latest"): never cut at another dot. A model
// that is not on this machine and does not start with '/' or '.' is a store name.
std::string model_name_of(const std::string& model) {
    std::error_code ec;
    const bool path_like = !model.empty() && (model.front() == '/' || model.front() == '.');
    if (!path_like && !std::filesystem::exists(model, ec)) return model;
    std::filesystem::path path = std::filesystem::path(model).lexically_normal();
    if (!path.has_filename()) path = path.parent_path();  // "dir/"
    std::string name = path.filename().string();
    constexpr std::string_view kGguf = ".gguf";
    if (name.size() > kGguf.size()) {
        std::string tail = name.substr(name.size() - kGguf.size());
        std::transform(tail.begin(), tail.end(), tail.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (tail == kGguf) name.resize(name.size() - kGguf.size());
    }
    return name;
}

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
            usage_error(field_ref(F::Profile) + " needs a models file: " + file +
                        " not found (see " + field_ref(F::ModelsToml) + ")");
        const auto profile = io::load_model_profile(file, *request.profile, dir);
        target.server_bin = profile.server_bin;
        target.model = profile.gguf;
        target.alias = profile.alias;
        target.alias_from = F::Profile;
        target.kv = profile.kv;
        target.flags = profile.server_flags;
        target.server_kind = profile.server_kind;
        target.cache_arm = profile.cache_arm;
        target.determinism = profile.determinism;
    }
    if (t.server_bin) target.server_bin = *t.server_bin;
    if (t.model) target.model = *t.model;
    if (t.server_kind) target.server_kind = *t.server_kind;
    for (const auto& flag : t.server_flags) target.flags.push_back(flag);
    target.kv_given = !target.kv.empty();
    if (target.kv.empty()) target.kv = core::kDefaultKvLabel;
    if (target.alias.empty() && !target.model.empty()) target.alias = model_name_of(target.model);
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
    const std::string form = field_ref(F::Profile) + " " + profile +
                             " is a measurement profile (generator and scorer), not a "
                             "models.toml alias: ";
    const std::string or_explicit =
        "; or give " + field_ref(F::ServerBin) + " and " + field_ref(F::Model);
    if (!request.model_alias)
        usage_error(form + "name the model with " + field_ref(F::ModelAlias) +
                    " ALIAS (an alias in " + file + ")" + or_explicit);
    const std::string alias = field_ref(F::ModelAlias) + " " + *request.model_alias;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        usage_error(form + alias + " names a models.toml entry, but " + file +
                    " is not there (see " + field_ref(F::ModelsToml) + ")" + or_explicit);
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
    live.ready_timeout = seconds_value(request.target.ready_timeout, F::ReadyTimeout);
    live.grace = seconds_value(request.target.shutdown_grace, F::ShutdownGrace, true);
    plan_live(setup.plan, std::move(live), request.model_alias.has_value(), request.kv_label);
}

server::ModelFacts model_facts(const std::string& model, const ModelShape& shape) {
    const F kShape[] = {F::ShapeNLayer, F::ShapeNHeadKv, F::ShapeHeadDim};
    const std::optional<std::int64_t> given[] = {shape.n_layer, shape.n_head_kv, shape.head_dim};
    const std::string file_gib = field_ref(F::ShapeFileGib);
    if (!shape.file_gib) {
        for (std::size_t i = 0; i < 3; ++i)
            if (given[i])
                usage_error(field_ref(kShape[i]) + " describes a model without its file: give " +
                            file_gib + " too (or " + field_ref(F::Model) + " and no shape)");
        if (model.empty())
            usage_error("name the model: " + field_ref(F::Model) + " FILE, " +
                        field_ref(F::Profile) + " ALIAS, or " + file_gib + " with " +
                        field_ref(F::ShapeNLayer) + ", " + field_ref(F::ShapeNHeadKv) + " and " +
                        field_ref(F::ShapeHeadDim));
        server::check_model(model);
        return server::read_model_facts(model);
    }
    if (!model.empty())
        usage_error(file_gib + " stands for the model file: leave out " + field_ref(F::Model));
    std::string missing;
    for (std::size_t i = 0; i < 3; ++i)
        if (!given[i]) missing += std::string(missing.empty() ? "" : ", ") + field_ref(kShape[i]);
    if (!missing.empty()) usage_error(file_gib + " needs the KV shape too: missing " + missing);
    const double gib = *shape.file_gib;
    if (!(gib >= 0.001 && gib <= 1e6)) usage_error(file_gib + " must be between 0.001 and 1e+06");
    const auto whole = [](std::int64_t value, F field) {
        if (value < 1 || value > 1000000)
            usage_error(field_ref(field) + " must be between 1 and 1000000");
        return value;
    };
    server::ModelFacts facts;
    facts.path = "(" + file_gib + ")";
    facts.file_bytes = static_cast<std::uint64_t>(gib * 1024.0 * 1024.0 * 1024.0);
    facts.n_layer = whole(*shape.n_layer, F::ShapeNLayer);
    facts.n_head_kv = whole(*shape.n_head_kv, F::ShapeNHeadKv);
    facts.n_head = facts.n_head_kv;
    facts.key_length = facts.value_length = whole(*shape.head_dim, F::ShapeHeadDim);
    facts.n_embd = *facts.key_length * *facts.n_head_kv;
    return facts;
}

}  // namespace bi::driver
