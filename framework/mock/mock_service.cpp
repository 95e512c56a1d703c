// Routing, the loading/crash/hang knobs, and the completion path through the scheduler.
#include "mock_service.hpp"

#include <ctime>

#include "completion_bodies.hpp"
#include "core/error.hpp"
#include "info_bodies.hpp"
#include "io/json_text.hpp"

#ifndef BI_MOCK_VERSION
#define BI_MOCK_VERSION "0"
#endif

namespace bi::mock {

namespace {

using core::Json;

constexpr const char* kInvalidRequest = "invalid_request_error";

// A dead server's answer: the connection closes without a reply.
HttpReply dropped_connection() {
    HttpReply reply;
    reply.status = 0;
    reply.drop_connection = true;
    return reply;
}

std::int64_t unix_now() {
    return static_cast<std::int64_t>(std::time(nullptr));
}

std::string path_of(const std::string& target) {
    return target.substr(0, target.find('?'));
}

// io::parse_json bounds nesting itself, so a hostile body cannot exhaust a handler's stack.
Json parse_body(const std::string& body) {
    return io::parse_json(body, "request body");
}

bool is_one_of(const std::string& path, std::initializer_list<const char*> paths) {
    for (const char* candidate : paths)
        if (path == candidate) return true;
    return false;
}

}  // namespace

HttpReply json_reply(int status, const Json& body) {
    HttpReply reply;
    reply.status = status;
    reply.body = io::to_json_text(body);
    return reply;
}

HttpReply error_reply(int status, const std::string& message, const std::string& type) {
    return json_reply(status, error_body(status, message, type));
}

MockService::MockService(MockConfig config, std::function<void()> stop_listening)
    : config_(std::move(config)),
      stop_listening_(std::move(stop_listening)),
      build_info_(std::string("bi-mock-") + BI_MOCK_VERSION),
      scheduler_(scheduler_options(config_)),
      started_(std::chrono::steady_clock::now()) {}

MockService::~MockService() {
    stop();
}

void MockService::start() {
    started_ = std::chrono::steady_clock::now();
    scheduler_.start();
}

void MockService::stop() {
    {
        std::lock_guard<std::mutex> lock(stop_mutex_);
        stopping_ = true;
    }
    stop_signal_.notify_all();
    scheduler_.stop();
}

bool MockService::loading() const {
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started_;
    return elapsed.count() < config_.loading_seconds;
}

void MockService::crash() {
    if (crashed_.exchange(true)) return;
    if (config_.on_crash) config_.on_crash();  // bi-mock-server exits here
    stop();
    if (stop_listening_) stop_listening_();
}

void MockService::wait_for_stop() {
    std::unique_lock<std::mutex> lock(stop_mutex_);
    stop_signal_.wait(lock, [this] { return stopping_; });
}

HttpReply MockService::handle(const HttpCall& call) noexcept {
    try {
        if (crashed_) return dropped_connection();
        return route(call);
    } catch (const Error& e) {
        if (e.category() == ErrorCategory::Input || e.category() == ErrorCategory::Json)
            return error_reply(400, e.what(), kInvalidRequest);
        return error_reply(500, e.what(), "server_error");
    } catch (const std::exception& e) {
        return error_reply(500, e.what(), "server_error");
    } catch (...) {
        return error_reply(500, "unknown error", "server_error");
    }
}

HttpReply MockService::route(const HttpCall& call) {
    const std::string path = path_of(call.target);
    if (loading()) return error_reply(503, "Loading model", "unavailable_error");
    if (call.method == "GET") {
        if (is_one_of(path, {"/health", "/v1/health"})) return json_reply(200, health_body());
        if (is_one_of(path, {"/v1/models", "/models"}))
            return json_reply(200, models_body(config_, unix_now()));
        if (path == "/props") return json_reply(200, props_body(config_, build_info_));
        if (path == "/slots") {
            if (!config_.slots_endpoint)
                return error_reply(501, "This server does not support slots endpoint.",
                                   "not_supported_error");
            return json_reply(200, slots_body(scheduler_.slots()));
        }
        if (path == "/metrics") {
            if (!config_.metrics)
                return error_reply(501,
                                   "This server does not support metrics endpoint. Start it "
                                   "with `--metrics`",
                                   "not_supported_error");
            HttpReply reply;
            reply.content_type = "text/plain; version=0.0.4";
            reply.body = metrics_text(scheduler_.stats());
            return reply;
        }
    } else if (call.method == "POST") {
        if (path == "/tokenize") return tokenize_reply(call.body);
        if (is_one_of(path, {"/completion", "/completions"}))
            return complete(Endpoint::Completion, call.body);
        if (path == "/v1/completions") return complete(Endpoint::OaiCompletion, call.body);
        if (is_one_of(path, {"/v1/chat/completions", "/chat/completions"}))
            return complete(Endpoint::OaiChat, call.body);
    }
    return error_reply(404, "File Not Found", "not_found_error");
}

HttpReply MockService::tokenize_reply(const std::string& body) {
    const auto request = parse_tokenize_request(parse_body(body));
    const auto pieces =
        request.add_special ? tokenize_prompt(request.content) : tokenize(request.content);
    Json tokens = Json::array();
    for (const auto& piece : pieces) {
        if (request.with_pieces)
            tokens.push_back(Json::Object{{"id", piece.id}, {"piece", piece.text}});
        else
            tokens.push_back(piece.id);
    }
    return json_reply(200, Json::Object{{"tokens", std::move(tokens)}});
}

HttpReply MockService::stream_reply(const CompletionRequest& request,
                                    const Scheduler::Ticket& ticket, const ReplyContext& context) {
    HttpReply reply;
    reply.content_type = "text/event-stream";
    // The reader's state lives in the producer: the tokens already sent and whether it is over.
    struct State {
        std::size_t sent = 0;
        bool over = false;
    };
    auto state = std::make_shared<State>();
    reply.stream = [this, request, ticket, context, state](std::string& events) {
        if (state->over) return false;
        StreamProgress progress = scheduler_.next_progress(ticket, state->sent);
        const auto frame = [&events](const std::string& data) {
            events += "data: " + data + "\n\n";
        };
        if (progress.over && progress.outcome.cancelled) {
            frame(io::to_json_text(error_body(503, "the server is stopping", "unavailable_error")));
            state->over = true;
            return false;
        }
        // The outcome so far: what the token chunks count and time against.
        CompletionOutcome so_far = progress.outcome;
        // Token chunks index the task's whole token list: pad what came before with the count.
        so_far.tokens.resize(std::max(so_far.tokens.size(), state->sent + progress.tokens.size()));
        so_far.token_ms.resize(so_far.tokens.size());
        for (std::size_t i = 0; i < progress.tokens.size(); ++i) {
            so_far.tokens[state->sent + i] = progress.tokens[i];
            so_far.token_ms[state->sent + i] = progress.token_ms[i];
        }
        for (std::size_t i = 0; i < progress.tokens.size(); ++i)
            for (const auto& event : stream_token_events(request, so_far, state->sent + i, context))
                frame(event);
        state->sent += progress.tokens.size();
        if (!progress.over) return true;
        for (const auto& event : stream_final_events(request, progress.outcome, context))
            frame(event);
        state->over = true;
        return false;
    };
    return reply;
}

HttpReply MockService::complete(Endpoint endpoint, const std::string& body) {
    const auto request = parse_completion_request(endpoint, parse_body(body));
    const auto n_prompt = static_cast<int>(request.prompt.size());
    if (n_prompt > config_.n_ctx) {
        Json error = error_body(400,
                                "the request exceeds the available context size, try "
                                "increasing it",
                                "exceed_context_size_error");
        error["error"].set("n_prompt_tokens", n_prompt);
        error["error"].set("n_ctx", config_.n_ctx);
        return json_reply(400, error);
    }
    if (config_.crash_after >= 0 && completions_.fetch_add(1) >= config_.crash_after) {
        crash();
        return dropped_connection();
    }
    if (config_.hang) {
        wait_for_stop();
        if (crashed_) return dropped_connection();
        return error_reply(503, "the server is stopping", "unavailable_error");
    }

    CompletionJob job;
    job.prompt = request.prompt;
    job.prompt_words = request.prompt_words;
    job.echo = request.echo;
    job.n_predict = request.n_predict;
    job.n_probs = request.want_logprobs ? request.n_probs : 0;
    job.stop = request.stop;
    job.id_slot = request.id_slot;
    job.cache_prompt = request.cache_prompt;
    job.params = request.settings;
    const ReplyContext context{model_name(config_), build_info_, unix_now()};
    if (request.stream) return stream_reply(request, scheduler_.submit(std::move(job)), context);
    const CompletionOutcome outcome = scheduler_.run(std::move(job));
    if (outcome.cancelled) {
        if (crashed_) return dropped_connection();
        return error_reply(503, "the server is stopping", "unavailable_error");
    }

    switch (endpoint) {
        case Endpoint::Completion:
            return json_reply(200, completion_body(request, outcome, context));
        case Endpoint::OaiCompletion:
            return json_reply(200, oai_completion_body(request, outcome, context));
        case Endpoint::OaiChat:
            return json_reply(200, chat_completion_body(request, outcome, context));
    }
    return error_reply(500, "unknown endpoint", "server_error");
}

}  // namespace bi::mock
