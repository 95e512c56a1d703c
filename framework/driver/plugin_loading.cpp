// Loading a run's plugins and scorer, recording provenance and choosing its work rows.
#include "run_setup.hpp"

#include <cstdlib>
#include <filesystem>
#include <set>

#include "builtin_workset.hpp"
#include "core/error.hpp"
#include "core/request_field.hpp"
#include "core/sha256.hpp"
#include "core/utf8.hpp"
#include "interrupt.hpp"
#include "io/file_hash_cache.hpp"
#include "io/files.hpp"
#include "io/workset.hpp"
#include "plugin_host/bundled_plugins.hpp"
#include "plugin_host/plugin_fault.hpp"

namespace bi::driver {

using core::field_ref;
using F = core::RequestField;

namespace {

std::set<std::string> bundled_paths(const plugin_host::PluginSet& plugins) {
    std::set<std::string> paths;
    for (const auto& plugin : plugins.list())
        if (plugin.bundled) paths.insert(plugin.path);
    return paths;
}

}  // namespace

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
    usage_error(field_ref(F::Plugins) + " " + name + ": not found in " + field_ref(F::PluginDirs) +
                ", $BI_PLUGIN_PATH, the bundled plugin directory or the current directory "
                "(searched: " +
                searched + ")");
}

std::vector<std::string> load_plugins(plugin_host::PluginSet& plugins,
                                      const core::ScoringRequest& request, std::ostream& notes) {
    plugins.set_call_timeout(seconds_value(request.plugin_timeout, F::PluginTimeout));
    driver::install_interrupt_handlers();
    plugins.set_interrupt_check(driver::throw_if_interrupted);
    std::vector<std::string> resolved;
    try {
        plugins.load_bundled();
        for (const auto& name : request.plugins) {
            const std::string path = resolve_plugin_path(name, request.plugin_dirs);
            if (path != name)
                notes << "bi-run: note: " << field_ref(F::Plugins) << " " << name << " is " << path
                      << "\n";
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

std::string chosen_plugin_profile(const core::RunRequest& request,
                                  const plugin_host::PluginSet& plugins, ProfileScope scope) {
    if (!request.profile) return "";
    const std::string& name = *request.profile;
    if (scope == ProfileScope::ModelsFileFirst &&
        names_model_alias(models_file_path(request.target.models_toml), name))
        return "";
    if (!plugins.has_generator(name) || !plugins.has_scorer(name)) {
        if (scope == ProfileScope::PluginOnly)
            usage_error(field_ref(F::Profile) + " " + name +
                        ": no loaded plugin offers both a generator and a scorer with that id (see "
                        "bi-run plugins)");
        return "";
    }
    if (request.scoring.generator || (request.scoring.scorer && !request.scoring.scorer->empty()))
        usage_error(field_ref(F::Profile) + " " + name + " selects the generator and scorer '" +
                    name + "'; leave out " + field_ref(F::Generator) + " and " +
                    field_ref(F::Scorer) + ", or leave out " + field_ref(F::Profile));
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
    if (!flag_value.empty()) return trust::SigningKey::load(flag_value, field_ref(F::SignKey));
    const char* env = std::getenv("BI_SIGN_KEY");
    if (env && *env) return trust::SigningKey::load(env, "$BI_SIGN_KEY");
    return nullptr;
}

namespace {

// A work-set file, read and checked now (before any server starts).
void workset_file_rows(const std::string& path, RunSetup& setup, std::ostream& notes) {
    auto& o = setup.plan.options;
    std::vector<core::WorkRow> rows;
    std::vector<std::string> warnings;
    std::string text;  // read once: a stream ("-", a FIFO) cannot be read again to hash it
    try {
        text = io::read_file_or_stream(path);  // fail now, before any server starts
        rows = io::parse_workset_text(text, path == "-" ? "standard input" : path, &warnings);
    } catch (const Error& e) {
        usage_error(field_ref(F::Workset) + ": " + e.what());
    }
    for (const auto& warning : warnings) notes << "bi-run: warning: " << warning << "\n";
    if (rows.empty())
        usage_error(field_ref(F::Workset) + " " + path + ": the work-set has no rows");
    setup.rows = [rows](const plugin_host::TokenCounter&, const std::string&, std::int64_t) {
        return rows;
    };
    o.run_labels.workset = path;
    o.provenance->workset_sha256 = core::sha256_hex(text);
}

// A generator's rows, made once the first server is up; it runs once now, before any server
// starts, on the first cell's context and with estimated token counts, so that it refuses bad
// parameters before the first launch.
void generator_rows(const std::string& id, const core::ScoringRequest& scoring, RunSetup& setup) {
    auto& o = setup.plan.options;
    if (!setup.plugins->has_generator(id))
        usage_error(field_ref(F::Generator) + " " + id +
                    ": no loaded plugin offers it (see bi-run plugins)");
    plugin_host::GenerationRequest generation;
    generation.seed = o.seed;
    // As the cert records them: KEY=VALUE, in order.
    std::vector<std::string> params;
    for (const auto& [key, value] : scoring.generator_params) params.push_back(key + "=" + value);
    if (!scoring.generator_params.empty()) {
        generation.parameters = scoring.generator_params;
        o.run_labels.generator_params = params;
    }
    auto probe = generation;
    probe.model_id = o.model_alias;
    probe.ctx = setup.plan.ctxs.front();
    try {
        setup.plugins->generate_rows(id, probe);
    } catch (const plugin_host::PluginFault&) {
        throw;  // the plugin failed, not its parameters: the message says so already
    } catch (const Error& e) {
        throw Error(e.category(),
                    field_ref(F::Generator) + " " + id + ": " + without_bi_prefix(e.what()));
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
    o.run_labels.generator = id;
    o.provenance->generator_params = params;
    o.provenance->generator_seed = static_cast<std::int64_t>(generation.seed);
}

// With --workset the file replaces a measurement profile's generator; its scorer still applies.
void choose_work_rows(const core::ScoringRequest& scoring, RunSetup& setup, std::ostream& notes) {
    const bool profile_generates = !setup.plugin_profile.empty() && !scoring.workset;
    if (scoring.workset && scoring.generator)
        usage_error(field_ref(F::Workset) + " and " + field_ref(F::Generator) +
                    " cannot be used together");
    if (scoring.workset) {
        workset_file_rows(*scoring.workset, setup, notes);
    } else if (scoring.generator || profile_generates) {
        generator_rows(profile_generates ? setup.plugin_profile : *scoring.generator, scoring,
                       setup);
    } else {
        setup.rows = [](const plugin_host::TokenCounter&, const std::string&, std::int64_t) {
            return builtin_work_rows();
        };
        setup.plan.options.run_labels.workset = "(built-in)";
    }
}

}  // namespace

void load_scoring(const core::RunRequest& request, const Invocation& invocation,
                  ProfileScope profile_scope, RunSetup& setup, std::ostream& notes) {
    auto& o = setup.plan.options;
    const auto& scoring = request.scoring;
    setup.plugins = std::make_unique<plugin_host::PluginSet>();
    load_plugins(*setup.plugins, scoring, notes);
    setup.plugin_profile = chosen_plugin_profile(request, *setup.plugins, profile_scope);
    const auto scorer_id =
        setup.plugin_profile.empty() ? scoring.scorer.value_or("") : setup.plugin_profile;
    setup.scorer = setup.plugins->create_scorer(scorer_id, scoring.scorer_config.value_or(""));
    o.scorer_config = scoring.scorer_config.value_or("");
    o.provenance = provenance_record(*setup.plugins, invocation);
    o.run_labels.scorer =
        scorer_id.empty() ? std::string(plugin_host::kDefaultScorerId) : scorer_id;
    if (!setup.plugin_profile.empty()) o.run_labels.profile = setup.plugin_profile;
    choose_work_rows(scoring, setup, notes);
}

}  // namespace bi::driver
