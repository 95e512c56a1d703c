// The cert schema's value codecs and tables, shared by every format that writes the same
// structs (a baseline records a server launch, a host and a provenance exactly as a cert does).
// cert_schema.cpp defines the tables; a format of its own includes this header and adds tables
// for its own structs.
#pragma once

#include "core/baseline_comparison.hpp"
#include "core/cert.hpp"
#include "field_table.hpp"
#include "server_kind_io.hpp"

namespace bi::io::schema {

using namespace core;

// ---- enums: the words of core/verdict_kinds ----

template <>
struct Codec<Status> : NamedEnumCodec<Status, name, parse_status> {
    static Status from_json(const Json& j, const std::string& path) {
        return NamedEnumCodec::from_json(j, path, "status");
    }
};
template <>
struct Codec<Source> : NamedEnumCodec<Source, name, parse_source> {
    static Source from_json(const Json& j, const std::string& path) {
        return NamedEnumCodec::from_json(j, path, "source");
    }
};
template <>
struct Codec<DivergenceClass> : NamedEnumCodec<DivergenceClass, name, parse_divergence_class> {
    static DivergenceClass from_json(const Json& j, const std::string& path) {
        return NamedEnumCodec::from_json(j, path, "divergence class");
    }
};
template <>
struct Codec<Anomaly> : NamedEnumCodec<Anomaly, name, parse_anomaly> {
    static Anomaly from_json(const Json& j, const std::string& path) {
        return NamedEnumCodec::from_json(j, path, "anomaly");
    }
};

template <>
struct Codec<PlanEnd> : NamedEnumCodec<PlanEnd, name, parse_plan_end> {
    static PlanEnd from_json(const Json& j, const std::string& path) {
        return NamedEnumCodec::from_json(j, path, "plan end");
    }
};

// Every word a history entry can hold reads back (see core/previous_status.hpp); only a value
// that is not a string is refused.
template <>
struct Codec<PreviousStatus> {
    static Json to_json(const PreviousStatus& v) { return std::string(v.word()); }
    static PreviousStatus from_json(const Json& j, const std::string& path) {
        expect_type(j, Json::Type::String, path);
        return PreviousStatus::from_word(j.as_string());
    }
};

template <>
struct Codec<DivergenceBasis> : NamedEnumCodec<DivergenceBasis, name, parse_divergence_basis> {
    static DivergenceBasis from_json(const Json& j, const std::string& path) {
        return NamedEnumCodec::from_json(j, path, "divergence basis");
    }
};
template <>
struct Codec<DivergenceKind> : NamedEnumCodec<DivergenceKind, name, parse_divergence_kind> {
    static DivergenceKind from_json(const Json& j, const std::string& path) {
        return NamedEnumCodec::from_json(j, path, "divergence class");
    }
};
template <>
struct Codec<BatchingEvidence> : NamedEnumCodec<BatchingEvidence, name, parse_batching_evidence> {
    static BatchingEvidence from_json(const Json& j, const std::string& path) {
        return NamedEnumCodec::from_json(j, path, "batching evidence");
    }
};
template <>
struct Codec<MetricsFormat>
    : NamedEnumCodec<MetricsFormat, metrics_format_name, parse_metrics_format> {
    static MetricsFormat from_json(const Json& j, const std::string& path) {
        return NamedEnumCodec::from_json(j, path, "metrics format");
    }
};

// ---- the structs that have tables ----

// Each struct below has a table, defined in cert_schema.cpp; the other formats (baselines and
// their checks, framework/io/baseline_schema.cpp) read and write the same members through them.
#define BI_CERT_TABLE(Type)                    \
    template <>                                \
    struct HasTable<Type> : std::true_type {}; \
    template <>                                \
    const Table<Type>& table<Type>();
BI_CERT_TABLE(CellIdentity)
BI_CERT_TABLE(ServerOverlapEvidence)
BI_CERT_TABLE(OverlapGate)
BI_CERT_TABLE(PassOverlap)
BI_CERT_TABLE(IdLockstep)
BI_CERT_TABLE(LockstepEvidence)
BI_CERT_TABLE(PassLockstep)
BI_CERT_TABLE(LockstepGate)
BI_CERT_TABLE(MissingEvidence)
BI_CERT_TABLE(GreedyViolation)
BI_CERT_TABLE(GreedyCheck)
BI_CERT_TABLE(FirstDivergence)
BI_CERT_TABLE(Contamination)
BI_CERT_TABLE(TextExcerpt)
BI_CERT_TABLE(IdForensics)
BI_CERT_TABLE(CensusFailure)
BI_CERT_TABLE(CompletionCensus)
BI_CERT_TABLE(GivenUpArm)
BI_CERT_TABLE(CompletionFloorGate)
BI_CERT_TABLE(PassCoverage)
BI_CERT_TABLE(CoverageGate)
BI_CERT_TABLE(ArmBCheck)
BI_CERT_TABLE(CacheHit)
BI_CERT_TABLE(ColdCacheGate)
BI_CERT_TABLE(ArmDrafting)
BI_CERT_TABLE(DraftMismatch)
BI_CERT_TABLE(DraftingGate)
BI_CERT_TABLE(ModeReport)
BI_CERT_TABLE(DeterminismGate)
BI_CERT_TABLE(SerialSelfCheck)
BI_CERT_TABLE(CertGates)
BI_CERT_TABLE(FiredRule)
BI_CERT_TABLE(CertVerdict)
BI_CERT_TABLE(FieldMismatch)
BI_CERT_TABLE(GroupCount)
BI_CERT_TABLE(PairReport)
BI_CERT_TABLE(UnionReport)
BI_CERT_TABLE(DivergenceReports)
BI_CERT_TABLE(RateBound)
BI_CERT_TABLE(PassRate)
BI_CERT_TABLE(Sensitivity)
BI_CERT_TABLE(LengthScope)
BI_CERT_TABLE(PassPlanRecord)
BI_CERT_TABLE(PromotionScope)
BI_CERT_TABLE(ServerLaunch)
BI_CERT_TABLE(ServerRecord)
BI_CERT_TABLE(KindEvidence)
BI_CERT_TABLE(ServerKindRecord)
BI_CERT_TABLE(ModelFileRecord)
BI_CERT_TABLE(HostRecord)
BI_CERT_TABLE(RunRecord)
BI_CERT_TABLE(Timings)
BI_CERT_TABLE(ArmThroughput)
BI_CERT_TABLE(Throughput)
BI_CERT_TABLE(PluginRecord)
BI_CERT_TABLE(ProvenanceRecord)
BI_CERT_TABLE(PreviousCert)
BI_CERT_TABLE(CertSignature)
BI_CERT_TABLE(BaselineCheckSummary)
BI_CERT_TABLE(CacheChange)
BI_CERT_TABLE(CacheCheck)
BI_CERT_TABLE(Cert)
#undef BI_CERT_TABLE

template <>
struct Codec<BaselineStatus> : NamedEnumCodec<BaselineStatus, name, parse_baseline_status> {
    static BaselineStatus from_json(const Json& j, const std::string& path) {
        return NamedEnumCodec::from_json(j, path, "baseline status");
    }
};

}  // namespace bi::io::schema
