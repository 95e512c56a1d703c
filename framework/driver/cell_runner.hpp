// One cell end to end (docs/design.md §9.1): A and A' on a one-slot server, then B and T concurrent
// passes of C on an N-slot server, scoring after each arm, then the verdict and the cert.
// A sweep shares one run of A and A' across every N at the same ctx.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/arrivals.hpp"
#include "core/baseline_documents.hpp"
#include "core/cert.hpp"
#include "core/json.hpp"
#include "core/request_field.hpp"
#include "core/run_request.hpp"
#include "core/trial.hpp"
#include "core/verdict.hpp"
#include "core/work_item.hpp"
#include "http/completion_request.hpp"
#include "plugin_host/plugin_info.hpp"
#include "plugin_host/scorer.hpp"
#include "progress.hpp"
#include "server_handle.hpp"
#include "trust/signing.hpp"

namespace bi::driver {

inline constexpr int kDefaultMaxPasses = 64;

struct RunOptions {
    std::string model_alias;  // the cert's "model"
    // The option the name came from, for messages: --model-alias, or the --model or --profile
    // it was taken from.
    core::RequestField model_alias_from = core::RequestField::ModelAlias;
    std::string kv_label{core::kDefaultKvLabel};
    int passes = 4;
    int reps = 1;
    std::uint64_t seed = 42;       // permutes the C passes; items carry their own request seeds
    http::RequestOptions request;  // its dialect is the kind's
    // The live server's kind (its evidence, identity and file); absent: llama-server's, and
    // the cert records no kind (run-mock).
    std::optional<core::ServerKind> kind;
    std::chrono::milliseconds stagger{0};
    core::Arrivals arrivals = core::Arrivals::Mixed;  // each C pass's schedule (core/arrivals)
    // Prompt tokens the server prefills in one step, set in every launch through the kind's
    // prefill-chunk flags (docs/design.md §5.2.5); absent: the server's own.
    std::optional<std::int64_t> prefill_chunk;
    std::optional<std::chrono::milliseconds> arm_deadline;
    bool stop_on_red = false;
    double logit_drift_eps = 0.0;  // logprob-only drift below it is not counted (0: exact)
    std::string scorer_config;     // the JSON text the scorer was created with; "" for none
    // Planned passes: with a target rate, C passes run until the counted trials reach
    // core::trials_needed(target_rate, confidence), an invariant divergence, or max_passes.
    std::optional<double> target_rate;
    double confidence = core::kDefaultConfidence;
    int max_passes = kDefaultMaxPasses;
    // --cache-arm: after A', the cache arm on a 1-slot server with its prompt cache on
    // (docs/design.md §5.2.6); its check goes into every cert of the ctx, beside the verdict.
    bool cache_arm = false;
    // --determinism as asked (absent: not asked), and the side this run is: nullopt for a kind
    // without a mode or a run that did not ask, else whether the kind's mode is on
    // (docs/design.md §5.2.7).
    std::optional<core::DeterminismChoice> determinism_choice;
    std::optional<bool> determinism;
    std::string out_dir;
    // What the cert's "run" records about where the work came from (scorer, work-set or
    // generator, profile, server flags); the runner adds the request settings.
    core::RunRecord run_labels;
    std::optional<core::ModelFileRecord> model_file;
    std::optional<core::ProvenanceRecord> provenance;   // bi-run, plugins, work-set inputs
    std::shared_ptr<const trust::SigningKey> sign_key;  // signs every cert when set
};

// Produces the work rows for a model alias and ctx once the first server is up (its tokenizer
// sizes prompts).
using WorkRowSource = std::function<std::vector<core::WorkRow>(
    const plugin_host::TokenCounter& count_tokens, const std::string& model_id, std::int64_t ctx)>;

// Arm A and its repeat, shared by every N at one ctx.
struct SerialArms {
    std::int64_t ctx = 0;
    std::vector<core::WorkRow> rows;  // as the work-set source gave them
    std::vector<core::WorkItem> items;
    core::ArmResults arm_a;
    core::ArmResults arm_a_prime;
    core::ServerLaunch server;  // the one-slot server
    core::Json props;           // its /props, trimmed
    bool reports_mock = false;
    core::Source source =
        core::Source::Mock;                   // live: a real binary that did not say it is the mock
    std::optional<std::string> store_digest;  // a store model's digest, as the server lists it
    std::string rows_sha256;  // of the work rows that ran (io::workset_to_json_text)
    core::Timings timings;
    std::optional<core::CacheCheck> cache_check;  // with --cache-arm
    std::optional<core::ModeReport> mode;         // what the 1-slot server said of its mode
    // A serial arm the server answered but failed beyond the completion floor: nothing ran after
    // it, and every cell of the ctx is UNVERIFIED by it (run_cell launches no N-slot server).
    std::optional<core::GivenUpArm> given_up;
};

struct CellOutcome {
    core::Verdict verdict;
    core::Cert cert;  // as written, without the digest
    std::string cert_path;
    bool promotable = false;
    std::string replaced;  // replaced_cert_note for the cert this run moved to history, or ""
};

class CellRunner {
public:
    CellRunner(ServerLauncher& launcher, plugin_host::ScorerInstance& scorer, RunOptions options,
               Progress& progress);

    SerialArms run_serial(std::int64_t ctx, const WorkRowSource& rows);
    // The serial run as a baseline value (docs/baseline.md): what bi-run baseline record writes,
    // and the side of now that a check compares with a stored one.
    core::SerialBaseline serial_baseline(const SerialArms& serial) const;
    // Runs B and C on an N-slot server, decides, and writes the cert atomically, with
    // `baseline_check` beside its verdict when given. Throws (and writes nothing) when the
    // server dies, a signal arrives or anything else ends the run.
    CellOutcome run_cell(const SerialArms& serial, int parallel,
                         const std::optional<core::BaselineCheckSummary>& baseline_check = {});

private:
    struct ArmRun {
        std::vector<core::TrialRecord> records;
        core::ServerOverlapEvidence server;
        double seconds = 0.0;
        std::string gave_up;  // why the arm was given up as hopeless (arm C only; see run_arm)
    };
    // `adjust` changes each request's options by its item (ArmRequest::adjust).
    ArmRun run_arm(ServerHandle& server, const std::vector<core::WorkItem>& items,
                   const std::string& arm, int pass, std::vector<std::size_t> order,
                   int concurrency, const std::string& label, int pin_slots = 0,
                   bool staggered = false,
                   const std::function<void(std::size_t, http::RequestOptions&)>& adjust = {});
    // The cache arm (docs/design.md §5.2.6) after A and A', compared with A.
    core::CacheCheck run_cache_arm(const SerialArms& serial);
    // Sends the kind's warm-up requests to a freshly launched server (`which`: "1-slot server"),
    // with the first item's seed; bi::Error(Server) when one fails.
    void warm_up(ServerHandle& server, const std::vector<core::WorkItem>& items,
                 const std::string& which);
    core::ArmResults score(std::vector<core::TrialRecord> records,
                           const std::vector<core::WorkItem>& items);
    struct PassesRun {
        bool stopped_early = false;  // --stop-on-red or a planned run ended by a divergence
        std::optional<core::PassPlanRecord> plan;
    };
    // Arm C: T fixed passes, or planned passes with a target rate.
    PassesRun run_passes(ServerHandle& server, const std::vector<core::WorkItem>& items,
                         int parallel, core::CellEvidence& evidence, core::Timings& timings);
    struct PassRun {
        bool diverged = false;  // from A
        std::string gave_up;    // why the pass was given up as hopeless, if it was
    };
    // One pass of arm C, scored into `evidence`.
    PassRun run_pass(ServerHandle& server, const std::vector<core::WorkItem>& items, int parallel,
                     int pass, const std::string& of, core::CellEvidence& evidence,
                     core::Timings& timings);
    core::RunRecord run_record(const SerialArms& serial) const;
    // The cert of a cell whose serial arms were given up: UNVERIFIED, written without an N-slot
    // server.
    CellOutcome given_up_cell(const SerialArms& serial, int parallel,
                              const std::optional<core::BaselineCheckSummary>& baseline_check);
    // What every cell's cert records of its configuration, its host and its run, stamped now;
    // the caller adds the servers, the timings and what its arms measured.
    core::CertContext cell_context(
        const SerialArms& serial, int parallel, core::Source source,
        const std::optional<std::string>& n_slot_sha256,
        const std::optional<core::BaselineCheckSummary>& baseline_check) const;
    // Decides nothing: builds the cert of `verdict` (its total time taken now), moves the cert it
    // replaces to history (saying so in CellOutcome::replaced) and writes it atomically.
    CellOutcome write_cell_cert(core::CertContext context, core::Verdict verdict, std::int64_t ctx,
                                int parallel);
    // Refuses (bi::Error Input) an item whose prompt alone is as long as the ctx, as counted by
    // `count`: the server could only refuse it.
    void check_prompts_fit(const std::vector<core::WorkItem>& items, std::int64_t ctx,
                           const plugin_host::TokenCounter& count) const;
    const core::KindEvidence& evidence_spec() const;
    core::Json fetch_props(const ServerHandle& server) const;
    // What `server` says of the kind's determinism mode, asked when this side runs it on and the
    // kind can report it; nullopt otherwise.
    std::optional<core::ModeReport> ask_mode(const ServerHandle& server,
                                             const std::string& which) const;
    std::optional<std::string> fetch_store_digest(const ServerHandle& server) const;

    ServerLauncher& launcher_;
    plugin_host::ScorerInstance& scorer_;
    RunOptions options_;
    Progress& progress_;
    std::chrono::steady_clock::time_point origin_;
    // The longest silence of a streamed answer on the server now running (dispatcher's
    // known_silence); reset at each launch.
    std::chrono::milliseconds silence_{0};
};

}  // namespace bi::driver
