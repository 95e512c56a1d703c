#include "completion_stream.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "io/json_text.hpp"

namespace bi::http {

namespace {

using core::Json;

std::string count_text(std::int64_t n) {
    return std::to_string(n);
}

// The tool-call pieces of one delta merged into the calls so far: by "index", the first id, type
// and function name kept, argument text appended.
void merge_tool_calls(Json& calls, const Json& pieces) {
    for (const Json& piece : pieces.as_array()) {
        if (!piece.is_object())
            throw Error(ErrorCategory::Json, "a tool_calls piece is not an object");
        const std::int64_t index = piece.int_or("index", static_cast<std::int64_t>(calls.size()));
        if (index < 0 || index > static_cast<std::int64_t>(calls.size()))
            throw Error(ErrorCategory::Json,
                        "tool_calls index " + count_text(index) + " skips a call");
        if (index == static_cast<std::int64_t>(calls.size())) {
            Json call = Json::object();
            call.set("function", Json::object());
            calls.push_back(std::move(call));
        }
        Json& call = calls.as_array()[static_cast<std::size_t>(index)];
        for (const char* key : {"id", "type"})
            if (const Json* value = piece.find(key); value && value->is_string() && !call.find(key))
                call.set(key, *value);
        if (const Json* function = piece.find("function"); function && function->is_object()) {
            Json& merged = call["function"];
            if (const Json* name = function->find("name"); name && name->is_string())
                merged.set("name", merged.string_or("name", "") + name->as_string());
            if (const Json* arguments = function->find("arguments");
                arguments && arguments->is_string())
                merged.set("arguments", merged.string_or("arguments", "") + arguments->as_string());
        }
    }
}

}  // namespace

std::vector<double> chunk_times_ms(const StreamTrace& trace,
                                   std::chrono::steady_clock::time_point origin) {
    std::vector<double> arrival;
    arrival.reserve(trace.chunks.size());
    bool server_clock = !trace.chunks.empty();
    for (const auto& chunk : trace.chunks) {
        arrival.push_back(
            std::chrono::duration<double, std::milli>(chunk.arrival - origin).count());
        server_clock = server_clock && chunk.server_ms.has_value();
    }
    if (!server_clock) return arrival;
    double offset = arrival.front() - *trace.chunks.front().server_ms;
    for (std::size_t k = 0; k < arrival.size(); ++k)
        offset = std::min(offset, arrival[k] - *trace.chunks[k].server_ms);
    std::vector<double> made;
    made.reserve(arrival.size());
    for (const auto& chunk : trace.chunks) made.push_back(offset + *chunk.server_ms);
    return made;
}

CompletionStream::CompletionStream(EndpointKind endpoint, std::string slot_field,
                                   std::size_t max_chunks, core::CacheWitness witness,
                                   std::vector<std::string> draft_fields)
    : endpoint_(endpoint),
      slot_field_(std::move(slot_field)),
      witness_(std::move(witness)),
      draft_fields_(std::move(draft_fields)),
      max_chunks_(max_chunks) {}

void CompletionStream::fail(core::FailureMode mode, std::string message) {
    if (!failure_) failure_ = Failure{mode, "stream: " + std::move(message)};
}

void CompletionStream::add(const SseEvent& event) {
    if (failure_) return;
    if (++events_ > max_chunks_)
        return fail(core::FailureMode::BadResponse,
                    "more than " + std::to_string(max_chunks_) + " chunks");
    if (event.error_field) {
        std::string words = event.data;
        try {
            const Json error = io::parse_json(event.data, "error event");
            if (const Json* message = error.is_object() ? error.find("message") : nullptr;
                message && message->is_string())
                words = message->as_string();
        } catch (const Error&) {
            // not JSON: its text is the server's words
        }
        return fail(core::FailureMode::HttpError, "the server sent an error: " + words);
    }
    if (done_seen_) return fail(core::FailureMode::BadResponse, "a chunk after [DONE]");
    if (endpoint_ == EndpointKind::Chat && event.data == "[DONE]") {
        if (!final_seen_)
            return fail(core::FailureMode::BadResponse, "[DONE] before the final chunk");
        done_seen_ = true;
        return;
    }
    Json chunk;
    try {
        chunk = io::parse_json(event.data, "chunk " + std::to_string(events_));
    } catch (const Error& e) {
        return fail(core::FailureMode::BadResponse, e.what());
    }
    if (!chunk.is_object())
        return fail(core::FailureMode::BadResponse,
                    "chunk " + std::to_string(events_) + " is not a JSON object");
    if (const Json* error = chunk.find("error")) {
        std::string words =
            error->is_string() ? error->as_string() : error->string_or("message", "");
        if (words.empty()) words = io::to_json_text(*error);
        return fail(core::FailureMode::HttpError, "the server sent an error: " + words);
    }
    try {
        if (endpoint_ == EndpointKind::Completion)
            add_completion(chunk, event);
        else
            add_chat(chunk, event);
    } catch (const Error& e) {
        fail(core::FailureMode::BadResponse, "chunk " + std::to_string(events_) + ": " + e.what());
    }
}

void CompletionStream::add_timings(const Json& chunk, const SseEvent& event, bool carries_text) {
    const Json* timings = chunk.find("timings");
    std::optional<std::int64_t> predicted_n;
    std::optional<double> server_ms;
    if (timings && timings->is_object()) {
        timings_ = *timings;
        if (const Json* n = timings->find("predicted_n"); n && n->is_int())
            predicted_n = n->as_int();
        if (const Json* ms = timings->find("predicted_ms"); ms && ms->is_number())
            server_ms = ms->as_double();
    }
    std::int64_t tokens = carries_text ? 1 : 0;
    if (predicted_n) {
        const std::int64_t before = last_predicted_n_.value_or(0);
        if (*predicted_n <= before && carries_text)
            throw Error(ErrorCategory::Json, "timings.predicted_n " + count_text(*predicted_n) +
                                                 " did not advance from " + count_text(before) +
                                                 " (a repeated chunk?)");
        tokens = *predicted_n - before;
        last_predicted_n_ = predicted_n;
    }
    if (server_ms) {
        if (last_server_ms_ && *server_ms < *last_server_ms_)
            throw Error(ErrorCategory::Json, "timings.predicted_ms ran backwards");
        last_server_ms_ = server_ms;
    }
    if (tokens <= 0) return;
    streamed_tokens_ += tokens;
    trace_.chunks.push_back({event.arrival, tokens, server_ms});
}

void CompletionStream::add_completion(const Json& chunk, const SseEvent& event) {
    if (final_seen_) throw Error(ErrorCategory::Json, "a chunk after the final one");
    const Json* stop = chunk.find("stop");
    if (!stop || !stop->is_bool()) throw Error(ErrorCategory::Json, "\"stop\" is missing");
    if (const Json* slot = chunk.find(slot_field_); slot && slot->is_int())
        id_slot_ = slot->as_int();
    if (stop->as_bool()) {
        final_seen_ = true;
        final_ = chunk;
        const std::int64_t streamed = static_cast<std::int64_t>(token_ids_.size());
        if (const Json* predicted = chunk.find("tokens_predicted");
            predicted && predicted->is_int() && predicted->as_int() != streamed)
            throw Error(ErrorCategory::Json,
                        "the final chunk counts " + count_text(predicted->as_int()) +
                            " tokens predicted, " + count_text(streamed) + " were streamed");
        if (const Json* timings = chunk.find("timings"); timings && timings->is_object())
            timings_ = *timings;
        return;
    }
    content_ += chunk.string_or("content", "");
    const Json* tokens = chunk.find("tokens");
    const std::size_t before = token_ids_.size();
    if (tokens && tokens->is_array())
        for (const Json& id : tokens->as_array()) token_ids_.push_back(id);
    if (const Json* probs = chunk.find("completion_probabilities"); probs && probs->is_array())
        for (const Json& entry : probs->as_array()) probabilities_.push_back(entry);
    const auto carried = static_cast<std::int64_t>(token_ids_.size() - before);
    if (const Json* predicted = chunk.find("tokens_predicted");
        predicted && predicted->is_int() &&
        predicted->as_int() != static_cast<std::int64_t>(token_ids_.size()))
        throw Error(ErrorCategory::Json,
                    "tokens_predicted " + count_text(predicted->as_int()) + " after " +
                        count_text(static_cast<std::int64_t>(token_ids_.size())) +
                        " streamed tokens (a repeated or lost chunk?)");
    const std::int64_t before_tokens = streamed_tokens_;
    add_timings(chunk, event, carried > 0);
    // Without timings a chunk counts the ids it carries.
    if (!last_predicted_n_ && carried > 1) {
        trace_.chunks.back().tokens = carried;
        streamed_tokens_ = before_tokens + carried;
    }
}

void CompletionStream::add_chat(const Json& chunk, const SseEvent& event) {
    if (const Json* slot = chunk.find(slot_field_); slot && slot->is_int())
        id_slot_ = slot->as_int();
    const Json* choices = chunk.find("choices");
    if (!choices || !choices->is_array())
        throw Error(ErrorCategory::Json, "\"choices\" is missing");
    if (const Json* usage = chunk.find("usage"); usage && usage->is_object()) usage_ = *usage;
    if (choices->size() == 0) {  // the usage chunk, after the final one
        if (!final_seen_)
            throw Error(ErrorCategory::Json, "a chunk without choices before the final one");
        if (const Json* timings = chunk.find("timings"); timings && timings->is_object())
            timings_ = *timings;
        return;
    }
    if (final_seen_) throw Error(ErrorCategory::Json, "a chunk after the final one");
    const Json& choice = choices->as_array().front();
    bool carries_text = false;
    if (const Json* delta = choice.find("delta"); delta && delta->is_object()) {
        for (const auto& [key, target] :
             {std::pair<const char*, std::string*>{"content", &content_},
              std::pair<const char*, std::string*>{"reasoning_content", &reasoning_}})
            if (const Json* piece = delta->find(key);
                piece && piece->is_string() && !piece->as_string().empty()) {
                *target += piece->as_string();
                carries_text = true;
            }
        if (const Json* calls = delta->find("tool_calls");
            calls && calls->is_array() && calls->size() > 0) {
            merge_tool_calls(tool_calls_, *calls);
            carries_text = true;
        }
    } else if (const Json* text = choice.find("text"); text && text->is_string()) {
        text_dialect_ = true;
        content_ += text->as_string();
        carries_text = !text->as_string().empty();
    }
    if (const Json* logprobs = choice.find("logprobs"); logprobs && logprobs->is_object())
        if (const Json* entries = logprobs->find("content"); entries && entries->is_array())
            for (const Json& entry : entries->as_array()) {
                probabilities_.push_back(entry);
                carries_text = true;
            }
    add_timings(chunk, event, carries_text);
    if (const Json* reason = choice.find("finish_reason"); reason && reason->is_string()) {
        finish_reason_ = reason->as_string();
        final_seen_ = true;
    }
}

CompletionOutcome CompletionStream::finish(bool broke_off) const {
    CompletionOutcome outcome;
    if (failure_) {
        outcome.failure = failure_;
        return outcome;
    }
    const auto bad = [&outcome](std::string message) {
        outcome.failure = Failure{core::FailureMode::BadResponse, "stream: " + std::move(message)};
        return outcome;
    };
    if (broke_off) return bad("the connection ended in the middle of a chunk");
    if (!final_seen_) return bad("it ended before its final chunk");
    Json root = Json::object();
    if (endpoint_ == EndpointKind::Completion) {
        root = final_;
        root.set("content", content_);
        root.set("tokens", token_ids_);
        if (probabilities_.size() > 0) root.set("completion_probabilities", probabilities_);
    } else {
        Json choice = Json::object();
        if (text_dialect_) {
            choice.set("text", content_);
        } else {
            Json message = Json::object();
            message.set("content", content_);
            if (!reasoning_.empty()) message.set("reasoning_content", reasoning_);
            if (tool_calls_.size() > 0) message.set("tool_calls", tool_calls_);
            choice.set("message", std::move(message));
        }
        choice.set("finish_reason", finish_reason_);
        if (probabilities_.size() > 0) {
            Json logprobs = Json::object();
            logprobs.set("content", probabilities_);
            choice.set("logprobs", std::move(logprobs));
        }
        root.set("choices", Json::Array{std::move(choice)});
        if (!usage_.is_null()) root.set("usage", usage_);
        if (id_slot_) root.set(slot_field_, *id_slot_);
        const auto counted = usage_.is_object() && usage_.find("completion_tokens") &&
                                     usage_.find("completion_tokens")->is_int()
                                 ? std::optional(usage_.find("completion_tokens")->as_int())
                                 : std::nullopt;
        if (counted && last_predicted_n_ && *counted != *last_predicted_n_)
            return bad("usage.completion_tokens " + count_text(*counted) + " but " +
                       count_text(*last_predicted_n_) + " tokens were streamed");
        if (counted && probabilities_.size() > 0 &&
            *counted != static_cast<std::int64_t>(probabilities_.size()))
            return bad("usage.completion_tokens " + count_text(*counted) + " but " +
                       count_text(static_cast<std::int64_t>(probabilities_.size())) +
                       " logprob entries were streamed");
    }
    if (timings_.is_object()) root.set("timings", timings_);
    return parse_completion_json(endpoint_, root, slot_field_, witness_, draft_fields_);
}

}  // namespace bi::http
