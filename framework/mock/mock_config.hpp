// Everything that shapes one mock llama-server: slots, context, endpoints and the fault knobs.
// Filled in by code (run-mock, tests) or from llama-server's argv by server_argv.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace bi::mock {

// How a completion reacts to being co-batched (a token generated in a tick where >= 2 slots
// are busy). Serially every mode behaves like None, which is what makes the verdict meaningful.
enum class Divergence {
    None,           // batch-invariant: output depends on (prompt, position) only
    Score,          // co-batched tokens become other words: the answer changes
    Token,          // the final whitespace token differs: same stripped text, other ids
    Logprob,        // same tokens, co-batched logprobs move slightly
    Stochastic,     // a seeded coin per request (probability divergence_p) decides Score or None
    Contamination,  // co-batched tokens are a run of words of a busy neighbour's prompt
    NotGreedy,      // serial or batched alike, some chosen tokens are not the top-1 listed (a
                    // server that ignores temperature 0 / top_k 1); seen only with top logprobs
};

// Another build of the server: some prompts get other serial answers, batched or not, the same
// on every request (so the build reproduces itself), which is what a baseline check across
// builds must find. Which prompts: every build_variant_every-th by its prompt key.
enum class BuildVariant {
    None,     // this build answers as every other None build does
    Score,    // the chosen prompts' answers are other words: their scores change
    Token,    // the chosen prompts' first token starts with a newline instead of a space: other
              // text and token ids, the same text once stripped (scores hold)
    Logprob,  // the chosen prompts' logprobs move slightly: same text and tokens
};

// How the mock decodes the requests its slots hold. Only Batched is what a continuous-batching
// server does; the others are the servers a co-batching proof must not be fooled by.
enum class Schedule {
    Batched,     // every step makes one token for every request in a slot (llama-server)
    Serial,      // one request at a time, to its end (the others wait in their slots)
    RoundRobin,  // one token per step for one request, rotating over those in progress
};
const char* schedule_name(Schedule schedule);
// Accepts "batched", "serial" and "round-robin"; throws bi::Error(Usage).
Schedule parse_schedule(std::string_view name);

const char* build_variant_name(BuildVariant variant);
// Accepts "none", "score", "token" and "logprob"; throws bi::Error(Usage).
BuildVariant parse_build_variant(std::string_view name);

const char* divergence_name(Divergence mode);
// Accepts the names above in lower case ("none", "score", ...); throws bi::Error(Usage).
Divergence parse_divergence(std::string_view name);

// run-mock's demo pacing: a decode step shared by several requests, in ms.
inline constexpr double kDemoTickMs = 0.3;
// How much of the client's turnaround a shared step lasts at the least, unless a tick was chosen
// (MockConfig::tick_per_turnaround): run-mock's pacing, and bi-mock-server's without --tick-ms.
inline constexpr double kTickPerTurnaround = 0.5;

struct MockConfig {
    std::string host = "127.0.0.1";           // 127.0.0.1 or localhost; nothing else is served
    std::uint16_t port = 0;                   // 0 picks a free port; MockServer::start reports it
    int slots = 4;                            // llama-server --parallel
    int n_ctx = 4096;                         // context per slot, in tokens
    bool metrics = true;                      // false: GET /metrics answers 501 like llama-server
    bool slots_endpoint = true;               // false: GET /slots answers 501 (--no-slots)
    std::string model_path = "bi-mock.gguf";  // only recorded; never opened
    std::string model_alias;                  // empty: the model path names the model
    int threads = 0;                          // recorded in /props only
    // Prompt tokens one step evaluates per request: a longer prompt is prefilled over several
    // steps. llama-server's micro-batch (-ub, 512 by default, at most -b).
    int prompt_tokens_per_step = 512;

    double tick_ms = 1.0;  // wall time of one decode step; 0 runs flat out
    // >= 0: a request alone in the batch for more than this many ticks runs on flat out until
    // another arrives (nothing can be co-batched with it meanwhile); -1: every tick is paced.
    // The first ticks stay paced so that requests sent together still meet in the batch.
    int fast_solo_after_ticks = -1;
    // > 0: a step shared by two or more requests lasts at least this many times the client's
    // turnaround (how long a closed-loop client takes to send its next request once an answer
    // arrives; see Scheduler), up to 5 ms. On a slow or loaded machine the shared step then
    // lengthens, so the slots stay busy beside the client's turnaround, as they do beside a real
    // model's step. 0: every step is tick_ms, whatever the client.
    double tick_per_turnaround = 0.0;
    Divergence divergence = Divergence::None;
    double divergence_p = 0.5;  // Stochastic only, in [0, 1]
    Schedule schedule = Schedule::Batched;
    // true: /slots, /metrics' requests_processing and its busy slots per decode say every
    // request in a slot computes in every step, whatever the schedule really does (a server that
    // lies about batching, consistently).
    bool claims_batched = false;
    BuildVariant build_variant = BuildVariant::None;
    int build_variant_every = 3;  // in 1..1000: 1 changes every prompt
    // A prompt cache that changes answers: an answer that reused cached prompt tokens (a request
    // with "cache_prompt": true, docs/design.md §10) is other words, from its first token, for
    // every cache_changes_every-th prompt by its key. Answers computed cold never change.
    bool cache_changes = false;
    int cache_changes_every = 2;    // in 1..1000: 1 changes every cached answer
    std::uint64_t seed = 0;         // seeds the Stochastic coin (reproducible per arrival order)
    bool empty = false;             // every completion comes back empty (stop_type "eos")
    std::int64_t crash_after = -1;  // answer this many completions, then die; < 0 never
    bool hang = false;              // completion requests never answer until stop()
    double loading_seconds = 0.0;   // every route answers 503 "Loading model" this long
    int http_threads = 0;           // HTTP worker threads; 0 = max(64, 2 * slots + 16)

    // Called once, on a handler thread, when crash_after is reached (bi-mock-server passes
    // one that _exits). Without it the in-process server stops answering and closes its socket.
    std::function<void()> on_crash;
};

// Throws bi::Error(Usage) naming the first bad field.
void validate(const MockConfig& config);

// The model name reported in responses: the alias when set, else the path.
std::string model_name(const MockConfig& config);

// Threads the HTTP server gets: one per connection, so the pool must exceed the client count.
int http_thread_count(const MockConfig& config);

}  // namespace bi::mock
