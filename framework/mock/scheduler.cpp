// Slot assignment, the decode step and the tick thread. One mutex guards all state; each task
// has its own condition variable so a finished request wakes only its own handler thread.
#include "scheduler.hpp"

#include <algorithm>

#include "echo_marker.hpp"

namespace bi::mock {

namespace {

using Clock = std::chrono::steady_clock;

// How long a lone request keeps its pace after the batch last held two (see last_co_batched_).
constexpr auto kConcurrentHold = std::chrono::milliseconds(100);
// How many of the client's turnarounds a request alone in the batch keeps its pace for.
constexpr double kSoloTurnarounds = 4.0;

// A request admitted within this long of a release was the client's next request; a longer
// wait is a client with nothing more to send, and says nothing of its turnaround.
constexpr auto kTurnaroundWindow = std::chrono::milliseconds(50);
// How many of the latest turnarounds size a shared step (their median).
constexpr std::size_t kTurnaroundSamples = 15;
// A shared step never grows past this, however slow the client.
constexpr double kMaxStretchedTickMs = 5.0;
// A request left alone waits for company at most this many of the client's longest recent
// turnarounds (at least two ticks, at most kTurnaroundWindow).
constexpr double kCompanyTurnarounds = 2.0;

// Prompt + generated sequences the continuation memory keeps (one per generated token): some
// hundred answers of a long cell, a few MB at most.
constexpr std::size_t kContinuationCapacity = std::size_t{1} << 16;

double ms_between(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
}

}  // namespace

struct Scheduler::Task {
    enum class State { Queued, Running, Done, Cancelled };

    CompletionJob job;
    std::int64_t id = -1;
    std::vector<std::int32_t> prompt_ids;
    SequenceHash prompt_hash;
    // The key its tokens are drawn with and the position of its first token: its own prompt's
    // key and 0, or where the earlier generation its prompt continues stood.
    std::uint64_t key = 0;
    int offset = 0;
    std::shared_ptr<const std::vector<Piece>> echo;  // the echoed text (null: none), from offset 0
    int n_prompt = 0;
    int n_cached = 0;        // prompt tokens reused from the slot's cache
    int n_target = 0;        // tokens this completion ends with
    std::string end_reason;  // stop_type when n_target is reached
    bool susceptible = false;
    bool prompt_done = false;
    // Prompt tokens evaluated so far, prompt_tokens_per_step a step: a long prompt takes steps, as
    // on a real server, so a request's time in the batch grows with its prompt (and a /slots
    // answer can see it there).
    int n_prompt_evaluated = 0;
    bool ever_co_batched = false;
    // Contamination: the first co-batched neighbour's prompt words, leaked as one run.
    std::vector<std::string> leak_words;
    int n_leaked = 0;
    int solo_ticks = 0;              // consecutive decode steps alone in the batch
    Clock::time_point solo_since{};  // when the latest run of solo_ticks began
    int slot = -1;
    State state = State::Queued;
    std::vector<GeneratedToken> tokens;
    std::vector<double> token_ms;
    std::string content;
    std::string stop_type;
    std::string stopping_word;
    Clock::time_point admitted;
    Clock::time_point prompt_finished;
    Clock::time_point finished;
    std::condition_variable done;
};

SchedulerOptions scheduler_options(const MockConfig& config) {
    SchedulerOptions options;
    options.slots = config.slots;
    options.n_ctx = config.n_ctx;
    options.prompt_tokens_per_step = config.prompt_tokens_per_step;
    options.tick_ms = config.tick_ms;
    options.fast_solo_after_ticks = config.fast_solo_after_ticks;
    options.tick_per_turnaround = config.tick_per_turnaround;
    options.divergence = config.divergence;
    options.divergence_p = config.divergence_p;
    options.build_variant = config.build_variant;
    options.build_variant_every = config.build_variant_every;
    options.cache_changes = config.cache_changes;
    options.cache_changes_every = config.cache_changes_every;
    options.seed = config.seed;
    options.empty = config.empty;
    options.schedule = config.schedule;
    options.claims_batched = config.claims_batched;
    return options;
}

Scheduler::Scheduler(SchedulerOptions options)
    : options_(options),
      slots_(static_cast<std::size_t>(std::max(options.slots, 1))),
      coin_(options.seed),
      continuations_(kContinuationCapacity) {}

Scheduler::~Scheduler() {
    stop();
}

void Scheduler::start() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (thread_.joinable() || stopping_) return;
    thread_ = std::thread([this] { loop(); });
}

void Scheduler::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
        for (auto& task : queue_) {
            task->state = Task::State::Cancelled;
            task->done.notify_all();
        }
        queue_.clear();
        for (auto& slot : slots_) {
            if (!slot.processing) continue;
            slot.processing = false;
            slot.task->state = Task::State::Cancelled;
            slot.task->done.notify_all();
        }
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

Scheduler::Ticket Scheduler::submit(CompletionJob job) {
    auto task = std::make_shared<Task>();
    task->job = std::move(job);
    task->prompt_ids = ids_of(task->job.prompt);
    task->key = prompt_key(task->prompt_ids);
    task->prompt_hash.add(task->prompt_ids);
    task->n_prompt = static_cast<int>(task->job.prompt.size());
    if (!task->job.echo.empty())
        task->echo = std::make_shared<const std::vector<Piece>>(task->job.echo);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopping_) {
            task->state = Task::State::Cancelled;
            return task;
        }
        plan_locked(*task);
        task->id = next_task_id_++;
        // The coin is drawn in arrival order, so a seed reproduces the same pattern.
        const double coin = static_cast<double>(coin_.next() >> 11) * (1.0 / 9007199254740992.0);
        task->susceptible = coin < options_.divergence_p;
        queue_.push_back(task);
        admit_locked();
    }
    wake_.notify_all();
    return task;
}

void Scheduler::plan_locked(Task& task) {
    if (const auto from = continuations_.find(task.prompt_hash)) {
        task.key = from->token_key;
        task.offset = from->offset;
        if (!task.echo) task.echo = from->echo;
    }
    const int room = std::max(0, options_.n_ctx - task.n_prompt);
    if (options_.empty) {
        task.n_target = 0;
        task.end_reason = "eos";
    } else if (task.echo) {
        // An echoed completion ends with EOS after its text unless a limit cuts it first.
        const int limit = task.job.n_predict >= 0 ? std::min(task.job.n_predict, room) : room;
        const int echoed = std::max(0, static_cast<int>(task.echo->size()) - task.offset);
        task.n_target = std::min(echoed, limit);
        task.end_reason = echoed <= limit ? "eos" : "limit";
    } else if (task.job.n_predict >= 0) {
        task.n_target = std::min(task.job.n_predict, room);
        task.end_reason = "limit";
    } else {
        const int natural = std::max(0, natural_length(task.key) - task.offset);
        task.n_target = std::min(natural, room);
        task.end_reason = natural <= room ? "eos" : "limit";
    }
}

CompletionOutcome Scheduler::outcome_locked(Task& task, bool take) const {
    CompletionOutcome outcome;
    outcome.cancelled = task.state == Task::State::Cancelled;
    outcome.id_slot = task.slot;
    outcome.id_task = task.id;
    outcome.n_prompt = task.n_prompt;
    outcome.n_cached = task.n_cached;
    if (outcome.cancelled) return outcome;
    if (take) {
        outcome.tokens = std::move(task.tokens);
        outcome.token_ms = std::move(task.token_ms);
        outcome.content = std::move(task.content);
    } else {
        outcome.tokens = task.tokens;
        outcome.token_ms = task.token_ms;
        outcome.content = task.content;
    }
    outcome.stop_type = task.stop_type;
    outcome.stopping_word = task.stopping_word;
    outcome.prompt_ms = ms_between(task.admitted, task.prompt_finished);
    outcome.predicted_ms = ms_between(task.prompt_finished, task.finished);
    return outcome;
}

CompletionOutcome Scheduler::wait(const Ticket& ticket) {
    std::unique_lock<std::mutex> lock(mutex_);
    Task& task = *ticket;
    task.done.wait(lock, [&] {
        return task.state == Task::State::Done || task.state == Task::State::Cancelled;
    });
    return outcome_locked(task, true);
}

StreamProgress Scheduler::next_progress(const Ticket& ticket, std::size_t have) {
    std::unique_lock<std::mutex> lock(mutex_);
    Task& task = *ticket;
    const auto over = [&task] {
        return task.state == Task::State::Done || task.state == Task::State::Cancelled;
    };
    task.done.wait(lock, [&] { return task.tokens.size() > have || over(); });
    StreamProgress progress;
    const auto from = static_cast<std::ptrdiff_t>(std::min(have, task.tokens.size()));
    progress.tokens.assign(task.tokens.begin() + from, task.tokens.end());
    progress.token_ms.assign(task.token_ms.begin() + from, task.token_ms.end());
    progress.over = over();
    if (progress.over) {
        progress.outcome = outcome_locked(task, false);
    } else {  // who is answering, so far: the slot, the task and the prompt
        progress.outcome.id_slot = task.slot;
        progress.outcome.id_task = task.id;
        progress.outcome.n_prompt = task.n_prompt;
        progress.outcome.n_cached = task.n_cached;
        progress.outcome.prompt_ms = ms_between(task.admitted, task.prompt_finished);
    }
    return progress;
}

bool Scheduler::step() {
    std::unique_lock<std::mutex> lock(mutex_);
    const bool busy = step_locked();
    notify_finished(lock);
    return busy;
}

void Scheduler::pause() {
    std::lock_guard<std::mutex> lock(mutex_);
    paused_ = true;
}

void Scheduler::resume() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        paused_ = false;
    }
    wake_.notify_all();
}

void Scheduler::admit_locked() {
    // In arrival order: a task that names a slot waits for that one (llama-server's id_slot),
    // any other takes the first free slot.
    while (!queue_.empty()) {
        const int wanted = queue_.front()->job.id_slot;
        std::size_t chosen = slots_.size();
        if (wanted >= 0 && static_cast<std::size_t>(wanted) < slots_.size()) {
            if (!slots_[static_cast<std::size_t>(wanted)].processing)
                chosen = static_cast<std::size_t>(wanted);
        } else {
            for (std::size_t i = 0; i < slots_.size() && chosen == slots_.size(); ++i)
                if (!slots_[i].processing) chosen = i;
        }
        if (chosen == slots_.size()) return;
        Slot& slot = slots_[chosen];
        slot.task = std::move(queue_.front());
        queue_.pop_front();
        slot.processing = true;
        slot.task->slot = static_cast<int>(chosen);
        slot.task->state = Task::State::Running;
        reuse_cache_locked(slot);
        const auto now = Clock::now();
        slot.task->admitted = now;
        while (!unpaired_releases_.empty() && now - unpaired_releases_.front() >= kTurnaroundWindow)
            unpaired_releases_.pop_front();
        if (!unpaired_releases_.empty()) {
            note_turnaround_locked(ms_between(unpaired_releases_.front(), now));
            unpaired_releases_.pop_front();
        }
    }
}

void Scheduler::reuse_cache_locked(Slot& slot) {
    Task& task = *slot.task;
    if (!task.job.cache_prompt) return;
    const auto& prompt = task.prompt_ids;
    const auto shorter = std::min(prompt.size(), slot.cached.size());
    const auto common =
        std::mismatch(prompt.begin(), prompt.begin() + shorter, slot.cached.begin());
    // The last prompt token is always evaluated again (llama-server needs its logits).
    task.n_cached =
        std::max(0, std::min(static_cast<int>(common.first - prompt.begin()), task.n_prompt - 1));
    task.n_prompt_evaluated = task.n_cached;
}

void Scheduler::note_turnaround_locked(double gap_ms) {
    if (turnarounds_ms_.size() < kTurnaroundSamples)
        turnarounds_ms_.push_back(gap_ms);
    else
        turnarounds_ms_[next_turnaround_] = gap_ms;
    next_turnaround_ = (next_turnaround_ + 1) % kTurnaroundSamples;
    std::vector<double> sorted = turnarounds_ms_;
    const auto middle = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
    std::nth_element(sorted.begin(), middle, sorted.end());
    turnaround_ms_ = *middle;
    turnaround_tail_ms_ = *std::max_element(turnarounds_ms_.begin(), turnarounds_ms_.end());
}

void Scheduler::finish_locked(Slot& slot, const std::string& stop_type) {
    Task& task = *slot.task;
    task.finished = Clock::now();
    task.stop_type = stop_type;
    task.state = Task::State::Done;
    counters_.tokens_predicted_seconds_total +=
        ms_between(task.prompt_finished, task.finished) / 1000.0;
    slot.processing = false;  // the task stays attached: a stale id_task, like llama-server
    std::vector<std::int32_t> generated;
    generated.reserve(task.tokens.size());
    for (const auto& token : task.tokens) generated.push_back(token.chosen.id);
    slot.cached = task.prompt_ids;
    slot.cached.insert(slot.cached.end(), generated.begin(), generated.end());
    continuations_.remember(task.prompt_hash, generated,
                            Continuation{task.key, task.offset, task.echo});
    if (unpaired_releases_.size() < slots_.size()) unpaired_releases_.push_back(task.finished);
    finished_.push_back(slot.task);
}

void Scheduler::notify_finished(std::unique_lock<std::mutex>& lock) {
    // Waking waiters after unlocking spares each of them an immediate block on the mutex.
    std::vector<Ticket> finished;
    finished.swap(finished_);
    lock.unlock();
    std::sort(finished.begin(), finished.end());
    finished.erase(std::unique(finished.begin(), finished.end()), finished.end());
    for (const auto& task : finished) task->done.notify_all();
    lock.lock();
}

std::vector<std::size_t> Scheduler::advancing_locked(const std::vector<std::size_t>& busy) {
    switch (options_.schedule) {
        case Schedule::Batched:
            return busy;
        case Schedule::Serial: {  // the request admitted first, to its end
            std::size_t first = busy.front();
            for (const auto i : busy)
                if (slots_[i].task->admitted < slots_[first].task->admitted) first = i;
            return {first};
        }
        case Schedule::RoundRobin: {  // the next busy slot at or after the turn
            std::size_t chosen = busy.front();
            for (const auto i : busy)
                if (i >= next_turn_) {
                    chosen = i;
                    break;
                }
            next_turn_ = chosen + 1;
            return {chosen};
        }
    }
    return busy;  // unreachable: the switch names every schedule (-Werror=switch)
}

bool Scheduler::reported_computing_locked(std::size_t i) const {
    if (!slots_[i].processing) return false;
    if (options_.claims_batched || options_.schedule != Schedule::Serial) return true;
    // An honest one-at-a-time server computes only the request it is on.
    return std::find(last_advanced_.begin(), last_advanced_.end(), i) != last_advanced_.end();
}

bool Scheduler::step_locked() {
    admit_locked();
    std::vector<std::size_t> in_slots;
    for (std::size_t i = 0; i < slots_.size(); ++i)
        if (slots_[i].processing) in_slots.push_back(i);
    if (in_slots.empty()) return false;
    const std::vector<std::size_t> busy = advancing_locked(in_slots);
    last_advanced_ = busy;

    const bool co_batched = busy.size() >= 2;
    if (co_batched) last_co_batched_ = Clock::now();
    last_step_co_batched_ = co_batched;
    // A leaking neighbour is the first other busy slot whose prompt has words.
    std::vector<const std::vector<std::string>*> neighbour(slots_.size(), nullptr);
    if (co_batched)
        for (const auto i : busy)
            for (const auto j : busy)
                if (j != i && !slots_[j].task->job.prompt_words.empty()) {
                    neighbour[i] = &slots_[j].task->job.prompt_words;
                    break;
                }

    const auto now = Clock::now();
    for (const auto i : busy) {
        Slot& slot = slots_[i];
        Task& task = *slot.task;
        task.ever_co_batched = task.ever_co_batched || co_batched;
        if (!co_batched && task.solo_ticks == 0) task.solo_since = now;
        task.solo_ticks = co_batched ? 0 : task.solo_ticks + 1;
        if (!task.prompt_done) {
            task.n_prompt_evaluated =
                std::min(task.n_prompt,
                         task.n_prompt_evaluated + std::max(options_.prompt_tokens_per_step, 1));
            if (task.n_prompt_evaluated < task.n_prompt) continue;
            task.prompt_done = true;
            task.prompt_finished = now;
            counters_.prompt_tokens_total +=
                static_cast<std::uint64_t>(task.n_prompt - task.n_cached);
            counters_.prompt_tokens_cached_total += static_cast<std::uint64_t>(task.n_cached);
            counters_.prompt_seconds_total += ms_between(task.admitted, now) / 1000.0;
            if (task.n_target == 0) finish_locked(slot, task.end_reason);
            continue;
        }
        StepContext context;
        context.position = task.offset + static_cast<int>(task.tokens.size());
        context.n_target = task.offset + task.n_target;
        context.co_batched = co_batched;
        context.ever_co_batched = task.ever_co_batched;
        context.susceptible = task.susceptible;
        if (options_.divergence == Divergence::Contamination && task.leak_words.empty() &&
            neighbour[i])
            task.leak_words = *neighbour[i];
        if (co_batched && !task.leak_words.empty()) context.neighbour_words = &task.leak_words;
        context.leak_index = task.n_leaked;
        GeneratedToken token = with_build_variant(
            options_.build_variant, options_.build_variant_every, task.key, context,
            task.job.n_probs, next_token(options_.divergence, task.key, context, task.job.n_probs));
        if (options_.cache_changes && task.n_cached > 0)
            token = with_cache_change(options_.cache_changes_every, task.key, context,
                                      task.job.n_probs, std::move(token));
        if (context.neighbour_words && options_.divergence == Divergence::Contamination)
            ++task.n_leaked;
        if (task.echo && context.position < static_cast<int>(task.echo->size()))
            token = echo_token(std::move(token),
                               base_token(task.key, context.position, task.job.n_probs),
                               (*task.echo)[static_cast<std::size_t>(context.position)]);
        task.tokens.push_back(std::move(token));
        task.token_ms.push_back(ms_between(task.prompt_finished, now));
        task.content += task.tokens.back().chosen.piece;
        finished_.push_back(slot.task);  // a streaming reader waits for each token
        ++counters_.tokens_predicted_total;
        counters_.n_tokens_max = std::max<std::uint64_t>(
            counters_.n_tokens_max, static_cast<std::uint64_t>(task.n_prompt) + task.tokens.size());

        bool stopped = false;
        for (const auto& word : task.job.stop) {
            const auto at = word.empty() ? std::string::npos : task.content.find(word);
            if (at == std::string::npos) continue;
            task.content.resize(at);
            task.stopping_word = word;
            finish_locked(slot, "word");
            stopped = true;
            break;
        }
        if (!stopped && static_cast<int>(task.tokens.size()) >= task.n_target)
            finish_locked(slot, task.end_reason);
    }
    ++counters_.n_decode_total;
    counters_.n_busy_slots_total += options_.claims_batched ? in_slots.size() : busy.size();
    admit_locked();
    return true;
}

std::vector<SlotView> Scheduler::slots() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<SlotView> views;
    views.reserve(slots_.size());
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        const Slot& slot = slots_[i];
        SlotView view;
        view.id = static_cast<int>(i);
        view.n_ctx = options_.n_ctx;
        view.is_processing = reported_computing_locked(i);
        if (slot.task) {
            const Task& task = *slot.task;
            view.id_task = task.id;
            view.n_prompt_tokens = task.n_prompt;
            view.n_prompt_tokens_cache = task.n_cached;
            view.params = task.job.params;
            if (slot.processing) {
                // Once released, llama-server zeroes the progress but keeps the task id.
                view.n_prompt_tokens_processed = task.n_prompt_evaluated - task.n_cached;
                view.n_decoded = static_cast<int>(task.tokens.size());
                view.n_remain = task.job.n_predict < 0 ? -1 : task.n_target - view.n_decoded;
            }
        }
        views.push_back(std::move(view));
    }
    return views;
}

SchedulerStats Scheduler::stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    SchedulerStats stats = counters_;
    stats.requests_processing = 0;
    stats.slots_held = 0;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        stats.requests_processing += reported_computing_locked(i) ? 1 : 0;
        stats.slots_held += slots_[i].processing ? 1 : 0;
    }
    stats.requests_deferred = static_cast<int>(queue_.size());
    return stats;
}

bool Scheduler::solo_past_grace_locked() const {
    if (options_.fast_solo_after_ticks < 0 || !queue_.empty()) return false;
    if (Clock::now() - last_co_batched_ < kConcurrentHold) return false;
    const Task* alone = nullptr;
    for (const auto& slot : slots_) {
        if (!slot.processing) continue;
        if (alone) return false;
        alone = slot.task.get();
    }
    // A staggered pass sends its next request once this one's first token reaches the client:
    // a lone request keeps its pace for a few of the client's turnarounds, so that on a loaded
    // machine the next one still meets it in the batch.
    const auto grace = std::chrono::duration<double, std::milli>(kSoloTurnarounds * turnaround_ms_);
    return alone && alone->solo_ticks > options_.fast_solo_after_ticks &&
           Clock::now() - alone->solo_since >= grace;
}

Clock::duration Scheduler::tick_locked() const {
    double ms = options_.tick_ms;
    if (ms > 0 && options_.tick_per_turnaround > 0 && last_step_co_batched_)
        ms = std::max(ms,
                      std::min(kMaxStretchedTickMs, options_.tick_per_turnaround * turnaround_ms_));
    return std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double, std::milli>(ms));
}

std::optional<Clock::time_point> Scheduler::company_deadline_locked() {
    // Only the turnaround-paced mock waits: a chosen tick is kept as chosen.
    if (options_.tick_per_turnaround <= 0 || options_.tick_ms <= 0 || slots_.size() < 2)
        return std::nullopt;
    admit_locked();
    const Task* alone = nullptr;
    for (const auto& slot : slots_) {
        if (!slot.processing) continue;
        if (alone) {
            company_task_ = -1;  // shared: the next lone run decides afresh
            return std::nullopt;
        }
        alone = slot.task.get();
    }
    if (!alone || !queue_.empty()) return std::nullopt;
    const auto now = Clock::now();
    if (alone->id != company_task_) {
        // A closed-loop client refills the batch one turnaround after an answer ends, and on a
        // loaded machine that turnaround is now and then longer than the request left alone
        // has steps to run: it waits for the next request once, as a step of a real batched
        // server outlasts its client's turnaround. Only right after a shared step: a serial
        // client never has a next request in flight.
        company_task_ = alone->id;
        company_until_ = now;
        if (now - last_co_batched_ < kConcurrentHold) {
            const double wait_ms = std::min(
                std::chrono::duration<double, std::milli>(kTurnaroundWindow).count(),
                std::max(2.0 * options_.tick_ms, kCompanyTurnarounds * turnaround_tail_ms_));
            company_until_ += std::chrono::duration_cast<Clock::duration>(
                std::chrono::duration<double, std::milli>(wait_ms));
        }
    }
    if (now >= company_until_) return std::nullopt;
    return company_until_;
}

void Scheduler::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
        const bool any_busy = std::any_of(slots_.begin(), slots_.end(),
                                          [](const Slot& slot) { return slot.processing; });
        if (paused_ || (!any_busy && queue_.empty())) {
            wake_.wait(lock);
            continue;
        }
        if (const auto until = company_deadline_locked()) {
            wake_.wait_until(lock, *until,
                             [this] { return stopping_ || paused_ || !queue_.empty(); });
            continue;
        }
        step_locked();
        notify_finished(lock);
        const auto tick = tick_locked();
        if (tick.count() > 0 && !solo_past_grace_locked()) {
            // A predicate on stopping_ only: new submissions must not shorten the tick.
            wake_.wait_until(lock, Clock::now() + tick, [this] { return stopping_; });
        } else {
            lock.unlock();
            std::this_thread::yield();
            lock.lock();
        }
    }
}

}  // namespace bi::mock
