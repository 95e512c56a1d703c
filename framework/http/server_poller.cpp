#include "server_poller.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "server_observation.hpp"

namespace bi::http {

namespace {

bool means_unavailable(const HttpOutcome& outcome) {
    return outcome.response.status == 404 || outcome.response.status == 501;
}

}  // namespace

struct ServerPoller::Impl {
    Endpoint endpoint;
    std::chrono::milliseconds interval;
    std::chrono::milliseconds request_timeout;
    std::chrono::steady_clock::time_point origin;
    std::size_t max_response_bytes = kDefaultMaxResponseBytes;
    core::KindEvidence spec;
    std::int64_t last_metrics_start = -1;  // json-iterations: where the listed steps began
    std::optional<std::chrono::steady_clock::time_point> deadline;  // set by start()

    std::int64_t now_ns() const {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now() - origin)
            .count();
    }

    mutable std::mutex mutex;  // guards everything below
    std::condition_variable wake;
    bool running = false;
    bool stopping = false;
    std::thread thread;
    OverlapAccumulator accumulator;
    std::unique_ptr<HttpSession> session;  // used by one thread at a time
    bool slots_available = true;
    bool metrics_available = true;
    bool saw_work = false;  // the latest round saw a slot or request computing

    // While the server computes, rounds follow each other at a fifth of the interval (at least
    // 1 ms): a short request is then seen inside its own span, not only between two rounds.
    std::chrono::milliseconds cadence() const {
        if (!saw_work) return interval;
        return std::max(std::chrono::milliseconds(1), interval / 5);
    }

    // Gives the session the time a request may take now; false once the deadline has passed.
    bool arm_session() {
        auto timeout = request_timeout;
        if (deadline) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                *deadline - std::chrono::steady_clock::now());
            if (left.count() < 1) return false;
            timeout = std::min(timeout, left);
        }
        session->set_timeout(timeout);
        return true;
    }

    // Network calls run without the lock; only the fold into the accumulator takes it.
    void sample_once() {
        bool want_slots = false;
        bool want_metrics = false;
        {
            std::lock_guard<std::mutex> lock(mutex);
            want_slots = slots_available && spec.has_slots();
            want_metrics = metrics_available && !spec.metrics_path.empty();
        }
        std::optional<SlotsSample> slots;
        std::optional<MetricsSample> metrics;
        bool slots_gone = false;
        bool metrics_gone = false;
        std::int64_t slots_start = 0;
        std::int64_t slots_end = 0;
        if (want_slots && arm_session()) {
            slots_start = now_ns();
            HttpOutcome out = session->get(spec.slots_path);
            slots_end = now_ns();
            if (out.ok()) {
                try {
                    slots = parse_slots(out.response.body, spec.slot_busy, spec.slot_task);
                } catch (const Error&) {
                    // An unreadable answer is no evidence either way.
                }
            } else {
                slots_gone = means_unavailable(out);
            }
        }
        std::int64_t metrics_start = 0;
        std::int64_t metrics_end = 0;
        if (want_metrics && arm_session()) {
            metrics_start = now_ns();
            HttpOutcome out = session->get(spec.metrics_path);
            metrics_end = now_ns();
            if (out.ok())
                metrics = parse_metrics(out.response.body, spec);
            else
                metrics_gone = means_unavailable(out);
        }
        // A json-iterations answer lists the steps since the previous one: its peak was reached
        // somewhere in that whole span, not during this request. The window's first answer
        // lists steps from before the window, so it only marks where the next one starts.
        std::int64_t gauge_from = metrics_start;
        if (spec.metrics_format == core::MetricsFormat::JsonIterations && metrics) {
            const bool first = last_metrics_start < 0;
            gauge_from = last_metrics_start;
            last_metrics_start = metrics_start;
            if (first) metrics.reset();
        }
        std::lock_guard<std::mutex> lock(mutex);
        if (slots_gone) slots_available = false;
        if (metrics_gone) metrics_available = false;
        accumulator.mark_unavailable(slots_gone, metrics_gone);
        if (slots) accumulator.add_slots(*slots, slots_start, slots_end);
        if (metrics) accumulator.add_metrics(*metrics, gauge_from, metrics_end);
        if (slots || metrics) accumulator.count_sample();
        saw_work = (slots && slots->busy > 0) || (metrics && metrics->running.value_or(0.0) >= 1.0);
    }

    void loop() {
        for (;;) {
            {
                std::unique_lock<std::mutex> lock(mutex);
                if (wake.wait_for(lock, cadence(), [this] { return stopping; })) return;
            }
            sample_once();
        }
    }
};

ServerPoller::ServerPoller(Endpoint endpoint, std::chrono::milliseconds interval,
                           std::chrono::milliseconds request_timeout,
                           std::chrono::steady_clock::time_point origin,
                           std::size_t max_response_bytes, core::KindEvidence spec)
    : impl_(std::make_unique<Impl>()) {
    impl_->spec = std::move(spec);
    impl_->origin = origin;
    impl_->max_response_bytes = max_response_bytes;
    impl_->endpoint = std::move(endpoint);
    impl_->interval = interval;
    impl_->request_timeout = request_timeout;
}

ServerPoller::~ServerPoller() {
    stop();
}

void ServerPoller::start(std::optional<std::chrono::steady_clock::time_point> deadline) {
    {
        std::lock_guard<std::mutex> lock(impl_->mutex);
        if (impl_->running) return;
        impl_->running = true;
        impl_->stopping = false;
        impl_->accumulator = OverlapAccumulator{impl_->spec};
        impl_->last_metrics_start = -1;
        impl_->slots_available = true;
        impl_->metrics_available = true;
        impl_->saw_work = false;
        impl_->deadline = deadline;
    }
    impl_->session = std::make_unique<HttpSession>(impl_->endpoint, impl_->request_timeout,
                                                   impl_->max_response_bytes);
    impl_->sample_once();
    impl_->thread = std::thread([impl = impl_.get()] { impl->loop(); });
}

core::ServerOverlapEvidence ServerPoller::stop() {
    {
        std::lock_guard<std::mutex> lock(impl_->mutex);
        if (!impl_->running) return impl_->accumulator.evidence();
        impl_->stopping = true;
    }
    impl_->wake.notify_all();
    if (impl_->thread.joinable()) impl_->thread.join();
    impl_->sample_once();
    impl_->session.reset();
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->running = false;
    return impl_->accumulator.evidence();
}

core::ServerOverlapEvidence ServerPoller::evidence() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->accumulator.evidence();
}

bool ServerPoller::running() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->running;
}

}  // namespace bi::http
