// A field of a driver request, named in a message. The driver says which field a refusal or a
// note is about with field_ref ("`ctxs` must be at least 16"); whoever prints the message names
// each field the way its reader knows it: bi-run as the option the user typed (cli/
// option_naming), anything else as written, the field's own name in backquotes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bi::core {

// A field's name is its member's path in the request that holds it ("target.ready_timeout" in a
// RunRequest); the driver's requests beyond RunRequest (a selftest's, plan-n's, how a run runs)
// name theirs the same way.
enum class RequestField {
    // RunRequest
    OutDir,
    ModelAlias,
    Profile,
    Ctxs,
    Parallels,
    Passes,
    TargetRate,
    Confidence,
    MaxPasses,
    Reps,
    NPredict,
    KvLabel,
    Endpoint,
    Logprobs,
    Seed,
    StaggerMs,
    Arrivals,
    ReqTimeout,
    ArmDeadline,
    StopOnRed,
    CacheArm,
    Determinism,
    MaxResponseBytes,
    SignKey,
    // RunRequest::scoring
    Plugins,
    PluginDirs,
    PluginTimeout,
    Scorer,
    ScorerConfig,
    Workset,
    Generator,
    GeneratorParams,
    LogitDriftEps,
    // RunRequest::target
    ServerBin,
    Model,
    ServerFlags,
    ServerKind,
    ServerKindDirs,
    ModelsToml,
    ModelsDir,
    ReadyTimeout,
    ShutdownGrace,
    Port,
    ReservedPorts,
    UntouchablePids,
    MaxFootprintGb,
    PrefillChunk,
    // How a run of cells runs (driver::CellsOptions), a planned sweep's plan file and shard, and
    // the file a baseline command writes.
    DryRun,
    Baseline,
    BaselineKeys,
    Plan,
    Shard,
    ShardCount,
    AllProfiles,
    Out,
    Replace,
    // A selftest's one cell (driver::SelftestRequest) and plan-n's table
    // (driver::FootprintRequest): one ctx and one N.
    Ctx,
    Parallel,
    Dtype,
    MaxN,
    ShapeFileGib,
    ShapeNLayer,
    ShapeNHeadKv,
    ShapeHeadDim,
};

// "ctxs", "scoring.plugins", "target.ready_timeout".
std::string_view field_name(RequestField field);

// Every field, in declaration order.
const std::vector<RequestField>& request_fields();

// The field called `name`, or nullopt.
std::optional<RequestField> field_named(std::string_view name);

// The field as a message names it: its name in backquotes ("`ctxs`").
std::string field_ref(RequestField field);

// `text` with each field reference replaced by what `name` gives for its field; anything else
// between backquotes is left as it is.
std::string name_fields(std::string_view text,
                        const std::function<std::string(RequestField)>& name);

}  // namespace bi::core
