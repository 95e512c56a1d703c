// What a cell or sweep run is asked to do, as typed values: what the command line gives
// (tools/bi-run maps its options here) and what a plan file stores for every group of a sharded
// sweep (framework/io/plan_io.*, through a field table). Nothing here is resolved or checked
// yet: the driver validates a request, loads its plugins and resolves its target before anything
// launches. An optional member is one the user may leave out, and leaving it out means something
// (the default of another member, the models.toml profile's value).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arrivals.hpp"
#include "determinism.hpp"
#include "endpoint_kind.hpp"

namespace bi::core {

inline constexpr std::uint64_t kDefaultRunSeed = 42;

// A time limit as a request gives it: seconds, fractions kept as typed ("0.5"); the driver
// checks its range and converts it to the clock it runs on.
using Seconds = std::chrono::duration<double>;

// The most bytes one server answer may have, headers included, unless a request says otherwise.
inline constexpr std::uint64_t kDefaultMaxResponseBytes = std::uint64_t{16} << 20;

// The KV cache type a run records and plans for when neither the request nor the models.toml
// profile names one: llama-server's own default.
inline constexpr std::string_view kDefaultKvLabel = "f16";
// The KV label of a server whose KV cache type no flag sets: whatever the server defaults to
// (a kind without a KV flag, or one whose flag was not given).
inline constexpr std::string_view kServerDefaultKvLabel = "server-default";

// Where the scorer, the work rows and the plugins that offer them come from.
struct ScoringRequest {
    std::vector<std::string> plugins;      // --plugin, as given (a bare name is searched for)
    std::vector<std::string> plugin_dirs;  // --plugin-dir
    Seconds plugin_timeout{30.0};
    std::optional<std::string> scorer;
    std::optional<std::string> scorer_config;                           // JSON text
    std::optional<std::string> workset;                                 // a work-set file
    std::optional<std::string> generator;                               // a plugin generator id
    std::vector<std::pair<std::string, std::string>> generator_params;  // (KEY, VALUE), in order
    double logit_drift_eps = 0.0;
};

// The live server and the guards around it (run-live, sweep).
struct TargetRequest {
    std::optional<std::string> server_bin;
    std::optional<std::string> model;
    std::vector<std::string> server_flags;   // argv tokens of the server, each whole
    std::optional<std::string> server_kind;  // a kind's name or kind file; absent: the profile's,
                                             // else llama-server
    std::vector<std::string> server_kind_dirs;  // searched for a bare kind name
    std::optional<std::string> models_toml;     // default: $BI_MODELS_TOML, else ./models.toml
    std::optional<std::string> models_dir;      // default: $MODELS_DIR
    Seconds ready_timeout{600.0};
    Seconds shutdown_grace{10.0};
    std::optional<std::int64_t> port;  // absent: a free loopback port per launch
    std::vector<std::int64_t> reserved_ports;
    std::vector<std::int64_t> untouchable_pids;
    std::optional<double> max_footprint_gb;
    // Prompt tokens the server prefills in one step, set through the kind's prefill-chunk flags
    // in every launch; absent: the server's own.
    std::optional<std::int64_t> prefill_chunk;
};

struct RunRequest {
    // The cell or cells: one ctx and one N except for a sweep.
    std::string out_dir;
    std::optional<std::string> model_alias;
    std::optional<std::string> profile;  // a models.toml alias or a measurement profile
    std::vector<std::int64_t> ctxs{2048};
    std::vector<std::int64_t> parallels{4};
    std::optional<std::int64_t> passes;  // absent: 4, or planned by target_rate
    std::optional<double> target_rate;   // planned passes
    double confidence = 0.95;
    std::optional<std::int64_t> max_passes;  // only with target_rate
    std::int64_t reps = 1;
    std::int64_t n_predict = 32;
    std::optional<std::string> kv_label;  // absent: the profile's, else kDefaultKvLabel

    // The requests every arm sends.
    EndpointKind endpoint = EndpointKind::Chat;
    std::int64_t logprobs = 0;
    std::uint64_t seed = kDefaultRunSeed;
    std::int64_t stagger_ms = 0;
    Arrivals arrivals = Arrivals::Mixed;  // how each C pass's requests arrive
    Seconds req_timeout{120.0};
    Seconds arm_deadline{0.0};  // 0: no limit
    bool stop_on_red = false;
    bool cache_arm = false;  // also run the cache arm (docs/design.md §5.2.6)
    // The server's determinism mode (docs/design.md §5.2.7); absent: not asked, off.
    std::optional<DeterminismChoice> determinism;
    std::uint64_t max_response_bytes = kDefaultMaxResponseBytes;  // per answer, headers included

    ScoringRequest scoring;
    TargetRequest target;
    std::optional<std::string> sign_key;  // the private key file that signs every cert
};

}  // namespace bi::core
