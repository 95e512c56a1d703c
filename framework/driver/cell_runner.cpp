#include "cell_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <sstream>
#include <string_view>
#include <thread>

#include "cell_configuration.hpp"
#include "cert_archive.hpp"
#include "core/cert.hpp"
#include "core/coverage.hpp"
#include "core/drafting.hpp"
#include "core/error.hpp"
#include "core/permutation.hpp"
#include "core/request_field.hpp"
#include "core/sample_size.hpp"
#include "core/sha256.hpp"
#include "core/union.hpp"
#include "core/verdict.hpp"
#include "dispatcher.hpp"
#include "host_info.hpp"
#include "http/completion_client.hpp"
#include "http/server_poller.hpp"
#include "http/server_props.hpp"
#include "interrupt.hpp"
#include "io/cert_io.hpp"
#include "io/server_kind_io.hpp"
#include "io/utc_time.hpp"
#include "io/workset.hpp"
#include "scoring.hpp"
#include "token_counter.hpp"

namespace bi::driver {

namespace {

// Whether `server` exits within a short grace (polled, so a live server costs the whole grace
// and a dying one only as long as its exit takes).
bool exits_soon(ServerHandle& server) {
    constexpr auto kGrace = std::chrono::seconds(2);
    const auto until = std::chrono::steady_clock::now() + kGrace;
    while (std::chrono::steady_clock::now() < until) {
        if (!server.alive()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return !server.alive();
}

using clock = std::chrono::steady_clock;

// The cache arm's records' arm: never a cold arm, so no gate counts it.
constexpr const char* kCacheArm = "cache";

double seconds_since(clock::time_point start) {
    return std::chrono::duration<double>(clock::now() - start).count();
}

std::vector<std::size_t> identity_order(std::size_t n) {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    return order;
}

http::Endpoint endpoint_of(const ServerHandle& server) {
    const auto address = server.address();
    return {address.host, address.port};
}

std::string short_number(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

// "7/8 scored ok; failed: http_error x1 (the first: <id>: POST /completion: HTTP 400: ...)".
std::string count_modes(const core::ArmResults& arm) {
    const core::CompletionCensus census = core::completion_census(arm, "");
    std::string text = std::to_string(census.n_ok) + "/" + std::to_string(census.n) + " scored ok";
    if (census.failures.empty()) return text;
    std::string modes;
    for (const auto& [mode, n] : census.by_mode)
        if (mode != "ok" && mode != "unknown")
            modes += (modes.empty() ? "" : ", ") + mode + " x" + std::to_string(n);
    const auto& first = census.failures.front();
    return text + "; failed: " + modes + " (the first: " + first.test_id + ": " +
           (first.error.empty() ? first.failure_mode : first.error) + ")";
}

// The records of `arm` that bi-run sent (not "incomplete"): what a given-up arm's census counts.
core::ArmResults sent_only(const core::ArmResults& arm) {
    core::ArmResults sent;
    for (const auto& [id, r] : arm)
        if (r.failure_mode != core::FailureLabel(core::FailureMode::Incomplete))
            sent.emplace(id, r);
    return sent;
}

}  // namespace

CellRunner::CellRunner(ServerLauncher& launcher, plugin_host::ScorerInstance& scorer,
                       RunOptions options, Progress& progress)
    : launcher_(launcher),
      scorer_(scorer),
      options_(std::move(options)),
      progress_(progress),
      origin_(clock::now()) {
    if (options_.passes < 1)
        usage_error(core::field_ref(core::RequestField::Passes) + " must be at least 1");
    if (options_.reps < 1)
        usage_error(core::field_ref(core::RequestField::Reps) + " must be at least 1");
    if (options_.target_rate && !(*options_.target_rate > 0.0 && *options_.target_rate < 1.0))
        usage_error(core::field_ref(core::RequestField::TargetRate) + " must be between 0 and 1");
    if (!(options_.confidence > 0.0 && options_.confidence < 1.0))
        usage_error(core::field_ref(core::RequestField::Confidence) + " must be between 0 and 1");
    if (options_.max_passes < 1)
        usage_error(core::field_ref(core::RequestField::MaxPasses) + " must be at least 1");
    if (options_.model_alias.empty())
        usage_error("the cell has no model name (" +
                    core::field_ref(core::RequestField::ModelAlias) + ")");
    // Every arm alike: streamed where the kind can stream, so C's streams show co-batching.
    options_.request.stream = options_.request.dialect.streams;
}

const core::KindEvidence& CellRunner::evidence_spec() const {
    return options_.kind ? options_.kind->evidence : io::default_server_kind().evidence;
}

// The kind's identity answer (llama-server: /props), at most 10 s for the whole of it: it is
// small and immediate on a healthy server. An empty object when the kind has none.
core::Json CellRunner::fetch_props(const ServerHandle& server) const {
    const std::string& path =
        (options_.kind ? *options_.kind : io::default_server_kind()).identity.props_path;
    if (path.empty()) return core::Json::object();
    http::HttpSession session(endpoint_of(server), std::chrono::seconds(10),
                              options_.request.max_response_bytes);
    const auto outcome = session.get(path);
    if (!outcome.ok()) return core::Json::object();
    return http::parse_props(outcome.response.body);
}

std::optional<core::ModeReport> CellRunner::ask_mode(const ServerHandle& server,
                                                     const std::string& which) const {
    if (!options_.kind || options_.determinism != true) return std::nullopt;
    const auto& mode = options_.kind->determinism;
    if (!mode.reports()) return std::nullopt;
    core::ModeReport report;
    report.server = which;
    http::HttpSession session(endpoint_of(server), std::chrono::seconds(10),
                              options_.request.max_response_bytes);
    const auto outcome = session.get(mode.status_path);
    if (!outcome.ok()) {
        report.detail = "nothing: GET " + mode.status_path + " failed: " + outcome.failure->message;
        return report;
    }
    const core::Json answer = http::parse_props(outcome.response.body);
    const core::Json* value = answer.find_path(mode.status_field);
    if (!value) {
        report.detail = "nothing: GET " + mode.status_path + " has no " + mode.status_field;
    } else if (value->is_bool()) {
        report.on = value->as_bool();
    } else if (value->is_int()) {
        report.on = value->as_int() != 0;
    } else {
        report.detail = "nothing: " + mode.status_field + " is not true or false";
    }
    if (report.on) report.detail = mode.status_field + " = " + (*report.on ? "true" : "false");
    return report;
}

// The digest the kind's store listing gives the model named by --model (Ollama's /api/tags:
// "name" or "model" equal to it, or to it with ":latest"); none when the kind lists no store.
std::optional<std::string> CellRunner::fetch_store_digest(const ServerHandle& server) const {
    if (!options_.kind || options_.kind->identity.models_path.empty()) return std::nullopt;
    http::HttpSession session(endpoint_of(server), std::chrono::seconds(10),
                              options_.request.max_response_bytes);
    const auto outcome = session.get(options_.kind->identity.models_path);
    if (!outcome.ok()) return std::nullopt;
    const core::Json listing = http::parse_props(outcome.response.body);
    const core::Json* models = listing.find("models");
    if (!models || !models->is_array()) return std::nullopt;
    const std::string& wanted = options_.request.model;
    for (const auto& entry : models->as_array()) {
        const bool named = [&] {
            for (const char* key : {"name", "model"}) {
                const std::string value = entry.string_or(key, "");
                if (value == wanted || value == wanted + ":latest") return true;
            }
            return false;
        }();
        const core::Json* digest = entry.find("digest");
        if (named && digest && digest->is_string()) return digest->as_string();
    }
    return std::nullopt;
}

CellRunner::ArmRun CellRunner::run_arm(
    ServerHandle& server, const std::vector<core::WorkItem>& items, const std::string& arm,
    int pass, std::vector<std::size_t> order, int concurrency, const std::string& label,
    int pin_slots, bool staggered,
    const std::function<void(std::size_t, http::RequestOptions&)>& adjust) {
    throw_if_interrupted();
    ArmRequest request;
    request.arm = arm;
    request.pass = pass;
    request.items = &items;
    request.order = std::move(order);
    request.concurrency = concurrency;
    request.pin_slots = pin_slots;
    request.stagger = concurrency > 1 ? options_.stagger : std::chrono::milliseconds(0);
    request.staggered = staggered;
    request.adjust = adjust;
    request.request = options_.request;
    request.origin = origin_;
    if (options_.arm_deadline) request.deadline = clock::now() + *options_.arm_deadline;
    request.cancel = &interrupt_flag();
    request.progress = [this](std::size_t done, std::size_t total) {
        progress_.arm_advanced(done, total);
    };
    request.server_alive = [&server] { return server.alive(); };
    // A wedged server is given up on in minutes, not after every request's timeout: the first
    // requests all timing out (two serially, the first wave at N), or, where the completion
    // floor gates the arm (A, A' and C), once it can no longer be met.
    request.first_timeouts = std::min<std::size_t>(
        request.order.size(), concurrency > 1 ? static_cast<std::size_t>(concurrency) : 2);
    if (arm != "B") request.completion_floor = core::kCompletionFloor;
    request.known_silence = silence_;

    progress_.arm_started(label, request.order.size());
    const auto start = clock::now();
    http::ServerPoller poller(endpoint_of(server), std::chrono::milliseconds(10),
                              std::chrono::seconds(5), origin_, options_.request.max_response_bytes,
                              evidence_spec());
    poller.start(request.deadline);
    ArmRun run;
    auto outcome = driver::run_arm_outcome(endpoint_of(server), request);
    run.records = std::move(outcome.records);
    run.server = poller.stop();
    run.seconds = seconds_since(start);
    silence_ = std::max(silence_, outcome.longest_silence);

    throw_if_interrupted();
    // A server that died mid-arm fails its requests before its exit can be seen: an arm that
    // failed is given a moment for that, so the death is what the run reports.
    if (!server.alive() || (!outcome.gave_up.empty() && exits_soon(server)))
        throw Error(ErrorCategory::Server,
                    "the server died during " + label + ": " + server.death_report());
    // A server that stopped answering (or never did) leaves no verdict, as a crash does. One
    // that answered a serial arm, but failed too many of its requests, is UNVERIFIED by its
    // completion floor (run_serial). A pass of C that fails where A answered is evidence itself
    // (failed under concurrency).
    if (!outcome.gave_up.empty() && arm != "C" && arm != kCacheArm &&
        (outcome.stopped_answering || !outcome.answered || arm == "B"))
        throw Error(ErrorCategory::Server, label + " given up: " + outcome.gave_up +
                                               "; no verdict is possible, so no cert is written");
    run.gave_up = std::move(outcome.gave_up);
    return run;
}

core::ArmResults CellRunner::score(std::vector<core::TrialRecord> records,
                                   const std::vector<core::WorkItem>& items) {
    return score_arm(std::move(records), items, scorer_);
}

// The kind's warm-up (docs/design.md §5.2.3): requests sent as the arms send theirs, right
// after a launch and before any arm, and never scored, so that a server whose first answers after
// start-up differ is warmed up alike for every arm. Their prompt is no item's, so that a prompt
// cache the kind cannot turn off holds nothing a scored answer could be served from. One that
// fails ends the run as a server that never became ready does: no arm could run on it.
void CellRunner::warm_up(ServerHandle& server, const std::vector<core::WorkItem>& items,
                         const std::string& which) {
    static constexpr std::string_view kWarmupPrompt =
        "Warm-up request: reply with any short sentence.";
    const int k = options_.request.dialect.warmup;
    if (k <= 0 || items.empty()) return;
    progress_.note("warming up the " + which + ": " + std::to_string(k) + " unscored request(s)");
    const std::uint64_t seed = items.front().seed;
    http::HttpSession session(endpoint_of(server), options_.request.timeout,
                              options_.request.max_response_bytes);
    for (int i = 1; i <= k; ++i) {
        throw_if_interrupted();
        http::CompletionOutcome outcome;
        try {
            outcome =
                options_.request.stream
                    ? http::complete_streamed(session, options_.request, "", kWarmupPrompt, seed)
                          .outcome
                    : http::complete(session, options_.request, "", kWarmupPrompt, seed);
        } catch (const std::exception& e) {
            outcome.failure = http::Failure{core::FailureMode::HttpError,
                                            std::string("client error: ") + e.what()};
        }
        if (outcome.ok()) continue;
        const std::string request =
            "warm-up request " + std::to_string(i) + "/" + std::to_string(k) + " on the " + which;
        if (!server.alive() || exits_soon(server))
            throw Error(ErrorCategory::Server,
                        "the server died during " + request + ": " + server.death_report());
        throw Error(ErrorCategory::Server, request + " failed: " + outcome.failure->message +
                                               "; no arm was run, so no cert is written");
    }
}

SerialArms CellRunner::run_serial(std::int64_t ctx, const WorkRowSource& rows) {
    SerialArms serial;
    serial.ctx = ctx;
    progress_.note("launching the 1-slot server (ctx " + std::to_string(ctx) + ")");
    auto start = clock::now();
    auto server = launcher_.launch(1, ctx, core::PromptCache::Off);
    silence_ = {};  // a new server: its first answers may be slower than any later one
    serial.timings.launch_a_s = seconds_since(start);
    serial.server = server->describe();
    const core::Json props = fetch_props(*server);
    serial.props = http::trim_props(props, evidence_spec().served_model);
    serial.reports_mock = props.bool_or("bi_mock", false);
    serial.source = launcher_.launches_real_binary() && !serial.reports_mock ? core::Source::Live
                                                                             : core::Source::Mock;
    serial.store_digest = fetch_store_digest(*server);
    serial.mode = ask_mode(*server, "1-slot");

    ServerTokenCounter tokens(endpoint_of(*server), options_.request.dialect.tokenize_path,
                              options_.request.max_response_bytes);
    start = clock::now();
    const auto work_rows = rows(tokens.counter(), options_.model_alias, ctx);
    tokens.throw_if_failed("sizing the work-set on the 1-slot server (ctx " + std::to_string(ctx) +
                           ")");
    if (work_rows.empty()) throw Error(ErrorCategory::Input, "the work-set has no rows");
    serial.rows_sha256 = core::sha256_hex(io::workset_to_json_text(work_rows));
    serial.rows = work_rows;
    serial.items = core::expand_work_rows(work_rows, options_.model_alias, ctx, options_.reps);
    check_prompts_fit(serial.items, ctx, tokens.counter());
    tokens.throw_if_failed("counting the work-set's prompts on the 1-slot server (ctx " +
                           std::to_string(ctx) + ")");
    serial.timings.workset_s = seconds_since(start);
    warm_up(*server, serial.items, "1-slot server");

    // A serial arm given up on its completion floor ends the serial run: every cell of the ctx
    // is UNVERIFIED by it, and no later arm could change that.
    const auto given_up = [&](const std::string& arm, const std::string& label,
                              const core::ArmResults& results, const std::string& why) {
        serial.given_up =
            core::GivenUpArm{arm, why, core::completion_census(sent_only(results), arm)};
        progress_.notice(label + " given up: " + why +
                         "; no other arm is run, and every cell of ctx " + std::to_string(ctx) +
                         " is UNVERIFIED by its completion floor");
        server->shutdown();
        return serial;
    };
    const auto order = identity_order(serial.items.size());
    const std::string label_a = "arm A (serial, 1 slot)";
    auto a = run_arm(*server, serial.items, "A", 0, order, 1, label_a);
    serial.arm_a = score(std::move(a.records), serial.items);
    serial.timings.arm_a_s = a.seconds;
    progress_.arm_finished(count_modes(serial.arm_a));
    if (!a.gave_up.empty()) return given_up("A", label_a, serial.arm_a, a.gave_up);
    const auto longest = core::longest_prompt_tokens(serial.arm_a);
    if (options_.prefill_chunk && longest && *longest <= *options_.prefill_chunk)
        progress_.note(core::field_ref(core::RequestField::PrefillChunk) + " " +
                       std::to_string(*options_.prefill_chunk) + ": arm A's longest prompt is " +
                       std::to_string(*longest) +
                       " tokens, so no prompt is prefilled in more than one chunk");

    const std::string label_a2 = "arm A' (serial repeat)";
    auto a2 = run_arm(*server, serial.items, "A'", 0, order, 1, label_a2);
    serial.arm_a_prime = score(std::move(a2.records), serial.items);
    serial.timings.arm_a_prime_s = a2.seconds;
    if (!a2.gave_up.empty()) {
        progress_.arm_finished(count_modes(serial.arm_a_prime));
        return given_up("A'", label_a2, serial.arm_a_prime, a2.gave_up);
    }
    const auto self_check =
        core::compare_arms(serial.arm_a, serial.arm_a_prime, "A", "A'", options_.logit_drift_eps);
    progress_.arm_finished(
        self_check.clean() ? "reproduces A exactly"
                           : std::to_string(self_check.divergent_ids.size()) +
                                 " id(s) differ from A: the server is not serially reproducible");

    start = clock::now();
    server->shutdown();
    serial.timings.teardown_a_s = seconds_since(start);
    throw_if_interrupted();  // a signal during the teardown: the N-slot server is never launched
    if (options_.cache_arm) serial.cache_check = run_cache_arm(serial);
    return serial;
}

namespace {

// One request of the cache arm: an item's prime, its repeat, or a continuation cut after k of
// A's tokens.
struct CacheRequest {
    std::size_t item = 0;
    int probe = 0;  // 0: the prime, 1: the repeat, 2...: cut 1, cut 2 ...
    std::int64_t k = 0;
};

// Where an answer of `length` tokens is cut: after its first token, half way and before its
// last, each once.
std::vector<std::int64_t> cut_points(std::size_t length) {
    std::vector<std::int64_t> points;
    if (length < 2) return points;
    const auto n = static_cast<std::int64_t>(length);
    for (const std::int64_t k : {std::int64_t{1}, n / 2, n - 1})
        if (k >= 1 && k < n && std::find(points.begin(), points.end(), k) == points.end())
            points.push_back(k);
    return points;
}

// `tail` appended to the first k entries of `head`, when both are there.
template <typename T>
std::optional<std::vector<T>> joined_after(const std::optional<std::vector<T>>& head,
                                           std::int64_t k,
                                           const std::optional<std::vector<T>>& tail) {
    if (!head || !tail || head->size() < static_cast<std::size_t>(k)) return std::nullopt;
    std::vector<T> whole(head->begin(), head->begin() + k);
    whole.insert(whole.end(), tail->begin(), tail->end());
    return whole;
}

}  // namespace

core::CacheCheck CellRunner::run_cache_arm(const SerialArms& serial) {
    const auto& dialect = options_.request.dialect;
    std::string cuts_note;
    if (options_.request.endpoint != http::EndpointKind::Completion)
        cuts_note = "no continuation cuts: the chat endpoint takes no token ids (" +
                    core::field_ref(core::RequestField::Endpoint) + " completion does)";
    else if (!dialect.prompt_ids)
        cuts_note =
            "no continuation cuts: the server kind's completion endpoint takes no token "
            "ids (request.prompt_ids)";
    std::vector<CacheRequest> requests;
    std::vector<core::WorkItem> sent;
    bool any_cut = false;
    for (std::size_t i = 0; i < serial.items.size(); ++i) {
        const auto& item = serial.items[i];
        for (int probe : {0, 1}) {
            requests.push_back({i, probe, 0});
            sent.push_back(item);
        }
        if (!cuts_note.empty()) continue;
        const auto a = serial.arm_a.find(item.test_id);
        if (a == serial.arm_a.end() || !a->second.ok() || !a->second.token_ids) continue;
        int probe = 2;
        for (const auto k : cut_points(a->second.token_ids->size())) {
            requests.push_back({i, probe++, k});
            sent.push_back(item);
            any_cut = true;
        }
    }
    if (cuts_note.empty() && !any_cut)
        cuts_note = "no continuation cuts: none of A's answers has two token ids to cut between";
    const std::vector<std::int64_t> none;
    const auto adjust = [&](std::size_t index, http::RequestOptions& options) {
        for (const auto& [name, value] : dialect.cache_on_fields.as_object())
            options.dialect.fields.set(name, value);
        const auto& request = requests[index];
        if (request.k == 0) return;
        const auto& ids = *serial.arm_a.at(serial.items[request.item].test_id).token_ids;
        options.prompt_ids.assign(ids.begin(), ids.begin() + request.k);
        options.n_predict = std::max(1, options.n_predict - static_cast<int>(request.k));
    };

    std::vector<core::CacheProbe> probes(2);
    probes[1].name = "repeat";
    std::string failure;
    try {
        progress_.note("launching the 1-slot server with its prompt cache on (the cache arm)");
        auto server = launcher_.launch(1, serial.ctx, core::PromptCache::On);
        silence_ = {};
        warm_up(*server, serial.items, "cache arm's server");
        auto run =
            run_arm(*server, sent, kCacheArm, 0, identity_order(sent.size()), 1,
                    "cache arm (each prompt primed, repeated and cut, 1 slot)", 0, false, adjust);
        failure = run.gave_up;
        progress_.arm_finished(std::to_string(run.records.size()) + " request(s) sent");
        // Each probe's records, the cuts rebuilt into whole answers (A's first k tokens, then
        // the continuation) so the scorer and the comparison see what A saw.
        std::map<int, std::vector<core::TrialRecord>> by_probe;
        std::map<int, std::vector<std::string>> unscored;
        http::HttpSession detokenizer(endpoint_of(*server), std::chrono::seconds(30),
                                      options_.request.max_response_bytes);
        for (std::size_t i = 0; i < run.records.size(); ++i) {
            const auto& request = requests[i];
            core::TrialRecord record = std::move(run.records[i]);
            if (request.probe == 0) continue;
            // A cut answered without its token ids cannot be set beside A's: it is left out
            // (not exercised), never compared as a whole answer.
            if (request.k > 0 && record.failure_mode.word().empty() && !record.token_ids) continue;
            if (request.k > 0 && record.failure_mode.word().empty()) {
                const auto& a = serial.arm_a.at(record.test_id);
                const auto k = static_cast<std::size_t>(request.k);
                const auto& ids = *a.token_ids;
                const bool resumed =
                    ids.size() == k + record.token_ids->size() &&
                    std::equal(record.token_ids->begin(), record.token_ids->end(), ids.begin() + k);
                std::optional<std::string> head;
                if (resumed) {
                    record.content = a.content;
                } else if (!dialect.detokenize_path.empty()) {
                    const auto text = http::detokenize(
                        detokenizer, std::vector<std::int64_t>(ids.begin(), ids.begin() + k),
                        dialect.detokenize_path);
                    if (text.ok())
                        record.content = text.content + record.content;
                    else
                        unscored[request.probe].push_back(record.test_id);
                } else {
                    unscored[request.probe].push_back(record.test_id);
                }
                record.content_sha = core::content_sha(record.content);
                record.token_ids = joined_after(a.token_ids, request.k, record.token_ids);
                record.token_logprobs =
                    joined_after(a.token_logprobs, request.k, record.token_logprobs);
                record.token_texts = joined_after(a.token_texts, request.k, record.token_texts);
                record.top_alternatives =
                    joined_after(a.top_alternatives, request.k, record.top_alternatives);
                if (record.completion_tokens) *record.completion_tokens += request.k;
                if (record.prompt_tokens_measured) *record.prompt_tokens_measured -= request.k;
            }
            by_probe[request.probe].push_back(std::move(record));
        }
        server->shutdown();
        for (auto& [probe, records] : by_probe) {
            if (probe >= static_cast<int>(probes.size())) probes.resize(probe + 1);
            auto& p = probes[probe];
            if (probe >= 2) {
                p.name = "cut " + std::to_string(probe - 1);
                for (std::size_t i = 0; i < requests.size(); ++i)
                    if (requests[i].probe == probe)
                        p.cut_at[serial.items[requests[i].item].test_id] = requests[i].k;
            }
            p.unscored = unscored[probe];
            p.answers = score(std::move(records), serial.items);
        }
    } catch (const Error& e) {
        if (e.category() != ErrorCategory::Server && e.category() != ErrorCategory::Http) throw;
        failure = e.what();
    }
    probes.erase(probes.begin());  // the primes are not compared
    auto check = core::check_cache(dialect.cache_witness, serial.arm_a, serial.arm_a_prime, probes,
                                   cuts_note, options_.logit_drift_eps, failure);
    progress_.note("cache check: " + core::cache_check_line(check));
    throw_if_interrupted();
    return check;
}

namespace {

// The length that all but the shortest fifth of arm A's answers reach, in generated tokens (0
// when none said): a pass must co-batch four in five of its items (the coverage gate), so a
// staggered pass needs that share of its answers long enough to meet the others.
std::int64_t short_answer_tokens(const core::ArmResults& arm_a) {
    std::vector<std::int64_t> tokens;
    for (const auto& [id, trial] : arm_a)
        if (trial.completion_tokens) tokens.push_back(*trial.completion_tokens);
    if (tokens.empty()) return 0;
    const auto fifth = static_cast<long>((tokens.size() - 1) / 5);
    std::nth_element(tokens.begin(), tokens.begin() + fifth, tokens.end());
    return tokens[static_cast<std::size_t>(fifth)];
}

}  // namespace

CellRunner::PassRun CellRunner::run_pass(ServerHandle& server,
                                         const std::vector<core::WorkItem>& items, int parallel,
                                         int pass, const std::string& of,
                                         core::CellEvidence& evidence, core::Timings& timings) {
    // A staggered pass sends each first request once the one before it decodes, which only a
    // streamed answer shows: a kind that cannot stream sends every pass together. How long the
    // answers are is what arm A generated, which the limit only bounds.
    const std::int64_t answer_tokens = short_answer_tokens(evidence.arm_a);
    const core::Arrivals schedule =
        options_.request.stream
            ? core::pass_schedule(options_.arrivals, options_.seed, pass, answer_tokens, parallel)
            : core::Arrivals::Together;
    if (pass == 1 && options_.request.stream && options_.arrivals == core::Arrivals::Mixed &&
        answer_tokens < core::min_staggered_tokens(parallel))
        progress_.note(core::field_ref(core::RequestField::Arrivals) +
                       " mixed: a fifth of arm A's answers are " + std::to_string(answer_tokens) +
                       " tokens or shorter, too short for all " + std::to_string(parallel) +
                       " requests of a staggered pass to decode together (that needs " +
                       std::to_string(core::min_staggered_tokens(parallel)) +
                       "), so every pass is sent together");
    const bool staggered = schedule == core::Arrivals::Staggered;
    const std::string label = "arm C pass " + std::to_string(pass) + "/" + of + " (" +
                              std::to_string(parallel) +
                              (staggered ? " at once, staggered)" : " at once)");
    auto c =
        run_arm(server, items, "C", pass, core::pass_order(items.size(), options_.seed, pass - 1),
                parallel, label, 0, staggered);
    evidence.c_schedules.push_back(schedule);
    // The step counters are read over the span the pass kept N requests in flight: the workers'
    // start and the last few requests finishing alone are no evidence either way, and on a busy
    // machine they would weigh down the mean of an honest server.
    if (const auto span =
            core::full_concurrency_span(c.records, static_cast<std::size_t>(parallel)))
        if (const auto steady = core::busy_per_decode_between(c.server.decode_samples,
                                                              span->start_ns, span->end_ns))
            c.server.mean_busy_slots_per_decode = steady;
    c.server.decode_samples.clear();
    evidence.arm_c.push_back(score(std::move(c.records), items));
    timings.arm_c_s->push_back(c.seconds);
    evidence.server_c_passes.push_back(c.server);
    const auto this_pass = core::compare_arms(evidence.arm_a, evidence.arm_c.back(), "A", "C",
                                              options_.logit_drift_eps);
    progress_.arm_finished(
        this_pass.clean()
            ? "matches A (peak " +
                  (evidence_spec().has_slots()
                       ? std::to_string(c.server.peak_busy_slots) + " busy slots)"
                       : std::to_string(c.server.peak_requests_processing) + " running)")
            : std::to_string(this_pass.divergent_ids.size()) + " id(s) diverge from A");
    if (!c.gave_up.empty())
        progress_.notice(label + " given up: " + c.gave_up + "; no further passes are run");
    return {!this_pass.clean(), std::move(c.gave_up)};
}

CellRunner::PassesRun CellRunner::run_passes(ServerHandle& server,
                                             const std::vector<core::WorkItem>& items, int parallel,
                                             core::CellEvidence& evidence, core::Timings& timings) {
    timings.arm_c_s.emplace();
    PassesRun result;
    if (!options_.target_rate) {
        const std::string of = std::to_string(options_.passes);
        for (int t = 1; t <= options_.passes; ++t) {
            const PassRun pass = run_pass(server, items, parallel, t, of, evidence, timings);
            if (!pass.gave_up.empty()) {
                result.stopped_early = t < options_.passes;
                break;
            }
            if (options_.stop_on_red && pass.diverged && t < options_.passes) {
                result.stopped_early = true;
                progress_.note(core::field_ref(core::RequestField::StopOnRed) +
                               ": stopping after pass " + std::to_string(t) +
                               "; the verdict cannot change");
                break;
            }
        }
        return result;
    }

    core::PassPlanRecord plan;
    plan.target_rate = *options_.target_rate;
    plan.confidence = options_.confidence;
    plan.trials_needed = core::trials_needed(plan.target_rate, plan.confidence);
    plan.max_passes = options_.max_passes;
    const core::PassPlan limits{plan.trials_needed, plan.max_passes};
    // A pass counts at most one trial per item; A's measured time per request prices a pass.
    const std::size_t n_items = std::max<std::size_t>(items.size(), 1);
    const int min_passes =
        std::min(plan.max_passes, static_cast<int>((plan.trials_needed + n_items - 1) / n_items));
    std::string estimate;
    if (timings.arm_a_s && !items.empty()) {
        const double request_s = *timings.arm_a_s / static_cast<double>(items.size());
        const auto rounds = (items.size() + static_cast<std::size_t>(parallel) - 1) /
                            static_cast<std::size_t>(parallel);
        estimate =
            ", ~" +
            short_number(std::round(request_s * static_cast<double>(rounds) * min_passes * 10.0) /
                         10.0) +
            " s at arm A's " + short_number(std::round(request_s * 1000.0)) + " ms per request";
    }
    progress_.note(core::field_ref(core::RequestField::TargetRate) + " " +
                   short_number(plan.target_rate) + ": " + std::to_string(plan.trials_needed) +
                   " counted trials needed, at least " + std::to_string(min_passes) +
                   " and at most " + std::to_string(plan.max_passes) + " passes" + estimate);
    const std::string of = "<=" + std::to_string(plan.max_passes);
    std::optional<core::PlanEnd> end;
    bool gave_up = false;
    while (!end) {
        const int pass = plan.passes_used + 1;
        const PassRun run = run_pass(server, items, parallel, pass, of, evidence, timings);
        plan.passes_used = pass;
        // The verdict's own view of the pass (incomplete items left out), as the cert records it.
        const core::Verdict so_far = core::decide_verdict(evidence);
        plan.trials_counted = so_far.sensitivity.per_trial.n;
        const bool diverged = !so_far.ac.per_pass.back().clean();
        end = core::plan_end(limits, plan.passes_used, plan.trials_counted, diverged);
        // A pass given up on that did not diverge would be given up on again: the plan ends as
        // at its pass limit, short of the target.
        gave_up = !run.gave_up.empty();
        if (!end && gave_up) end = core::PlanEnd::MaxPasses;
        progress_.note(std::to_string(plan.trials_counted) + "/" +
                       std::to_string(plan.trials_needed) + " counted trials after pass " +
                       std::to_string(pass));
    }
    plan.ended = *end;
    plan.reached = plan.ended == core::PlanEnd::Reached;
    result.stopped_early =
        (plan.ended == core::PlanEnd::Divergence || gave_up) && plan.passes_used < plan.max_passes;
    if (plan.ended == core::PlanEnd::Divergence)
        progress_.note("invariant divergence in pass " + std::to_string(plan.passes_used) +
                       ": a RED needs no more samples");
    else if (!plan.reached && !gave_up)
        progress_.note(core::field_ref(core::RequestField::MaxPasses) + " " +
                       std::to_string(plan.max_passes) +
                       " reached before the target: the cert states the bound achieved");
    result.plan = plan;
    return result;
}

core::SerialBaseline CellRunner::serial_baseline(const SerialArms& serial) const {
    core::SerialBaseline b;
    b.source = serial.source;
    b.ts_utc = io::utc_timestamp();
    b.model = options_.model_alias;
    b.ctx = serial.ctx;
    b.kv_label = options_.kv_label;
    b.reps = options_.reps;
    b.rows = serial.rows;
    b.rows_sha256 = serial.rows_sha256;
    if (!options_.scorer_config.empty()) b.scorer_config = options_.scorer_config;
    b.run = run_record(serial);
    // A serial run has no passes, no pass order, stagger or arrivals; those settings are a cell's.
    b.run.passes.reset();
    b.run.stagger_ms.reset();
    b.run.arrivals.reset();
    b.run.stop_on_red.reset();
    b.run.order = "A and A' in work-set order";
    if (options_.model_file) b.model_file = *options_.model_file;
    if (serial.store_digest) b.model_file.store_digest = serial.store_digest;
    const core::Json* build_info = serial.props.find("build_info");
    b.server = {serial.server, serial.props, build_info ? *build_info : core::Json(), std::nullopt};
    if (const auto& kind = options_.kind)
        b.server.kind =
            core::ServerKindRecord{kind->name, kind->source, kind->sha256, kind->evidence, false};
    b.host = describe_host();
    if (options_.provenance) b.provenance = *options_.provenance;
    b.provenance.rows_sha256 = serial.rows_sha256;
    b.timings = serial.timings;
    if (options_.model_file)
        b.identity_problems = core::model_identity_problems(
            evidence_spec(), serial.props, core::Json::object(), 1, options_.model_file->path);
    b.answers = serial.arm_a;
    b.repeat = core::serial_repeat(serial.arm_a, serial.arm_a_prime, options_.logit_drift_eps);
    return b;
}

void CellRunner::check_prompts_fit(const std::vector<core::WorkItem>& items, std::int64_t ctx,
                                   const plugin_host::TokenCounter& count) const {
    for (const auto& item : items) {
        if (item.rep != 0) continue;  // a repeat sends the same prompt
        const auto prompt = count(item.prompt);
        if (!prompt) return;  // the kind counts nothing, or the count failed (the caller says)
        std::int64_t tokens = *prompt;
        if (!item.system.empty()) {
            const auto system = count(item.system);
            if (!system) return;
            tokens += *system;
        }
        if (tokens >= ctx)
            throw Error(ErrorCategory::Input,
                        "work-set item " + item.test_id + ": its prompt is " +
                            std::to_string(tokens) + " tokens (the server's tokenizer), and ctx " +
                            "is " + std::to_string(ctx) +
                            " per slot: it cannot fit, so the server would refuse it; shorten "
                            "it or raise " +
                            core::field_ref(core::RequestField::Ctx) + " (nothing was run)");
    }
}

CellOutcome CellRunner::given_up_cell(
    const SerialArms& serial, int parallel,
    const std::optional<core::BaselineCheckSummary>& baseline_check) {
    const core::GivenUpArm& given_up = *serial.given_up;
    core::CellEvidence evidence;
    evidence.arm_a = serial.arm_a;
    if (given_up.arm == "A'") evidence.arm_a_prime = serial.arm_a_prime;
    evidence.dispatch_n = parallel;
    evidence.evidence = evidence_spec();
    evidence.logprobs_requested = options_.request.logprobs > 0;
    evidence.streamed = options_.request.stream;
    evidence.confidence = options_.confidence;
    evidence.n_predict = options_.request.n_predict;
    evidence.logit_drift_eps = options_.logit_drift_eps;
    evidence.given_up = given_up;
    core::CertContext context =
        cell_context(serial, parallel, serial.source, serial.server.binary_sha256, baseline_check);
    // No N-slot server was launched: its record names the binary alone.
    core::ServerLaunch not_launched;
    not_launched.binary = serial.server.binary;
    const core::Json* build_info = serial.props.find("build_info");
    context.server = core::ServerRecord{serial.server,
                                        not_launched,
                                        serial.props,
                                        core::Json::object(),
                                        build_info ? *build_info : core::Json(),
                                        std::nullopt};
    if (const auto& kind = options_.kind)
        context.server->kind =
            core::ServerKindRecord{kind->name, kind->source, kind->sha256, kind->evidence, false};
    context.timings = serial.timings;
    return write_cell_cert(std::move(context), core::decide_verdict(evidence), serial.ctx,
                           parallel);
}

CellOutcome CellRunner::run_cell(const SerialArms& serial, int parallel,
                                 const std::optional<core::BaselineCheckSummary>& baseline_check) {
    if (parallel < 1)
        usage_error(core::field_ref(core::RequestField::Parallels) + " must be at least 1");
    if (serial.given_up) return given_up_cell(serial, parallel, baseline_check);
    const auto& items = serial.items;
    core::Timings timings = serial.timings;
    core::CellEvidence evidence;
    evidence.arm_a = serial.arm_a;
    evidence.arm_a_prime = serial.arm_a_prime;

    progress_.note("launching the " + std::to_string(parallel) + "-slot server (ctx " +
                   std::to_string(serial.ctx) + " per slot)");
    auto start = clock::now();
    auto server = launcher_.launch(parallel, serial.ctx * parallel, core::PromptCache::Off);
    silence_ = {};
    timings.launch_n_s = seconds_since(start);
    const core::ServerLaunch server_n = server->describe();
    const core::Json props_n = fetch_props(*server);
    const bool reports_mock = serial.reports_mock || props_n.bool_or("bi_mock", false);
    warm_up(*server, items, std::to_string(parallel) + "-slot server");

    evidence.dispatch_n = parallel;
    evidence.evidence = evidence_spec();
    // Judged on what the cert keeps of each answer, so that a replay finds the same.
    if (options_.model_file)
        evidence.identity_problems =
            core::model_identity_problems(evidence.evidence, serial.props,
                                          http::trim_props(props_n, evidence.evidence.served_model),
                                          parallel, options_.model_file->path);
    if (const std::string& field = evidence.evidence.capacity_field; !field.empty())
        if (const core::Json* slots = props_n.find(field); slots && slots->is_int())
            evidence.reported_total_slots = slots->as_int();
    // Arm B pins each request to a slot only where the kind has slots to name.
    const int pins = options_.request.dialect.slot_field.empty() ? 0 : parallel;
    evidence.arm_b_pinned = pins > 0;
    evidence.logprobs_requested = options_.request.logprobs > 0;
    evidence.streamed = options_.request.stream;
    evidence.cache_witness = options_.request.dialect.cache_witness;
    if (options_.kind && options_.determinism) {
        core::DeterminismGate mode;
        mode.on = *options_.determinism;
        mode.how = options_.kind->determinism.describe();
        if (mode.on && options_.kind->determinism.reports())
            mode.status = "GET " + options_.kind->determinism.status_path + " " +
                          options_.kind->determinism.status_field;
        if (serial.mode) mode.reports.push_back(*serial.mode);
        if (auto n_slot = ask_mode(*server, "N-slot")) mode.reports.push_back(std::move(*n_slot));
        evidence.determinism = std::move(mode);
    }
    const std::string draft_flag =
        options_.kind && options_.run_labels.server_flags
            ? core::draft_launch_flag(options_.kind->flags, *options_.run_labels.server_flags)
            : std::string();
    if (!options_.request.dialect.draft_fields.empty() || !draft_flag.empty()) {
        evidence.draft_fields = options_.request.dialect.draft_fields;
        evidence.draft_launch_flag = draft_flag;
    }
    for (const auto& item : items)
        evidence.prompts[item.test_id] =
            item.system.empty() ? item.prompt : item.system + "\n\n" + item.prompt;
    auto b = run_arm(*server, items, "B", 0, identity_order(items.size()), 1,
                     "arm B (serial, " + std::to_string(parallel) + " slots)", pins);
    evidence.arm_b = score(std::move(b.records), items);
    evidence.server_b = b.server;
    timings.arm_b_s = b.seconds;
    const auto ab =
        core::compare_arms(evidence.arm_a, *evidence.arm_b, "A", "B", options_.logit_drift_eps);
    progress_.arm_finished(ab.clean()
                               ? "matches A"
                               : std::to_string(ab.divergent_ids.size()) + " id(s) differ from A");

    evidence.confidence = options_.confidence;
    evidence.n_predict = options_.request.n_predict;
    evidence.logit_drift_eps = options_.logit_drift_eps;
    const PassesRun passes = run_passes(*server, items, parallel, evidence, timings);
    start = clock::now();
    server->shutdown();
    timings.teardown_n_s = seconds_since(start);
    throw_if_interrupted();

    const auto source =
        launcher_.launches_real_binary() && !reports_mock ? core::Source::Live : core::Source::Mock;
    core::CertContext context =
        cell_context(serial, parallel, source, server_n.binary_sha256, baseline_check);
    context.stopped_early = passes.stopped_early;
    context.plan = passes.plan;
    const core::Json* build_info = serial.props.find("build_info");
    context.server = core::ServerRecord{serial.server,
                                        server_n,
                                        serial.props,
                                        http::trim_props(props_n, evidence.evidence.served_model),
                                        build_info ? *build_info : core::Json(),
                                        std::nullopt};
    if (const auto& kind = options_.kind)
        context.server->kind = core::ServerKindRecord{kind->name, kind->source, kind->sha256,
                                                      kind->evidence, pins > 0};
    context.cache_check = serial.cache_check;
    context.timings = timings;
    context.throughput = core::measure_throughput(evidence.arm_a, evidence.arm_b, evidence.arm_c);
    return write_cell_cert(std::move(context), core::decide_verdict(evidence), serial.ctx,
                           parallel);
}

core::CertContext CellRunner::cell_context(
    const SerialArms& serial, int parallel, core::Source source,
    const std::optional<std::string>& n_slot_sha256,
    const std::optional<core::BaselineCheckSummary>& baseline_check) const {
    core::CertContext context =
        configuration_context(options_, serial.ctx, parallel, source, n_slot_sha256);
    context.ts_utc = io::utc_timestamp();
    if (context.model_file && serial.store_digest)
        context.model_file->store_digest = serial.store_digest;
    context.host = describe_host();
    context.run = run_record(serial);
    context.provenance = options_.provenance;
    if (context.provenance) context.provenance->rows_sha256 = serial.rows_sha256;
    context.baseline_check = baseline_check;
    return context;
}

CellOutcome CellRunner::write_cell_cert(core::CertContext context, core::Verdict verdict,
                                        std::int64_t ctx, int parallel) {
    CellOutcome outcome;
    outcome.verdict = std::move(verdict);
    if (context.timings) context.timings->total_s = seconds_since(origin_);
    outcome.cert = core::build_cert(context, outcome.verdict);
    outcome.cert_path = options_.out_dir + "/" +
                        core::cert_file_name(options_.model_alias, ctx, parallel,
                                             options_.determinism.value_or(false));
    throw_if_interrupted();
    outcome.cert.previous = archive_replaced_cert(outcome.cert_path, context.ts_utc, &outcome.cert);
    if (outcome.cert.previous)
        outcome.replaced =
            replaced_cert_note(outcome.cert_path, outcome.cert.previous->back(), outcome.cert);
    io::write_cert(outcome.cert_path, outcome.cert, options_.sign_key.get());
    outcome.promotable = core::check_promotable(outcome.cert, true).promotable;
    return outcome;
}

core::RunRecord CellRunner::run_record(const SerialArms& serial) const {
    core::RunRecord run = configured_run_record(options_);
    run.n_items = static_cast<std::int64_t>(serial.items.size());
    return run;
}

}  // namespace bi::driver
