#include "dispatcher.hpp"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "core/sha256.hpp"
#include "core/text.hpp"
#include "http/completion_client.hpp"

namespace bi::driver {

namespace {

using Clock = std::chrono::steady_clock;

// How often the calling thread looks at the cancel flag and the deadline.
constexpr auto kWatchInterval = std::chrono::milliseconds(5);

// stall_limit: the least time without a byte that counts as a stall, and how many times the
// longest silence seen (per request in flight) a silence may last.
constexpr auto kMinStall = std::chrono::seconds(20);
constexpr int kStallFactor = 10;

using Millis = std::chrono::milliseconds;

// The longest wait of an answered stream: for its first token chunk, or between two chunks.
Millis longest_wait(const http::StreamTrace& trace, Clock::time_point sent) {
    Millis longest{0};
    Clock::time_point before = sent;
    for (const auto& chunk : trace.chunks) {
        longest = std::max(longest, std::chrono::ceil<Millis>(chunk.arrival - before));
        before = chunk.arrival;
    }
    return longest;
}

// How long an answered stream waited for its first token chunk: its prompt's prefill, mostly.
Millis first_wait(const http::StreamTrace& trace, Clock::time_point sent) {
    if (trace.chunks.empty()) return Millis{0};
    return std::chrono::ceil<Millis>(trace.chunks.front().arrival - sent);
}

enum class StopReason : int { None = 0, Cancelled, Deadline, ServerDied, GaveUp };

// 120 -> "120", 0.5 -> "0.5": seconds and percentages as a person writes them.
std::string seconds_text(double value) {
    return core::format_general(value);
}

std::int64_t ns_since(Clock::time_point origin, Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t - origin).count();
}

void validate(const ArmRequest& request) {
    if (!request.items) throw Error(ErrorCategory::Internal, "run_arm: items is null");
    if (request.concurrency < 1)
        throw Error(ErrorCategory::Internal, "run_arm: concurrency must be >= 1, got " +
                                                 std::to_string(request.concurrency));
    std::vector<char> seen(request.items->size(), 0);
    for (std::size_t index : request.order) {
        if (index >= seen.size())
            throw Error(ErrorCategory::Internal, "run_arm: order index " + std::to_string(index) +
                                                     " is out of range (" +
                                                     std::to_string(seen.size()) + " items)");
        if (seen[index])
            throw Error(ErrorCategory::Internal,
                        "run_arm: order lists item " + std::to_string(index) + " twice");
        seen[index] = 1;
    }
}

class ArmRun {
public:
    ArmRun(const http::Endpoint& endpoint, const ArmRequest& request)
        : request_(request), total_(request.order.size()), records_(total_), sent_(total_, 0) {
        for (std::size_t i = 0; i < total_; ++i) {
            const core::WorkItem& item = (*request.items)[request.order[i]];
            core::TrialRecord& r = records_[i];
            r.test_id = item.test_id;
            r.family = item.family;
            r.fill = item.fill;
            r.expected_answer = item.expected_answer;
            r.arm = request.arm;
            r.pass = request.pass;
        }
        const auto workers =
            std::min<std::size_t>(static_cast<std::size_t>(request.concurrency), total_);
        for (std::size_t k = 0; k < workers; ++k)
            sessions_.push_back(std::make_unique<http::HttpSession>(
                endpoint, request.request.timeout, request.request.max_response_bytes));
        decoding_.assign(workers, 0);
    }

    std::vector<core::TrialRecord> run() {
        report_progress(0);
        if (total_ == 0) return {};
        std::vector<std::thread> threads;
        threads.reserve(sessions_.size());
        for (std::size_t k = 0; k < sessions_.size(); ++k)
            threads.emplace_back([this, k] { worker(k); });
        release_when_ready();
        watch();
        for (auto& t : threads) t.join();
        label_unsent();
        report_progress(total_);
        return std::move(records_);
    }

    // Why the arm was given up; valid after run().
    std::string gave_up() const { return stop_reason() == StopReason::GaveUp ? gave_up_ : ""; }
    bool stopped_answering() const {
        return stop_reason() == StopReason::GaveUp && stopped_answering_;
    }
    bool answered() const { return answered_; }
    Millis longest_silence() const { return silence_; }

private:
    const ArmRequest& request_;
    const std::size_t total_;
    std::vector<core::TrialRecord> records_;  // records_[i] is written only by the taker of i
    std::vector<char> sent_;
    std::vector<std::unique_ptr<http::HttpSession>> sessions_;  // cancel() from any thread

    std::atomic<std::size_t> cursor_{0};
    std::atomic<std::size_t> done_{0};
    std::atomic<int> stop_{0};
    std::size_t last_reported_ = 0;

    std::mutex mutex_;  // start barrier, stagger waits, worker exits
    std::condition_variable changed_;
    std::size_t ready_ = 0;
    std::size_t running_ = 0;
    bool released_ = false;
    Clock::time_point release_time_;
    std::vector<char> decoding_;  // staggered: worker k's first request decodes (or is over)

    std::mutex alive_mutex_;  // server_alive need not be thread-safe

    std::mutex give_up_mutex_;  // the failure tally below
    std::size_t finished_ = 0;
    std::size_t failed_ = 0;
    std::size_t trailing_timeouts_ = 0;  // the latest requests to finish, all timed out
    bool stalls_ = false;                // one of those stalled (no byte for the stall limit)
    std::map<std::string, std::size_t> failed_by_mode_;
    std::string first_failure_;  // the first failed request's item and own words
    std::string gave_up_;
    bool stopped_answering_ = false;
    bool answered_ = false;
    Millis silence_{0};                 // the longest silence of this arm's answered streams
    double prefill_ms_per_byte_ = 0.0;  // the longest first-token wait per prompt byte

    StopReason stop_reason() const { return static_cast<StopReason>(stop_.load()); }

    void trigger(StopReason reason) {
        int expected = 0;
        if (!stop_.compare_exchange_strong(expected, static_cast<int>(reason))) return;
        for (auto& session : sessions_) session->cancel();
        std::lock_guard<std::mutex> lock(mutex_);
        changed_.notify_all();
    }

    void check_cancel_and_deadline() {
        if (request_.cancel && request_.cancel->load()) trigger(StopReason::Cancelled);
        if (request_.deadline && Clock::now() >= *request_.deadline) trigger(StopReason::Deadline);
    }

    void report_progress(std::size_t done) {
        last_reported_ = done;
        if (request_.progress) request_.progress(done, total_);
    }

    void release_when_ready() {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] { return ready_ == sessions_.size(); });
        lock.unlock();
        check_cancel_and_deadline();  // an arm cancelled before it began sends nothing
        lock.lock();
        released_ = true;
        release_time_ = Clock::now();
        changed_.notify_all();
    }

    void watch() {
        for (;;) {
            bool finished = false;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                changed_.wait_for(lock, kWatchInterval, [this] {
                    return running_ == 0 || done_.load() != last_reported_;
                });
                finished = running_ == 0;
            }
            if (finished) return;
            check_cancel_and_deadline();
            const std::size_t done = done_.load();
            if (done != last_reported_ && done < total_) report_progress(done);
        }
    }

    void worker(std::size_t k) {
        Clock::time_point first_request;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            ++ready_;
            ++running_;
            changed_.notify_all();
            changed_.wait(lock, [this] { return released_; });
            first_request = release_time_ + static_cast<long>(k) * request_.stagger;
            changed_.wait_until(lock, first_request, [this] { return stop_.load() != 0; });
            if (request_.staggered && k > 0)
                changed_.wait(lock, [this, k] { return decoding_[k - 1] || stop_.load() != 0; });
        }
        http::HttpSession& session = *sessions_[k];
        const auto decoding = [this, k] { mark_decoding(k); };
        bool first = true;
        while (stop_.load() == 0) {
            const std::size_t i = cursor_.fetch_add(1);
            if (i >= total_) break;
            const bool sent = send_one(session, i, first ? decoding : std::function<void()>());
            if (first) mark_decoding(k);  // answered or failed: the next worker waits no more
            first = false;
            if (!sent) break;
        }
        std::lock_guard<std::mutex> lock(mutex_);
        decoding_[k] = 1;
        --running_;
        changed_.notify_all();
    }

    void mark_decoding(std::size_t k) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (decoding_[k]) return;
        decoding_[k] = 1;
        changed_.notify_all();
    }

    // Returns false when the item could not be sent because the arm is stopping.
    // `on_first_token`: called once the answer's first token chunk came (streamed requests).
    bool send_one(http::HttpSession& session, std::size_t i,
                  const std::function<void()>& on_first_token) {
        const core::WorkItem& item = (*request_.items)[request_.order[i]];
        core::TrialRecord& r = records_[i];
        auto timeout = request_.request.timeout;
        if (request_.deadline) {
            // Rounded up, so a request cut short by the deadline ends at or after it and is
            // labelled as stopped by the deadline, not as the server's timeout.
            const auto left =
                std::chrono::ceil<std::chrono::milliseconds>(*request_.deadline - Clock::now());
            if (left.count() < 1) {
                trigger(StopReason::Deadline);
                return false;
            }
            timeout = std::min(timeout, left);
        }
        session.set_timeout(timeout);
        http::RequestOptions options = request_.request;
        if (request_.pin_slots > 0) {
            options.id_slot = static_cast<int>(i) % request_.pin_slots;
            r.pinned_slot = options.id_slot;
        }
        if (request_.adjust) request_.adjust(request_.order[i], options);
        const std::size_t prompt_bytes = item.system.size() + item.prompt.size();
        const Millis known = known_silence(prompt_bytes);
        const Clock::time_point t0 = Clock::now();
        http::CompletionOutcome outcome;
        try {
            if (options.stream) {
                // A stream's pieces may come no further apart than the request may take whole.
                // Where this server's silences are known, one far longer is a stall.
                http::StreamLimits limits;
                if (known.count() > 0) limits.max_gap = stall_limit(known, request_.concurrency);
                limits.max_gap = std::min(limits.max_gap, timeout);
                auto streamed = http::complete_streamed(session, options, item.system, item.prompt,
                                                        item.seed, limits, on_first_token);
                if (streamed.outcome.ok()) {
                    r.token_ms = http::chunk_times_ms(streamed.trace, request_.origin);
                    heard(longest_wait(streamed.trace, streamed.sent),
                          first_wait(streamed.trace, streamed.sent), prompt_bytes);
                }
                outcome = std::move(streamed.outcome);
            } else {
                outcome = http::complete(session, options, item.system, item.prompt, item.seed);
            }
        } catch (const std::exception& e) {
            outcome.failure = http::Failure{core::FailureMode::HttpError,
                                            std::string("client error: ") + e.what()};
        }
        const Clock::time_point t1 = Clock::now();
        sent_[i] = 1;
        r.dispatch_ns = ns_since(request_.origin, t0);
        r.complete_ns = ns_since(request_.origin, t1);
        r.wall_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
        r.retries = outcome.retries;
        if (outcome.ok()) {
            const http::CompletionResult& c = outcome.result;
            r.content = c.content;
            r.content_sha = core::content_sha(c.content);
            r.reasoning_content = c.reasoning_content;
            r.tool_calls = c.tool_calls;
            r.token_ids = c.token_ids;
            r.token_logprobs = c.token_logprobs;
            r.token_texts = c.token_texts;
            r.top_alternatives = c.top_alternatives;
            r.prompt_tokens_measured = c.prompt_tokens;
            r.id_slot = c.id_slot;
            r.tokens_per_second = c.tokens_per_second;
            r.finish_reason = c.finish_reason;
            r.completion_tokens = c.completion_tokens;
            r.prompt_cached = c.prompt_cached;
            r.prompt_evaluated = c.prompt_evaluated;
            r.drafted = c.drafted;
        } else {
            label_failure(r, *outcome.failure);
        }
        tally(outcome.failure ? &*outcome.failure : nullptr, item.test_id);
        // The watcher is not woken here: it looks every kWatchInterval, and a wake-up per
        // request cost the calling thread one context switch per trial.
        done_.fetch_add(1);
        return true;
    }

    Millis known_silence(std::size_t prompt_bytes) {
        std::lock_guard<std::mutex> lock(give_up_mutex_);
        return expected_silence(std::max(silence_, request_.known_silence), prefill_ms_per_byte_,
                                prompt_bytes);
    }

    void heard(Millis wait, Millis first, std::size_t prompt_bytes) {
        std::lock_guard<std::mutex> lock(give_up_mutex_);
        silence_ = std::max(silence_, wait);
        prefill_ms_per_byte_ = std::max(
            prefill_ms_per_byte_, static_cast<double>(first.count()) /
                                      static_cast<double>(std::max<std::size_t>(prompt_bytes, 1)));
    }

    // Counts one finished request and gives the arm up once it is hopeless (see ArmRequest).
    void tally(const http::Failure* failure, const std::string& test_id) {
        std::lock_guard<std::mutex> lock(give_up_mutex_);
        if (!failure || failure->http_status > 0) answered_ = true;
        if (stop_reason() != StopReason::None) return;  // stopped for another reason meanwhile
        const bool timed_out = failure && failure->mode == core::FailureMode::HttpTimeout;
        trailing_timeouts_ = timed_out ? trailing_timeouts_ + 1 : 0;
        if (trailing_timeouts_ == 1) stalls_ = false;
        if (timed_out && failure->message.find("(stream stalled)") != std::string::npos)
            stalls_ = true;
        ++finished_;
        if (failure) {
            ++failed_;
            ++failed_by_mode_[std::string(core::FailureLabel(failure->mode).word())];
            if (first_failure_.empty()) first_failure_ = test_id + ": " + failure->message;
        }
        const auto timeout_s = std::chrono::duration<double>(request_.request.timeout).count();
        if (request_.first_timeouts > 0 && trailing_timeouts_ == request_.first_timeouts) {
            const std::string each =
                stalls_ ? "the last: " + failure->message : seconds_text(timeout_s) + " s each";
            const std::size_t before = finished_ - trailing_timeouts_;
            gave_up_ = before == 0
                           ? "the first " + std::to_string(trailing_timeouts_) +
                                 " request(s) to finish all timed out (" + each +
                                 "): the server takes requests but does not answer them"
                           : "the last " + std::to_string(trailing_timeouts_) +
                                 " request(s) to finish all timed out (" + each + ") after " +
                                 std::to_string(before) + " finished: the server stopped answering";
            stopped_answering_ = true;
            trigger(StopReason::GaveUp);
            return;
        }
        if (!request_.completion_floor || !failure) return;
        const double floor = *request_.completion_floor;
        // ok / total >= floor is still possible while failures <= total - ceil(floor * total).
        const auto needed =
            static_cast<std::size_t>(std::ceil(floor * static_cast<double>(total_) - 1e-9));
        const std::size_t may_fail = total_ - std::min(total_, needed);
        if (failed_ <= may_fail) return;
        std::string modes;
        for (const auto& [mode, n] : failed_by_mode_)
            modes += (modes.empty() ? "" : ", ") + mode + " x" + std::to_string(n);
        gave_up_ = std::to_string(failed_) + " of " + std::to_string(total_) +
                   " request(s) failed (" + modes + "): at most " + std::to_string(may_fail) +
                   " may fail for the " + seconds_text(floor * 100.0) + "% completion floor" +
                   (first_failure_.empty() ? "" : "; the first: " + first_failure_);
        trigger(StopReason::GaveUp);
    }

    void label_failure(core::TrialRecord& r, const http::Failure& failure) {
        if (stop_reason() == StopReason::None && request_.deadline &&
            Clock::now() >= *request_.deadline)
            trigger(StopReason::Deadline);  // the timeout was cut short by the deadline
        if (stop_reason() == StopReason::None && request_.server_alive) {
            bool alive = true;
            {
                std::lock_guard<std::mutex> lock(alive_mutex_);
                alive = request_.server_alive();
            }
            if (!alive) trigger(StopReason::ServerDied);
        }
        r.failure_mode = failure.mode;
        r.error = failure.message;
        // Only a transport failure can have been caused by the stop; an answer the server
        // actually gave (oom, bad_response) keeps its own label.
        const bool transport = failure.mode == core::FailureMode::HttpError ||
                               failure.mode == core::FailureMode::HttpTimeout;
        if (transport) relabel(r, stop_reason(), failure.message);
    }

    static void relabel(core::TrialRecord& r, StopReason reason, const std::string& detail) {
        switch (reason) {
            case StopReason::None:
                return;
            // bi-run itself stopped these: the arm is incomplete, which says nothing about the
            // server's answers (never RED).
            case StopReason::Cancelled:
                r.failure_mode = core::FailureMode::Incomplete;
                r.error = "cancelled: " + detail;
                return;
            case StopReason::Deadline:
                r.failure_mode = core::FailureMode::Incomplete;
                r.error = "arm deadline: " + detail;
                return;
            case StopReason::ServerDied:
                r.failure_mode = core::FailureMode::ServerDied;
                r.error = "server not running: " + detail;
                return;
            case StopReason::GaveUp:
                r.failure_mode = core::FailureMode::Incomplete;
                r.error = "gave up on the arm: " + detail;
                return;
        }
    }

    void label_unsent() {
        for (std::size_t i = 0; i < total_; ++i) {
            if (sent_[i]) continue;
            core::TrialRecord& r = records_[i];
            r.failure_mode = core::FailureMode::Incomplete;
            r.error = "not sent";
            relabel(r, stop_reason(), "not sent");
        }
    }
};

}  // namespace

std::vector<core::TrialRecord> run_arm(const http::Endpoint& endpoint, const ArmRequest& request) {
    return run_arm_outcome(endpoint, request).records;
}

ArmOutcome run_arm_outcome(const http::Endpoint& endpoint, const ArmRequest& request) {
    validate(request);
    ArmRun run(endpoint, request);
    ArmOutcome outcome;
    outcome.records = run.run();
    outcome.gave_up = run.gave_up();
    outcome.stopped_answering = run.stopped_answering();
    outcome.answered = run.answered();
    outcome.longest_silence = run.longest_silence();
    return outcome;
}

std::chrono::milliseconds expected_silence(std::chrono::milliseconds longest,
                                           double prefill_ms_per_byte, std::size_t prompt_bytes) {
    const double prefill = std::ceil(prefill_ms_per_byte * static_cast<double>(prompt_bytes));
    return std::max(longest, Millis{static_cast<Millis::rep>(prefill)});
}

std::chrono::milliseconds stall_limit(std::chrono::milliseconds silence, int concurrency) {
    const auto scaled = silence * kStallFactor * std::max(concurrency, 1);
    return std::max<std::chrono::milliseconds>(scaled, kMinStall);
}

}  // namespace bi::driver
