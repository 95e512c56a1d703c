#include "request_field.hpp"

namespace bi::core {

std::string_view field_name(RequestField field) {
    using F = RequestField;
    switch (field) {
        case F::OutDir:
            return "out_dir";
        case F::ModelAlias:
            return "model_alias";
        case F::Profile:
            return "profile";
        case F::Ctxs:
            return "ctxs";
        case F::Parallels:
            return "parallels";
        case F::Passes:
            return "passes";
        case F::TargetRate:
            return "target_rate";
        case F::Confidence:
            return "confidence";
        case F::MaxPasses:
            return "max_passes";
        case F::Reps:
            return "reps";
        case F::NPredict:
            return "n_predict";
        case F::KvLabel:
            return "kv_label";
        case F::Endpoint:
            return "endpoint";
        case F::Logprobs:
            return "logprobs";
        case F::Seed:
            return "seed";
        case F::StaggerMs:
            return "stagger_ms";
        case F::Arrivals:
            return "arrivals";
        case F::ReqTimeout:
            return "req_timeout";
        case F::ArmDeadline:
            return "arm_deadline";
        case F::StopOnRed:
            return "stop_on_red";
        case F::CacheArm:
            return "cache_arm";
        case F::Determinism:
            return "determinism";
        case F::MaxResponseBytes:
            return "max_response_bytes";
        case F::SignKey:
            return "sign_key";
        case F::Plugins:
            return "scoring.plugins";
        case F::PluginDirs:
            return "scoring.plugin_dirs";
        case F::PluginTimeout:
            return "scoring.plugin_timeout";
        case F::Scorer:
            return "scoring.scorer";
        case F::ScorerConfig:
            return "scoring.scorer_config";
        case F::Workset:
            return "scoring.workset";
        case F::Generator:
            return "scoring.generator";
        case F::GeneratorParams:
            return "scoring.generator_params";
        case F::LogitDriftEps:
            return "scoring.logit_drift_eps";
        case F::ServerBin:
            return "target.server_bin";
        case F::Model:
            return "target.model";
        case F::ServerFlags:
            return "target.server_flags";
        case F::ServerKind:
            return "target.server_kind";
        case F::ServerKindDirs:
            return "target.server_kind_dirs";
        case F::ModelsToml:
            return "target.models_toml";
        case F::ModelsDir:
            return "target.models_dir";
        case F::ReadyTimeout:
            return "target.ready_timeout";
        case F::ShutdownGrace:
            return "target.shutdown_grace";
        case F::Port:
            return "target.port";
        case F::ReservedPorts:
            return "target.reserved_ports";
        case F::UntouchablePids:
            return "target.untouchable_pids";
        case F::MaxFootprintGb:
            return "target.max_footprint_gb";
        case F::PrefillChunk:
            return "target.prefill_chunk";
        case F::DryRun:
            return "dry_run";
        case F::Baseline:
            return "baseline";
        case F::BaselineKeys:
            return "baseline_keys";
        case F::Plan:
            return "plan";
        case F::Shard:
            return "shard";
        case F::ShardCount:
            return "shard_count";
        case F::AllProfiles:
            return "all_profiles";
        case F::Out:
            return "out";
        case F::Replace:
            return "replace";
        case F::Ctx:
            return "ctx";
        case F::Parallel:
            return "parallel";
        case F::Dtype:
            return "dtype";
        case F::MaxN:
            return "max_n";
        case F::ShapeFileGib:
            return "shape.file_gib";
        case F::ShapeNLayer:
            return "shape.n_layer";
        case F::ShapeNHeadKv:
            return "shape.n_head_kv";
        case F::ShapeHeadDim:
            return "shape.head_dim";
    }
    return "";  // past the last field: request_fields() stops here
}

// The enumerators count up from 0 and the switch names each (-Werror=switch), so the fields are
// exactly those up to the first value without a name.
const std::vector<RequestField>& request_fields() {
    static const std::vector<RequestField> kFields = [] {
        std::vector<RequestField> fields;
        for (int i = 0; !field_name(static_cast<RequestField>(i)).empty(); ++i)
            fields.push_back(static_cast<RequestField>(i));
        return fields;
    }();
    return kFields;
}

std::optional<RequestField> field_named(std::string_view name) {
    for (const auto field : request_fields())
        if (field_name(field) == name) return field;
    return std::nullopt;
}

std::string field_ref(RequestField field) {
    return "`" + std::string(field_name(field)) + "`";
}

std::string name_fields(std::string_view text,
                        const std::function<std::string(RequestField)>& name) {
    std::string out;
    out.reserve(text.size());
    std::size_t at = 0;
    while (at < text.size()) {
        const auto open = text.find('`', at);
        const auto close = open == std::string_view::npos ? open : text.find('`', open + 1);
        if (close == std::string_view::npos) break;
        const auto field = field_named(text.substr(open + 1, close - open - 1));
        out.append(text.substr(at, field ? open - at : close - at));
        if (field) {
            out += name(*field);
            at = close + 1;
        } else {
            at = close;  // the closing quote may open a reference
        }
    }
    out.append(text.substr(at));
    return out;
}

}  // namespace bi::core
