#include "completion_client.hpp"

#include <string>

#include "core/error.hpp"
#include "core/json.hpp"
#include "core/trial.hpp"
#include "io/json_text.hpp"

namespace bi::http {

CompletionOutcome complete(HttpSession& session, const RequestOptions& options,
                           std::string_view system, std::string_view prompt, std::uint64_t seed) {
    const std::string body = build_request_body(options, system, prompt, seed);
    HttpOutcome sent = session.post_json(request_path(options), body);
    CompletionOutcome outcome;
    if (!sent.ok()) {
        outcome.failure = std::move(sent.failure);
    } else {
        outcome = parse_completion(options.endpoint, sent.response.body, options.dialect.slot_field,
                                   options.dialect.cache_witness, options.dialect.draft_fields);
        if (outcome.failure) outcome.failure->http_status = sent.response.status;
    }
    outcome.retries = sent.retries;
    return outcome;
}

StreamedCompletion complete_streamed(HttpSession& session, const RequestOptions& options,
                                     std::string_view system, std::string_view prompt,
                                     std::uint64_t seed, const StreamLimits& limits,
                                     const std::function<void()>& on_first_token) {
    RequestOptions streamed = options;
    streamed.stream = true;
    const std::string body = build_request_body(streamed, system, prompt, seed);
    CompletionStream stream(options.endpoint, options.dialect.slot_field, limits.max_chunks,
                            options.dialect.cache_witness, options.dialect.draft_fields);
    SseReader reader;
    std::vector<SseEvent> events;
    StreamedCompletion done;
    bool decoding = false;  // on_first_token was called
    done.sent = std::chrono::steady_clock::now();
    HttpOutcome sent = session.post_stream(
        request_path(options), body,
        [&](std::string_view bytes, std::chrono::steady_clock::time_point arrival) {
            events.clear();
            reader.feed(bytes, arrival, events);
            for (const auto& event : events) stream.add(event);
            if (on_first_token && !decoding && !stream.trace().chunks.empty()) {
                decoding = true;
                on_first_token();
            }
        },
        limits.max_gap);
    done.outcome.retries = sent.retries;
    done.trace = stream.trace();
    if (!sent.ok()) {
        done.outcome.failure = std::move(sent.failure);
    } else if (!sent.response.streamed) {
        done.outcome.failure =
            Failure{core::FailureMode::BadResponse,
                    "asked to stream, the server answered " +
                        (sent.response.content_type.empty() ? std::string("without a content type")
                                                            : sent.response.content_type)};
    } else {
        const int retries = done.outcome.retries;
        done.outcome = stream.finish(reader.pending());
        done.outcome.retries = retries;
    }
    if (done.outcome.failure && done.outcome.failure->http_status == 0)
        done.outcome.failure->http_status = sent.response.status;
    return done;
}

TokenCountOutcome tokenize(HttpSession& session, std::string_view text, const std::string& path) {
    core::Json request = core::Json::object();
    request.set("content", text);
    HttpOutcome sent = session.post_json(path, io::to_json_text(request));
    TokenCountOutcome outcome;
    if (!sent.ok()) {
        outcome.failure = std::move(sent.failure);
        return outcome;
    }
    constexpr auto bad = core::FailureMode::BadResponse;
    try {
        const core::Json root = io::parse_json(sent.response.body, path + " response");
        const core::Json* tokens = root.find("tokens");
        if (!tokens || !tokens->is_array())
            outcome.failure = Failure{bad, path + " response has no \"tokens\" array"};
        else
            outcome.count = static_cast<std::int64_t>(tokens->size());
    } catch (const Error& e) {
        outcome.failure = Failure{bad, e.what()};
    }
    return outcome;
}

DetokenizeOutcome detokenize(HttpSession& session, const std::vector<std::int64_t>& ids,
                             const std::string& path) {
    core::Json::Array tokens;
    for (const auto id : ids) tokens.emplace_back(id);
    core::Json request = core::Json::object();
    request.set("tokens", core::Json(std::move(tokens)));
    HttpOutcome sent = session.post_json(path, io::to_json_text(request));
    DetokenizeOutcome outcome;
    if (!sent.ok()) {
        outcome.failure = std::move(sent.failure);
        return outcome;
    }
    try {
        const core::Json root = io::parse_json(sent.response.body, path + " response");
        const core::Json* content = root.find("content");
        if (!content || !content->is_string())
            outcome.failure =
                Failure{core::FailureMode::BadResponse, path + " response has no \"content\" text"};
        else
            outcome.content = content->as_string();
    } catch (const Error& e) {
        outcome.failure = Failure{core::FailureMode::BadResponse, e.what()};
    }
    return outcome;
}

}  // namespace bi::http
