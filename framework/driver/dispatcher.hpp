// Runs one arm or one pass: N closed-loop workers, each with its own keep-alive connection,
// released together, so N requests are in flight at once and never more (docs/design.md §9.4).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/trial.hpp"
#include "core/work_item.hpp"
#include "http/completion_request.hpp"
#include "http/http_session.hpp"

namespace bi::driver {

struct ArmRequest {
    std::string arm;  // "A", "A'", "B" or "C"; copied into every record
    int pass = 0;     // copied into every record (1-based for C passes, 0 elsewhere)
    const std::vector<core::WorkItem>* items = nullptr;
    std::vector<std::size_t> order;        // indices into *items, each at most once, in send order
    int concurrency = 1;                   // workers; 1 = serial
    std::chrono::milliseconds stagger{0};  // worker k sends its first request k * stagger late
    // Staggered arrivals (core::Arrivals): worker k > 0 sends its first request only once worker
    // k - 1's first request is decoding (its first token chunk came; or it ended), so that each
    // prefill shares steps with the decodes before it. Needs streamed requests to see decoding;
    // unstreamed, each first request waits for the previous one to end.
    bool staggered = false;
    http::RequestOptions request;  // endpoint, n_predict, logprobs, seed, limits
    // > 0: the i-th request sent asks for slot i % pin_slots (arm B exercises every slot
    // serially, so an answer that depends on the slot shows as A vs B).
    int pin_slots = 0;
    // Called before each request with its index into *items, to change that request's options
    // (the cache arm's continuation cuts send A's first tokens and a shorter limit); absent:
    // every request is sent with `request`.
    std::function<void(std::size_t item, http::RequestOptions& options)> adjust;
    std::chrono::steady_clock::time_point origin;  // dispatch_ns / complete_ns count from here
    std::optional<std::chrono::steady_clock::time_point> deadline;  // for the whole arm
    const std::atomic<bool>* cancel = nullptr;  // set by anyone (e.g. a signal handler) to stop
    // Called on the calling thread, never concurrently: after start, whenever the number of
    // finished records grows (checked every few ms), and once at the end with done == total.
    std::function<void(std::size_t done, std::size_t total)> progress;
    // Asked after a request fails (from worker threads, serialised by run_arm): false means the
    // server process is gone. Absent: assumed alive.
    std::function<bool()> server_alive;
    // When to give the arm up as hopeless (a wedged server), rather than let every request run
    // to its timeout: once more requests have failed than `completion_floor` (a share of the
    // arm) allows, or once the latest `first_timeouts` requests to finish all timed out (at the
    // start of the arm or after answers: the server stopped answering). Unset / 0: never.
    std::optional<double> completion_floor;
    std::size_t first_timeouts = 0;
    // The longest silence already seen on this server (a streamed answer's wait for its first
    // token, or between two of its pieces); zero: none seen. With it, or once a request of this
    // arm was answered, a streamed request fails as stalled after stall_limit(silence, N) without
    // a byte instead of waiting out its whole timeout (docs/design.md §9.6).
    std::chrono::milliseconds known_silence{0};
};

// How long a streamed request may go without a byte on a server whose longest silence so far
// (first token, or between pieces) was `silence`, with `concurrency` requests in flight: ten
// times that silence per request in flight, and never under 20 s, so that a slow prefill is
// never taken for a stall while a wedged server is told within seconds of the bound.
std::chrono::milliseconds stall_limit(std::chrono::milliseconds silence, int concurrency);

// The silence to expect of a streamed request whose prompt is `prompt_bytes` long, on a server
// whose longest silence so far was `longest` and whose slowest first token took
// `prefill_ms_per_byte` per prompt byte: a prompt ten times longer than every one answered so
// far may wait ten times longer for its first token, and is not a stall for that.
std::chrono::milliseconds expected_silence(std::chrono::milliseconds longest,
                                           double prefill_ms_per_byte, std::size_t prompt_bytes);

struct ArmOutcome {
    std::vector<core::TrialRecord> records;
    // Why the arm was given up as hopeless; empty when it was not.
    std::string gave_up;
    // Given up because its latest requests all timed out: the server stopped answering (or never
    // did), rather than answering too many requests with failures.
    bool stopped_answering = false;
    // Some request of the arm got an answer from the server: a completion, or an HTTP status or a
    // body it failed on (not only timeouts and broken connections).
    bool answered = false;
    // The longest silence of the arm's answered streamed requests (see known_silence).
    std::chrono::milliseconds longest_silence{0};
};

// Runs the arm and returns one record per entry of `order`, in `order`'s sequence, whatever
// happened. Each worker takes the next index from a shared cursor and has exactly one request
// in flight, so at most min(concurrency, order.size()) requests are ever in flight.
//
// A record carries the item's test_id, family, fill and expected_answer, the arm and pass, and
// retries. When a completion arrived: content, content_sha, token_ids, token_logprobs,
// prompt_tokens_measured, id_slot, tokens_per_second, and failure_mode left unset for the
// scorer to fill. When not: failure_mode is the transport failure ("http_timeout",
// "http_error", "oom", "bad_response", "server_died") and error says why. Every request that
// was sent has dispatch_ns, complete_ns (steady clock, ns since origin) and wall_ms.
//
// Stopping. A request that fails while server_alive() says false is "server_died". The arm
// then stops early for one of four reasons, checked every few ms and after every request:
//   cancelled    (*cancel became true)      -> "incomplete",  error "cancelled..."
//   arm deadline (deadline passed)          -> "incomplete",  error "arm deadline..."
//   server died  (server_alive() was false) -> "server_died", error "server not running..."
//   gave up      (completion_floor or first_timeouts, above) -> "incomplete", error "gave up..."
// Requests in flight are cut off at once (their records keep their intervals); items not yet
// sent get a record without an interval, error "...: not sent". Request timeouts are shortened
// so that no request outlives the deadline.
//
// Throws bi::Error(Internal) before sending anything when items is null, concurrency < 1, or
// order holds an index out of range or twice.
std::vector<core::TrialRecord> run_arm(const http::Endpoint& endpoint, const ArmRequest& request);

// As run_arm, saying too whether (and why) the arm was given up as hopeless.
ArmOutcome run_arm_outcome(const http::Endpoint& endpoint, const ArmRequest& request);

}  // namespace bi::driver
