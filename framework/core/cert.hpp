// The cert as a typed value (schema bi-cert/2; bi-cert/1 certs still read), built by the driver
// from typed inputs, and the promotion rules that read it. framework/io/cert_schema.* is its one
// field table on disk.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "baseline_comparison.hpp"
#include "cache_check.hpp"
#include "json.hpp"
#include "previous_status.hpp"
#include "run_request.hpp"
#include "server_kind.hpp"
#include "throughput.hpp"
#include "verdict.hpp"

namespace bi::core {

inline constexpr std::string_view kCertSchema = "bi-cert/2";
inline constexpr std::string_view kCertSchemaV1 = "bi-cert/1";  // read, never written
inline constexpr std::size_t kMaxRowsPerReport = 200;  // keeps a cert readable; counts stay exact
// Per-id forensics kept per report (most severe first); the count left out is recorded.
inline constexpr std::size_t kMaxForensicsPerReport = 200;

struct CellIdentity {
    std::string model;  // the alias written as the cert's "model"
    std::int64_t ctx = 0;
    std::int64_t dispatch_n = 0;
    std::string kv_label{kDefaultKvLabel};
    std::int64_t reps = 1;
};

struct CertVerdict {
    Status status = Status::GreenUnverified;
    std::optional<DivergenceClass> divergence_class;
    std::optional<Anomaly> anomaly;
    std::vector<std::string> decision_reasons;
    // The precedence rule that decided; absent in certs written before it was recorded.
    std::optional<FiredRule> rule;
};

// The comparisons behind the verdict; per-pair rows are capped at kMaxRowsPerReport.
struct DivergenceReports {
    // AC-divergent ids whose concurrent request failed although A scored it, by failure mode.
    std::map<std::string, std::size_t> failed_under_concurrency;
    UnionReport ac;
    std::optional<PairReport> ab;
    std::optional<UnionReport> bc;
    std::optional<PairReport> aa_prime;
};

struct PromotionScope {
    CellIdentity valid_for;  // model, ctx, dispatch_n, kv_label (reps is not part of the scope)
    std::optional<std::vector<std::string>> server_flags;
    bool generalizes = false;
    std::optional<std::string> moe_hint;
    std::optional<LengthScope> length;  // the generation lengths the cell was checked at
};

// Planned passes (--target-rate): how many counted trials the target needed and what ended the
// passes. `reached` is false when the cap or a divergence came first; the sensitivity then
// states the bound actually achieved.
struct PassPlanRecord {
    double target_rate = 0.0;
    double confidence = kDefaultConfidence;
    std::size_t trials_needed = 0;
    int max_passes = 0;
    int passes_used = 0;
    std::size_t trials_counted = 0;
    bool reached = false;
    PlanEnd ended = PlanEnd::MaxPasses;
};

// ---- the run's provenance ----

// One launched server as the cert records it; a live process and the in-process mock fill
// different members.
struct ServerLaunch {
    std::string binary;
    std::optional<std::string> binary_sha256;
    std::optional<std::vector<std::string>> argv;
    std::optional<std::vector<std::string>> env;  // the kind's environment ("NAME=value")
    std::optional<std::int64_t> pid;
    std::optional<std::int64_t> port;
    std::optional<std::string> log;
    std::optional<bool> parent_death_signal;
    std::optional<std::int64_t> slots;           // the mock's
    std::optional<std::int64_t> n_ctx_per_slot;  // the mock's
    std::optional<std::string> divergence;       // the mock's
    std::optional<double> tick_ms;               // the mock's
    std::optional<std::string> version_text;     // the binary's own `--version` output
};

// The server kind a live run used: which file declared it, and the signals the verdict read.
struct ServerKindRecord {
    std::string name;
    std::string source;  // the kind file, or "built-in"
    std::string sha256;  // of that file's bytes
    KindEvidence evidence;
    bool slot_pinning = false;  // arm B pinned each request to a slot (the kind has slots)
};

struct ServerRecord {
    ServerLaunch a;                        // the one-slot server of arms A and A'
    ServerLaunch n;                        // the N-slot server of arms B and C
    Json props;                            // the A server's identity answer (/props), trimmed
    Json props_n;                          // the N server's
    Json build_info;                       // props.build_info, or null
    std::optional<ServerKindRecord> kind;  // absent in certs from before server kinds
};

// The signals a cert's verdict was judged by: its kind's, or llama-server's when it has none.
const KindEvidence& evidence_of_kind(const std::optional<ServerRecord>& server);

struct ModelFileRecord {
    std::string path;
    std::int64_t size = 0;
    std::optional<std::string> sha256;       // the whole file's, when it was hashed
    std::optional<std::string> sha256_head;  // the first MiB's
    std::optional<std::string> architecture;
    std::optional<std::string> synthesized;   // the synthetic model's name (selftest)
    std::optional<std::string> store_digest;  // a store model's digest, as its server lists it
};

struct HostRecord {
    std::optional<std::string> hostname;
    std::string cpu;
    std::int64_t n_cpus = 0;
    std::vector<std::string> gpus;
    std::optional<std::string> os;
    std::optional<std::string> gpu_driver;            // the driver version, when reported
    std::optional<std::string> gpu_source;            // "nvidia-smi" or "/proc/driver/nvidia"
    std::optional<std::string> cuda_visible_devices;  // the environment variable, when set
};

// One plugin file that was loaded for the run.
struct PluginRecord {
    std::string id;  // the plugin's own name
    std::string version;
    std::string path;
    std::optional<std::string> sha256;  // of the file
};

// Who made the cert, from which inputs: enough for a reader to rebuild the same run.
struct ProvenanceRecord {
    std::string tool = "bi-run";
    std::string version;
    std::optional<std::string> commit;  // the source tree's commit, when the build knew it
    std::vector<std::string> argv;
    std::vector<PluginRecord> plugins;
    std::optional<std::string> workset_sha256;  // of the work-set file, when one was read
    // Of the rows that ran, as `bi-run workset` writes them (io::workset_to_json_text): a
    // generator sizes its prompts by the server's /tokenize, so this is what the cell measured.
    std::optional<std::string> rows_sha256;
    std::optional<std::vector<std::string>> generator_params;  // "k=v", in order
    std::optional<std::int64_t> generator_seed;
};

// A cert this one replaced for the same cell, as history/ keeps it.
struct PreviousCert {
    PreviousStatus status;  // as the replaced cert wrote it
    std::string ts_utc;
    std::optional<std::string> digest;
    std::optional<std::string> configuration_id;  // absent when the file was not a readable cert
    std::string file;                             // relative to the cert's directory
};

// An Ed25519 signature over the digest's input: the canonical cert text without its digest
// and signature.
struct CertSignature {
    std::string alg = "ed25519";
    std::string key_id;
    std::string value;  // base64
};

// How the cell was run; every member is optional so that a cert records what its producer knew.
struct RunRecord {
    std::optional<std::string> scorer;
    std::optional<std::string> profile;
    std::optional<std::string> generator;
    std::optional<std::vector<std::string>>
        generator_params;  // KEY=VALUE, as the generator got them
    std::optional<std::string> workset;
    std::optional<std::vector<std::string>> server_flags;
    std::optional<bool> selftest;
    std::optional<std::int64_t> seed;
    std::optional<std::int64_t> n_predict;
    std::optional<std::string> endpoint;
    std::optional<std::int64_t> logprobs;
    std::optional<std::int64_t> passes;
    std::optional<std::int64_t> reps;
    std::optional<std::int64_t> n_items;
    std::optional<std::string> order;
    std::optional<std::int64_t> stagger_ms;
    // How the C passes' requests arrived (core/arrivals); absent in certs from before the choice,
    // whose passes all sent their requests together.
    std::optional<std::string> arrivals;
    // Unscored requests sent after each launch, before any arm (the kind's [request].warmup).
    std::optional<std::int64_t> warmup_requests;
    // --determinism's side on a kind with a mode: "on" or "off"; absent: not asked.
    std::optional<std::string> determinism;
    // Prompt tokens the server prefilled in one step, set through the kind's prefill-chunk flags
    // in every launch (--prefill-chunk); absent: the server's own chunking.
    std::optional<std::int64_t> prefill_chunk;
    std::optional<double> request_timeout_s;
    std::optional<bool> stop_on_red;
    std::optional<double> logit_drift_eps;  // set when logprob-only drift below it was ignored
    // The fraction of GPU memory a preallocating server (vLLM, SGLang, TGI) was launched with.
    std::optional<double> gpu_memory_fraction;
};

// Wall time of each step, in seconds.
struct Timings {
    std::optional<double> launch_a_s;
    std::optional<double> workset_s;
    std::optional<double> arm_a_s;
    std::optional<double> arm_a_prime_s;
    std::optional<double> teardown_a_s;
    std::optional<double> launch_n_s;
    std::optional<double> arm_b_s;
    std::optional<std::vector<double>> arm_c_s;  // one per pass
    std::optional<double> teardown_n_s;
    std::optional<double> total_s;
};

// Everything the driver knows that the verdict does not: decided outside the core and passed in.
struct CertContext {
    CellIdentity cell;
    Source source = Source::Mock;  // decided by the driver, never by the user
    std::string ts_utc;            // ISO-8601, from the caller's clock
    bool stopped_early = false;
    std::optional<PassPlanRecord> plan;
    std::optional<ServerRecord> server;
    std::optional<ModelFileRecord> model_file;
    std::optional<HostRecord> host;
    std::optional<RunRecord> run;
    std::optional<Timings> timings;
    // Each arm's tokens per second and inter-token latency, and the speedup batching gave.
    std::optional<Throughput> throughput;
    std::optional<ProvenanceRecord> provenance;
    std::optional<std::vector<PreviousCert>> previous;  // oldest first
    // run-live --baseline: how the cell's arm A compared with a stored baseline. Beside the
    // verdict, never part of it.
    std::optional<BaselineCheckSummary> baseline_check;
    // --cache-arm: how A's answers compared with the same prompts served from the prompt cache
    // (docs/cert.md "The cache check"). Beside the verdict, never part of it.
    std::optional<CacheCheck> cache_check;
};

// A cert is its context (who, what, where, when) plus what the run found.
struct Cert : CertContext {
    std::string schema{kCertSchema};
    std::string gate{kGate};
    std::vector<std::string> invariant_fields;
    CertVerdict verdict;
    CertGates gates;
    DivergenceReports divergence;
    Sensitivity sensitivity;
    PromotionScope promotion_scope;
    std::optional<std::string> digest;       // set by io when written or read, never by the driver
    std::optional<CertSignature> signature;  // set by io when written with a key or read

    std::size_t n_passes() const { return divergence.ac.per_pass.size(); }
};

// A pair report as a stored document keeps it: rows capped at kMaxRowsPerReport and forensics
// at kMaxForensicsPerReport (the most severe), the counts left out recorded.
PairReport stored_report(PairReport report);

// The cert without its digest; framework/io adds the digest over the canonical text.
Cert build_cert(const CertContext& context, const Verdict& verdict);

// `{model}__ctx{C}__N{N}.json`, the model name written by model_file_stem; a cell run with the
// server's determinism mode on is `{model}__ctx{C}__N{N}__det.json`, beside the one without.
std::string cert_file_name(std::string_view model, std::int64_t ctx, std::int64_t dispatch_n,
                           bool determinism = false);

// A hint when the model name looks like a mixture-of-experts model; empty otherwise.
std::string moe_hint(std::string_view model);

struct Promotion {
    bool promotable = false;
    std::vector<std::string> reasons;  // every reason it is not promotable
};

// True for the schemas this build reads: bi-cert/2 and bi-cert/1.
bool known_cert_schema(std::string_view schema);

// The promotion rules of docs/design.md §5.4; `digest_intact` comes from io, which can hash text.
// A cert whose previous[] holds a RED for its own configuration is not promotable either.
Promotion check_promotable(const Cert& cert, bool digest_intact);

}  // namespace bi::core
