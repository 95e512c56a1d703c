// Continuous batching in miniature: a FIFO queue, N slots, and one tick thread that advances
// every busy slot by one token per tick, so concurrent requests really share decode steps.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "continuation_memory.hpp"
#include "core/json.hpp"
#include "core/splitmix64.hpp"
#include "mock_config.hpp"
#include "token_function.hpp"
#include "tokenizer.hpp"

namespace bi::mock {

struct CompletionJob {
    std::vector<Piece> prompt;              // as evaluated, BOS first
    std::vector<std::string> prompt_words;  // what a co-batched neighbour can leak (Contamination)
    std::vector<Piece> echo;                // when set, the completion is these pieces, then EOS
    int n_predict = -1;                     // < 0: until the mock's EOS
    int n_probs = 0;                        // alternatives kept per token
    std::vector<std::string> stop;          // stop strings
    int id_slot = -1;                       // the slot asked for, as llama-server takes it
    bool cache_prompt = false;              // reuse the slot's cached prefix ("cache_prompt")
    core::Json params;                      // echoed by /slots while the task runs
};

struct CompletionOutcome {
    bool cancelled = false;  // the server stopped before the completion finished
    int id_slot = -1;
    std::int64_t id_task = -1;
    int n_prompt = 0;
    int n_cached = 0;  // prompt tokens reused from the slot's cache, not evaluated again
    std::vector<GeneratedToken> tokens;
    std::string content;
    std::string stop_type;  // "limit", "eos" or "word"
    std::string stopping_word;
    double prompt_ms = 0.0;
    double predicted_ms = 0.0;
    // Per token, the ms from the end of the prompt to the step that made it: the generation
    // clock a streamed chunk reports (timings.predicted_ms).
    std::vector<double> token_ms;
};

// What a streaming reader gets: the tokens made since it last asked, and the outcome once the
// task is over.
struct StreamProgress {
    std::vector<GeneratedToken> tokens;
    std::vector<double> token_ms;
    bool over = false;  // done or cancelled
    // Over: all of the task's tokens, as wait() returns them; else only the slot, task, prompt
    // size and prompt time.
    CompletionOutcome outcome;
};

struct SchedulerOptions {
    int slots = 4;
    int n_ctx = 4096;
    int prompt_tokens_per_step = 512;  // see MockConfig
    double tick_ms = 1.0;
    int fast_solo_after_ticks = -1;    // see MockConfig
    double tick_per_turnaround = 0.0;  // see MockConfig
    Divergence divergence = Divergence::None;
    double divergence_p = 0.5;
    BuildVariant build_variant = BuildVariant::None;  // see MockConfig
    int build_variant_every = 3;
    bool cache_changes = false;  // see MockConfig
    int cache_changes_every = 2;
    std::uint64_t seed = 0;
    bool empty = false;
    Schedule schedule = Schedule::Batched;
    bool claims_batched = false;  // see MockConfig
};
SchedulerOptions scheduler_options(const MockConfig& config);

// One slot as /slots reports it. A finished task stays attached (stale) with is_processing false.
struct SlotView {
    int id = 0;
    int n_ctx = 0;
    bool is_processing = false;
    std::int64_t id_task = -1;  // -1: never assigned
    int n_prompt_tokens = 0;
    int n_prompt_tokens_processed = 0;
    int n_prompt_tokens_cache = 0;  // of the slot's current or last task
    int n_decoded = 0;
    int n_remain = -1;
    core::Json params;
};

struct SchedulerStats {
    int requests_processing = 0;  // busy slots, as /slots and /metrics report them
    int slots_held = 0;           // slots holding a request in progress, whatever is reported
    int requests_deferred = 0;    // queued behind full slots
    std::uint64_t n_decode_total = 0;
    std::uint64_t n_busy_slots_total = 0;   // summed over decode steps
    std::uint64_t prompt_tokens_total = 0;  // evaluated: those reused from a cache are not
    std::uint64_t prompt_tokens_cached_total = 0;
    std::uint64_t tokens_predicted_total = 0;
    double prompt_seconds_total = 0.0;
    double tokens_predicted_seconds_total = 0.0;
    std::uint64_t n_tokens_max = 0;
};

class Scheduler {
public:
    struct Task;
    using Ticket = std::shared_ptr<Task>;

    explicit Scheduler(SchedulerOptions options);
    ~Scheduler();
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    void start();  // the tick thread; without it, step() drives the scheduler by hand
    void stop();   // cancels every queued and running task, then joins; idempotent

    Ticket submit(CompletionJob job);  // takes a free slot at once, else queues (FIFO)
    CompletionOutcome wait(const Ticket& ticket);
    CompletionOutcome run(CompletionJob job) { return wait(submit(std::move(job))); }

    // Waits until the task has made more than `have` tokens or is over; what it made after the
    // first `have`. For a streamed answer, in place of wait().
    StreamProgress next_progress(const Ticket& ticket, std::size_t have);

    // One decode step over every busy slot; false when none was busy.
    bool step();

    void pause();  // ticks stop (slots are still assigned), so a test can line requests up
    void resume();

    std::vector<SlotView> slots() const;
    SchedulerStats stats() const;

private:
    struct Slot {
        Ticket task;  // current or, once finished, the stale last task
        bool processing = false;
        // The slot's prompt cache: the last task's prompt and generated ids, as llama-server's
        // slot keeps them whether or not that task reused any.
        std::vector<std::int32_t> cached;
    };

    void admit_locked();
    // The task's token key, first position, target length and echo: its own, or those of the
    // earlier generation its prompt continues.
    void plan_locked(Task& task);
    // With "cache_prompt": the longest common prefix of the task's prompt and the slot's cache,
    // less the last prompt token, is not evaluated again.
    void reuse_cache_locked(Slot& slot);
    bool step_locked();
    // True when one request is alone in the batch past fast_solo_after_ticks and nothing shared
    // the batch for kConcurrentHold: skip the tick.
    bool solo_past_grace_locked() const;
    // The busy slots this step advances, as the schedule decides.
    std::vector<std::size_t> advancing_locked(const std::vector<std::size_t>& busy);
    // Whether /slots and /metrics count slot `i` as computing now.
    bool reported_computing_locked(std::size_t i) const;
    void finish_locked(Slot& slot, const std::string& stop_type);
    CompletionOutcome outcome_locked(Task& task, bool take) const;
    void notify_finished(std::unique_lock<std::mutex>& lock);
    void loop();
    // The wall time of the next paced step.
    std::chrono::steady_clock::duration tick_locked() const;
    // When a request has just become alone in the batch with a slot free, right after the batch
    // was shared: until when it waits for company before its next step (once per lone run).
    // Unset: no wait.
    std::optional<std::chrono::steady_clock::time_point> company_deadline_locked();
    void note_turnaround_locked(double gap_ms);

    const SchedulerOptions options_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<Slot> slots_;
    std::deque<Ticket> queue_;
    std::vector<Ticket> finished_;  // finished or given a token in the last step, not yet notified
    SchedulerStats counters_;
    std::int64_t next_task_id_ = 0;
    core::SplitMix64 coin_;  // the Stochastic divergence coin, one draw per arrival
    ContinuationMemory continuations_;
    bool paused_ = false;
    // When a step last held two or more requests: a lone request keeps its pace until the batch
    // has held one request for kConcurrentHold, so that a client refilling a concurrent pass
    // late (a loaded machine) still meets it in the batch.
    std::chrono::steady_clock::time_point last_co_batched_{};
    bool last_step_co_batched_ = false;  // only a shared step is stretched
    // The client's turnaround: each admission is paired with the oldest release not yet paired
    // (a closed-loop client sends its next request once an answer arrives), pairs more than
    // kTurnaroundWindow apart left out. The latest kTurnaroundSamples gaps, in milliseconds,
    // and their median (robust to the odd late wake-up).
    std::deque<std::chrono::steady_clock::time_point> unpaired_releases_;
    std::vector<double> turnarounds_ms_;
    std::size_t next_turnaround_ = 0;
    double turnaround_ms_ = 0.0;
    double turnaround_tail_ms_ = 0.0;  // the longest of the latest samples
    // The lone run the company wait was last decided for: its task and its deadline.
    std::int64_t company_task_ = -1;
    std::chrono::steady_clock::time_point company_until_{};
    bool stopping_ = false;
    std::size_t next_turn_ = 0;               // RoundRobin: the slot whose turn is next
    std::vector<std::size_t> last_advanced_;  // the slots the latest step advanced
    std::thread thread_;
};

}  // namespace bi::mock
