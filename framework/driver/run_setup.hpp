// A run request made ready to run: every field checked (bi::Error(Usage) naming the field,
// core::field_ref, which bi-run names as the option the user typed), plugins loaded, the scorer
// created, the work-set source chosen, the output directory proven writable, provenance recorded,
// and for a live run the target resolved from the request or models.toml. Nothing is launched here;
// run_plan() runs what this prepares. Three units implement it: request_checks.cpp (the fields),
// plugin_loading.cpp (plugins, scorer, work rows, provenance) and live_target.cpp (the server,
// model and guards).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/cert.hpp"
#include "core/request_field.hpp"
#include "core/run_request.hpp"
#include "plugin_host/plugin_set.hpp"
#include "run_plan.hpp"
#include "trust/signing.hpp"

namespace bi::driver {

// What --profile NAME may mean: a models.toml alias (run-live, sweep), or a measurement profile,
// a plugin generator and scorer that share the id NAME (e.g. spark). A name that is both is the
// models.toml alias.
enum class ProfileScope {
    PluginOnly,       // run-mock: only measurement profiles exist
    ModelsFileFirst,  // run-live, sweep: a models.toml alias wins over a plugin profile
};

// Who is running: recorded in every cert's provenance.
struct Invocation {
    std::string version;
    std::optional<std::string> commit;
    std::vector<std::string> argv;
};

struct RunSetup {
    RunPlan plan;  // options, ctx and N lists; the live target or the mock is added later
    std::unique_ptr<plugin_host::PluginSet> plugins;
    std::unique_ptr<plugin_host::ScorerInstance> scorer;
    WorkRowSource rows;
    bool quiet = false;
    bool json = false;
    std::string plugin_profile;  // the measurement profile --profile selected, or ""
};

// Checks every field of `request` that needs no plugin or server (the output directory, the
// signing key, cells, passes, request settings) into `plan`: bi::Error(Usage) naming the field
// of the first that is out of range. request_checks.cpp.
void check_request(const core::RunRequest& request, bool allow_lists, RunPlan& plan);

// Refuses (bi::Error(Usage)) an N of 1 among the cells a command measures: at N = 1 nothing is
// co-batched. A baseline runs N = 1 on purpose and does not ask.
void check_cobatched_parallels(const core::RunRequest& request);

// Loads the request's plugins, creates its scorer, records provenance and chooses its work rows
// (a work-set file read now; a generator run once now on the first ctx, again once a server is
// up; or the built-in set). plugin_loading.cpp.
void load_scoring(const core::RunRequest& request, const Invocation& invocation,
                  ProfileScope profile_scope, RunSetup& setup, std::ostream& notes);

// Checks every field of the request, loads its plugins, creates its scorer and chooses its
// work-set source (a file read now, a generator run once now on the first ctx). Only a sweep
// (`allow_lists`) has several ctx or N values. A --profile naming a measurement profile selects
// its generator and scorer; with a work-set file, only its scorer. Notes and warnings go to
// `notes`.
RunSetup prepare_run(const core::RunRequest& request, const Invocation& invocation,
                     bool allow_lists, ProfileScope profile_scope, std::ostream& notes);

// The live half of the plan: the target resolved, the guards and timeouts checked, then
// plan_live() over every ctx x N.
void plan_from_request(const core::RunRequest& request, RunSetup& setup);

// The server binary, model, flags, KV label and alias: the models.toml profile's (when
// `profile_is_model` and the request names one), overridden by the request's own.
LiveTarget resolve_target(const core::RunRequest& request, bool profile_is_model = true);

server::GuardLimits guard_limits(const core::TargetRequest& target);

// --max-footprint-gb GB as a cap: 0 is none (as the upstream tool reads it; MemAvailable and the
// GPUs' free memory are checked all the same), else 0.001 to 1e6. bi::Error(Usage) naming the
// field.
std::optional<double> footprint_cap(double gb);
std::optional<std::uint16_t> chosen_port(const core::TargetRequest& target);

// The items a cell will send, when the work-set can be sized without a server (its tokenizer is
// not needed to count rows); nullopt when the generator needs it.
std::optional<std::size_t> work_set_size(const RunSetup& setup);

// The cell's model name when neither --model-alias nor a models.toml alias names it: the whole
// name of a GGUF file (less ".gguf"), a directory or a store entry.
std::string model_name_of(const std::string& model);

// Whether the models file `file` has the alias `name`. An unreadable or missing models file names
// no alias here; run-live reports its problems when it reads the file for real.
bool names_model_alias(const std::string& file, const std::string& name);

// The models file: the given path, else $BI_MODELS_TOML, else ./models.toml.
std::string models_file_path(const std::optional<std::string>& given);

// The measurement profile the request's --profile selects, or "" when there is none or (within
// ModelsFileFirst) it names a models.toml alias or no plugin profile. bi::Error(Usage) when it
// names a plugin profile but a generator or scorer was also given, or, within PluginOnly, when
// no loaded plugin offers both a generator and a scorer of that id.
std::string chosen_plugin_profile(const core::RunRequest& request,
                                  const plugin_host::PluginSet& plugins, ProfileScope scope);

// Where a --plugin value is: a name with a '/' is a path as given; a bare name ("libspark.so")
// is looked up in `plugin_dirs`, then $BI_PLUGIN_PATH (':'-separated), the bundled plugin
// directories beside bi-run, then the current directory. bi::Error(Usage) listing the
// directories searched when it is in none.
std::string resolve_plugin_path(const std::string& name,
                                const std::vector<std::string>& plugin_dirs);

// Sets the call timeout and the interrupt check, loads the bundled plugins and each requested
// plugin in order (the path a bare name resolved to, and a plugin that shadows a bundled one,
// are noted on `notes`). A plugin that cannot be loaded is a bad argument: bi::Error(Usage),
// "libfoo.so: incompatible ABI (plugin 2, host 1)"; one that crashes or hangs while loading
// stays plugin_host::PluginFault. Returns the resolved paths, in order.
std::vector<std::string> load_plugins(plugin_host::PluginSet& plugins,
                                      const core::ScoringRequest& request, std::ostream& notes);

// KEY=VALUE pairs from --generator-param values. cxxopts splits a value at commas, so a piece
// without '=' continues the previous value: "families=A2,A4" keeps its comma.
std::vector<std::pair<std::string, std::string>> parse_generator_params(
    const std::vector<std::string>& values);

// The directories of a ':'-separated search path ($BI_PLUGIN_PATH, $BI_SERVER_KIND_PATH), empty
// entries dropped; none for null.
std::vector<std::string> split_path_list(const char* text);

// "4096" or, when `allow_lists` (sweep), "4096,8192": whole numbers >= `minimum`, none twice.
// bi::Error(Usage) naming `field`.
std::vector<std::int64_t> whole_number_list(const std::string& text, core::RequestField field,
                                            std::int64_t minimum, bool allow_lists);

// A request's time limit as milliseconds (whole ones, fractions cut off): finite, at most
// 1,000,000 s, and > 0 (or >= 0 when `zero_allowed`); the message names `field`, or in the second
// form begins with `what` ("--stale-lock-after": a limit that is no request field).
std::chrono::milliseconds seconds_value(core::Seconds seconds, core::RequestField field,
                                        bool zero_allowed = false);
std::chrono::milliseconds seconds_value(core::Seconds seconds, const std::string& what,
                                        bool zero_allowed = false);

// --max-response-bytes as typed: a whole number of bytes from 1024 to 1 GiB; the message names
// the field.
std::uint64_t max_response_bytes_value(const std::string& text);

// The same range for a request's value.
std::size_t checked_max_response_bytes(std::uint64_t bytes);

// bi-run, its commit and argv, and every loaded plugin (id, version, path, sha256).
core::ProvenanceRecord provenance_record(const plugin_host::PluginSet& plugins,
                                         const Invocation& invocation);

// The key file given, else $BI_SIGN_KEY; null when neither is given. bi::Error(Usage) naming
// the field or the variable when the key cannot be used.
std::shared_ptr<const trust::SigningKey> signing_key(const std::string& path);

// A model described without its file (plan-n on a machine that has not got it): its size and KV
// shape; absent members were not given.
struct ModelShape {
    std::optional<double> file_gib;
    std::optional<std::int64_t> n_layer, n_head_kv, head_dim;
};

// The facts a footprint is projected from: the GGUF file's own, or, without it, the shape.
// bi::Error(Usage) naming exactly what is missing or out of range.
server::ModelFacts model_facts(const std::string& model, const ModelShape& shape);

}  // namespace bi::driver
