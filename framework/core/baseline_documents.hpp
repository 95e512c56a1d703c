// The two documents of a baseline check (docs/baseline.md) as values: the stored serial baseline
// (schema bi-baseline/1: the work rows, arm A's answers, what A' showed, and who answered them)
// and the check report (schema bi-baseline-check/1: both sides' provenance and the comparison).
// framework/io maps each to its JSON through one field table; the driver fills them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "baseline_comparison.hpp"
#include "cert.hpp"
#include "compare.hpp"
#include "json.hpp"
#include "run_request.hpp"
#include "trial.hpp"
#include "work_item.hpp"

namespace bi::core {

inline constexpr std::string_view kBaselineSchema = "bi-baseline/1";
inline constexpr std::string_view kBaselineCheckSchema = "bi-baseline-check/1";

// The server that answered one side: what a reader needs to say which build it was.
struct BaselineServer {
    ServerLaunch launch;  // binary, its sha256, argv, the binary's --version text
    Json props;           // the identity answer (/props), trimmed
    Json build_info;      // props.build_info, or null
    std::optional<ServerKindRecord> kind;
};

// A stored serial baseline: arm A and A' on a one-slot server, kept as the reference later
// builds are checked against.
struct SerialBaseline {
    std::string schema{kBaselineSchema};
    Source source = Source::Mock;  // decided by the driver, never by the user
    std::string ts_utc;
    std::string model;  // the model name the test ids carry
    std::int64_t ctx = 0;
    std::string kv_label{kDefaultKvLabel};
    std::int64_t reps = 1;
    std::vector<WorkRow> rows;  // the rows that ran, verbatim, so a check runs exactly them
    std::string rows_sha256;    // of `rows` as io::workset_to_json_text writes them
    std::optional<std::string> scorer_config;
    RunRecord run;
    ModelFileRecord model_file;
    BaselineServer server;
    HostRecord host;
    ProvenanceRecord provenance;
    Timings timings;
    std::vector<std::string> identity_problems;  // the server named another model
    ArmResults answers;                          // arm A, by test id
    SerialRepeat repeat;                         // what A' showed against A
    std::optional<std::string> digest;           // set by io when written or read
    std::optional<CertSignature> signature;      // set by io when written with a key or read
};

// The terms a side's answers depend on, from what a baseline (or a run) recorded.
BaselineTerms baseline_terms(const SerialBaseline& baseline);

// The side a stored baseline stands for in compare_with_baseline.
BaselineSide baseline_side(const SerialBaseline& baseline);

// One side of a check as its report names it.
struct CheckSide {
    std::string ts_utc;
    Source source = Source::Mock;
    BaselineServer server;
    HostRecord host;
    ModelFileRecord model_file;
    std::string kv_label;
    std::vector<std::string> server_flags;
    std::optional<std::string> scorer_plugin;  // "exact 1.0.0": the plugin that scored
    SerialRepeat repeat;
    std::size_t n_items = 0;
    std::size_t n_ok = 0;
};

CheckSide check_side(const SerialBaseline& baseline);

// The baseline file a check read, as the check found it.
struct BaselineFileRecord {
    std::string path;
    std::string sha256;     // of the file's bytes
    std::string digest;     // its own digest member (intact: the check refuses one that is not)
    std::string signature;  // "signature ok, ed25519 key ...", "unsigned", ...
};

// A check of the answers of now against a stored baseline.
struct BaselineCheck {
    std::string schema{kBaselineCheckSchema};
    std::string ts_utc;
    std::string model;
    std::int64_t ctx = 0;
    BaselineStatus status = BaselineStatus::NotComparable;
    std::vector<std::string> reasons;
    BaselineFileRecord baseline_file;
    CheckSide baseline;
    CheckSide current;
    // What differs between the two sides' servers, hosts and settings, one line each: the
    // context of a change, never a reason for one.
    std::vector<std::string> differences;
    std::optional<PairReport> comparison;  // baseline against A, capped as in a cert
    // Per drifted id, what else it generated differently ("finish_reason length -> stop"):
    // what the comparison's forensics do not say. At most kMaxForensicsPerReport ids.
    std::map<std::string, std::string> generation_changes;
    ProvenanceRecord provenance;  // the bi-run that checked
    std::optional<std::string> digest;
    std::optional<CertSignature> signature;
};

// The check of `current` (a run of now, as a baseline value) against `stored`, read from `file`:
// compare_with_baseline at the stored run's logit_drift_eps, both sides' provenance, what
// differs between them, and the comparison capped as in a cert. Its time and provenance are the
// current run's.
BaselineCheck build_check(const SerialBaseline& stored, BaselineFileRecord file,
                          const SerialBaseline& current);

// What two answers generated differently besides their text and token ids (which forensics
// place): reasoning, tool calls, token count, stop reason, as "finish_reason length -> stop",
// several joined by "; ". "" when nothing else differs.
std::string generation_change(const TrialRecord& baseline, const TrialRecord& current);

// What differs between two sides (binary and its hash, version text, build info, kind, server
// flags, KV label, host, GPUs, scorer plugin), one line each, in that order.
std::vector<std::string> side_differences(const CheckSide& baseline, const CheckSide& current);

// `{model}__ctx{C}.baseline.json` and `{model}__ctx{C}.baseline-check.json`, '/' in the model
// name turned into '_'.
std::string baseline_file_name(std::string_view model, std::int64_t ctx);
std::string check_file_name(std::string_view model, std::int64_t ctx);

BaselineCheckSummary summarise(const BaselineCheck& check, std::string check_file);

// "SAME", "CHANGED", "DRIFT ONLY", "NOT COMPARABLE": how every line a person reads names a
// status.
std::string_view status_word(BaselineStatus status);

}  // namespace bi::core
