// A server kind: a declared, versioned description of one family of servers (llama-server,
// ik_llama.cpp, vLLM, ...), read from one TOML file per kind (docs/servers.md): how bi-run
// launches it (argv and environment templates for the serial and the N-capacity server, the
// flags bi-run manages), when it is ready, how it is asked for a greedy answer, which of its
// signals show requests computing together and how its identity is read.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "determinism.hpp"
#include "json.hpp"

namespace bi::core {

inline constexpr std::string_view kServerKindSchema = "bi-server-kind/1";

// The placeholders a launch template may hold: {model} (the model file), {host}, {port}, {n}
// (the capacity: 1 for arms A and A', N for B and C), {ctx} (context per slot) and {ctx_total}
// ({ctx} x {n}).
inline constexpr std::string_view kLaunchPlaceholders[] = {"model", "host", "port",
                                                           "n",     "ctx",  "ctx_total"};
// The prefill chunk in tokens (--prefill-chunk): a placeholder of launch.prefill_chunk only.
inline constexpr std::string_view kChunkPlaceholder = "chunk";

// What a launch's {model} is.
enum class ModelForm {
    Gguf,       // one GGUF file: its facts, hash and memory guards apply
    Directory,  // a model or engine directory, hashed as a manifest of its files
    Name,       // a name in the server's own store
};

// "gguf", "directory", "name": the kind file's spelling.
std::string_view model_form_name(ModelForm form);

struct KindLaunch {
    std::vector<std::string> argv;  // after the binary, one template per token
    std::vector<std::pair<std::string, std::string>> env;  // NAME, value template; name order
    std::vector<std::string> managed_flags;                // refused in --server-flag
    std::string ready_path = "/health";                    // ready once a GET of it answers 200
    ModelForm model_form = ModelForm::Gguf;
    bool model_in_launch = true;  // {model} is in argv or env (else the request names it)
    // Flags that turn the server's prompt cache off, put in every launch after the kind's argv
    // (every arm must run cold; docs/servers.md "The prompt cache"). Empty: none is known.
    std::vector<std::string> cache_off;
    // Flags that set the prefill chunk, the most prompt tokens the server evaluates in one step,
    // to {chunk} (docs/servers.md "Chunked prefill"): put in every launch after cache_off when a
    // cell sets a chunk. Empty: the kind cannot set it, and a cell that asks for one is refused.
    std::vector<std::string> prefill_chunk;
    // A server that preallocates this fraction of GPU memory (vLLM --gpu-memory-utilization):
    // the flag, and the server's default when the user gives none (0: no default).
    std::string memory_fraction_flag;
    double memory_fraction_default = 0.0;
};

// How a kind's metrics endpoint answers (its words: io's metrics format table).
enum class MetricsFormat {
    Prometheus,      // Prometheus text exposition: one sample per line
    JsonIterations,  // a JSON array of per-step objects, each with the running gauge
};

// The prompt cache's witness in each answer (docs/servers.md "The prompt cache"): dotted paths of
// fields that count the prompt tokens served from the cache (the first present decides), else of
// fields that count the prompt tokens evaluated this time (fewer than the prompt's tokens, as the
// largest count any arm saw for the item, is a hit). Both empty: the kind has no witness.
struct CacheWitness {
    std::vector<std::string> cached_tokens;
    std::vector<std::string> evaluated_tokens;
    bool declared() const { return !cached_tokens.empty() || !evaluated_tokens.empty(); }
    // The fields as the cert names them: "timings.cache_n, usage.prompt_tokens_details.
    // cached_tokens" (evaluated ones as "prompt tokens - timings.prompt_n"); "" when none.
    std::string describe() const;
};

// How the kind is asked for one greedy answer. Every body carries the prompt, temperature 0,
// the item's seed, "stream": false and, with --logprobs K, the OpenAI logprobs fields; the rest
// is the kind's.
struct KindRequest {
    std::string chat_path = "/v1/chat/completions";
    std::string completion_path;  // the native endpoint returning token ids; "": none
    std::vector<std::string> limit_fields = {"max_tokens"};  // each is sent the token limit
    Json fields = Json::object();  // sent in every body as given (top_k, cache_prompt ...)
    std::string slot_field;        // names a slot for arm B's pins; "": the kind has no slots
    bool model_field = false;      // true: every body names the model ("model": --model)
    std::string tokenize_path;     // POST {"content": text} -> {"tokens": [...]}; "": none
    std::string detokenize_path;   // POST {"tokens": [...]} -> {"content": text}; "": none
    // The cache arm's bodies (docs/design.md §5.2.6) send these over `fields`: what turns the
    // prompt cache on per request (llama-server: cache_prompt = true); empty where the cache is
    // a launch setting (launch.cache_off is then left out) or always on.
    Json cache_on_fields = Json::object();
    // The completion endpoint takes a prompt of text followed by token ids (llama-server's mixed
    // prompt ["text", 12, 34]), so the cache arm can resume A's answers after k of their tokens.
    bool prompt_ids = false;
    // Streaming: `stream_fields` are sent besides "stream": true in every streamed body (what
    // makes the kind report per-chunk progress and usage, e.g. timings_per_token).
    Json stream_fields = Json::object();
    // Every arm streams its answers (docs/design.md §5.2.1); false: the kind cannot stream, and
    // its answers are read whole, without the lockstep evidence.
    bool streams = true;
    CacheWitness cache_witness;
    // Requests sent after each launch, before any arm, and never scored: a server whose first
    // answers after start-up can differ (vLLM's batch-invariant mode documents three) is warmed
    // up alike for every arm (docs/servers.md "Warm-up").
    int warmup = 0;
    // Dotted paths of fields counting the tokens an answer's decoding drafted (llama-server's
    // timings.draft_n, sent only when a draft model is used): the first present decides, and an
    // answer stating none drafted nothing (docs/servers.md "Speculative decoding").
    std::vector<std::string> draft_fields;
};

// Which of the kind's signals show requests computing together (docs/servers.md "What GREEN
// needs"). The verdict reads the per-slot endpoint into ServerOverlapEvidence's busy slots, the
// running gauge into its requests processing and the step counters into its busy-per-step mean.
struct KindEvidence {
    std::string slots_path;  // a per-slot endpoint: a JSON array of slot objects; "": none
    std::string slot_busy;   // a slot computes when this field is true or a non-zero number
    // The slot's task id (llama-server: id_task), a number a slot keeps from a request's
    // admission to its end: one task busy on one slot in two answers stayed resident between
    // them. "": the kind has none, and only single answers confirm co-residency.
    std::string slot_task;
    std::string slots_hint;    // said when slots_path gave nothing (how to turn it on)
    std::string metrics_path;  // "": none
    MetricsFormat metrics_format = MetricsFormat::Prometheus;
    std::string running_gauge;  // requests computing now (metric or field name)
    std::string gauge_hint;
    // Per-step counters: busy requests per step is either a running mean (step_mean) or a
    // running sum (step_sum, a histogram's _sum) over step_count steps; "": none.
    std::string step_mean;
    std::string step_sum;
    std::string step_count;
    // How capacity N is confirmed: this field of the identity endpoint's answer, or, when
    // empty, the argument bi-run launched the server with.
    std::string capacity_field;
    std::string props_path;  // the identity endpoint's path, where capacity_field is read
    // The identity answer's field naming the model the server loaded (llama-server:
    // model_path); a server that names another model than the one launched earns no GREEN.
    std::string served_model;

    bool has_slots() const { return !slots_path.empty(); }
    bool has_gauge() const { return !metrics_path.empty() && !running_gauge.empty(); }
    bool has_steps() const {
        return !metrics_path.empty() && !step_count.empty() &&
               (!step_mean.empty() || !step_sum.empty());
    }
    // No signal at all: a clean run cannot be told from a server that computed one at a time.
    bool has_any() const { return has_slots() || has_gauge(); }
    bool operator==(const KindEvidence& other) const;
};

// llama-server's evidence, as its kind file declares it: generated from kinds/llama-server.toml
// when bi-run is built (cmake/EmbedKinds.cmake), so that the core names none of its fields.
const KindEvidence& llama_server_evidence();
// What a cert without a kind record was judged by: llama-server's evidence from before kinds
// named the model field (so such certs replay as they were written).
const KindEvidence& unrecorded_kind_evidence();

// Why the servers' identity answers contradict the model launched: one line per answer whose
// `served_model` names another model ("the 4-slot server's /props model_path is 'b.gguf', not
// the launched '/m/a.gguf'"). A name matches the launched one when equal or when one is the
// other's path below a directory. Empty when they agree, or when the answer has no such field.
std::vector<std::string> model_identity_problems(const KindEvidence& evidence,
                                                 const Json& props_serial, const Json& props_n,
                                                 std::int64_t n, const std::string& launched);

// How the server's identity is read: its self-description endpoint (recorded in the cert) and
// the command that prints its version.
struct KindIdentity {
    std::string props_path;                                 // "": none
    std::vector<std::string> version_argv = {"--version"};  // after the binary; empty: none
    // File names of the kind's binary: a run that names no kind takes the one kind whose list
    // holds the binary's name (docs/servers.md "Choosing a kind").
    std::vector<std::string> binary_names;
    // Telling kinds that share a binary's name apart (ik_llama.cpp's llama-server): the kind
    // is the binary's when running it with probe_argv exits 0 and prints every probe_text
    // (docs/servers.md "Choosing a kind"). Both empty: no probe.
    std::vector<std::string> probe_argv;
    std::vector<std::string> probe_text;
    // For a model named in the server's store: the endpoint listing the store (an object with
    // a "models" array of {name, model, digest}), read once the serial server is up.
    std::string models_path;
};

// The server's own flags that bi-run reads among the user's --server-flag tokens (docs/servers.md
// "[flags]"): each lists one flag's names, the first being the one bi-run writes and names in
// messages. Empty: the kind has no such flag, and what it would say is not read.
struct KindFlags {
    std::vector<std::string> kv_cache_type_k;  // the K cache's element type (f16, q8_0, ...)
    std::vector<std::string> kv_cache_type_v;  // the V cache's
    std::vector<std::string> gpu_layers;       // layers offloaded to the GPUs (a count, or "all")
    std::vector<std::string> devices;          // the devices used ("CUDA0,CUDA2", or "none")
    std::vector<std::string> split_mode;       // how the model is split across GPUs ("none": one)
    std::vector<std::string> main_gpu;         // the one GPU under split mode none
    std::vector<std::string> tensor_split;     // each GPU's proportion ("3,1" or "3/1")
    std::vector<std::string> draft_model;      // a draft model: the server decodes speculatively
    // Every name of the flags launch.prefill_chunk sets (not one flag's names, as above): with a
    // prefill chunk set, a user flag among them would contradict it.
    std::vector<std::string> prefill_chunk;
    // One flag that sets the whole KV cache's type, its value in the server's own words (vLLM
    // and SGLang --kv-cache-dtype fp8): the KV label as given. Not with kv_cache_type_k/_v.
    std::vector<std::string> kv_cache_type;

    bool has_kv_cache_type() const { return !kv_cache_type_k.empty() && !kv_cache_type_v.empty(); }
};

struct ServerKind {
    std::string name;  // what --server-kind and models.toml's server_kind say
    std::string description;
    KindLaunch launch;
    KindRequest request;
    KindEvidence evidence;
    KindIdentity identity;
    KindFlags flags;
    KindDeterminism determinism;  // its determinism mode, where it has one
    std::string source;           // the file it was read from, or "built-in"
    std::string sha256;           // of that file's bytes
};

// What one launch fills the placeholders with.
struct LaunchValues {
    std::string model;
    std::string host = "127.0.0.1";
    std::uint16_t port = 0;
    std::int64_t n = 1;
    std::int64_t ctx = 0;  // per slot
    // {chunk}: the prefill chunk in tokens; 0 leaves the server's own and sets no chunk flags.
    std::int64_t prefill_chunk = 0;
};

// The placeholder in `text` that is not one of kLaunchPlaceholders (nor kChunkPlaceholder, when
// `chunk` allows it), or an unclosed '{'; "" when every placeholder is known.
std::string unknown_placeholder(std::string_view text, bool chunk = false);

// `text` with every placeholder replaced by its value.
std::string fill_placeholders(std::string_view text, const LaunchValues& values);

// Whether a launch keeps the prompt cache off (every arm) or on (the cache arm).
enum class PromptCache { Off, On };

// [binary, the kind's argv and, unless the cache is to be on, its cache_off flags filled, its
// prefill_chunk flags when values.prefill_chunk is set, with `determinism` its determinism mode's
// flags, the user's flags...]; bi::Error(Internal) for a kind with no argv (one that was never
// read), or for a chunk asked of a kind that cannot set one.
std::vector<std::string> launch_argv(const ServerKind& kind, const std::string& binary,
                                     const LaunchValues& values,
                                     const std::vector<std::string>& user_flags,
                                     PromptCache cache = PromptCache::Off,
                                     bool determinism = false);

// The kind's environment filled: "NAME=value" each, in name order.
// With `determinism`, its determinism mode's variables too (in name order, after the kind's).
std::vector<std::string> launch_env(const ServerKind& kind, const LaunchValues& values,
                                    bool determinism = false);

// bi::Error(Usage) when a user flag is one the kind manages ("--port=8080" counts as --port),
// naming it and the kind.
void check_user_flags(const ServerKind& kind, const std::vector<std::string>& flags);

// The flag names among `tokens` (those starting with '-', "--x=1" naming --x), in order: the
// flags a template such as launch.prefill_chunk sets.
std::vector<std::string> flag_names(const std::vector<std::string>& tokens);

// The first of the user's flags that sets the prefill chunk otherwise (one of the kind's
// flags.prefill_chunk; "-ub=256" counts as -ub), as given; "" when none does.
std::string prefill_chunk_flag_among(const ServerKind& kind, const std::vector<std::string>& flags);

}  // namespace bi::core
