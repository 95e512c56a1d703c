// Builds the three completion response shapes from one scheduler outcome.
#include "completion_bodies.hpp"

#include <cstdio>

#include "io/json_text.hpp"

namespace bi::mock {

namespace {

using core::Json;

Json bytes_of(const std::string& piece) {
    Json bytes = Json::array();
    for (const char c : piece) bytes.push_back(static_cast<int>(static_cast<unsigned char>(c)));
    return bytes;
}

Json candidate_json(const Candidate& candidate) {
    return Json::Object{{"id", candidate.id},
                        {"token", candidate.piece},
                        {"bytes", bytes_of(candidate.piece)},
                        {"logprob", candidate.logprob}};
}

Json logprob_list(const CompletionOutcome& outcome) {
    Json list = Json::array();
    for (const auto& token : outcome.tokens) list.push_back(logprob_entry(token));
    return list;
}

// Rates are left at 0 when no time elapsed: infinities are not JSON.
double per_second(double count, double ms) {
    return ms > 0.0 ? count * 1000.0 / ms : 0.0;
}
double per_token(double count, double ms) {
    return count > 0.0 ? ms / count : 0.0;
}

std::string finish_reason(const CompletionOutcome& outcome) {
    return outcome.stop_type == "limit" ? "length" : "stop";
}

Json usage_of(const CompletionOutcome& outcome) {
    const auto predicted = static_cast<std::int64_t>(outcome.tokens.size());
    return Json::Object{
        {"completion_tokens", predicted},
        {"prompt_tokens", outcome.n_prompt},
        {"total_tokens", predicted + outcome.n_prompt},
        {"prompt_tokens_details", Json::Object{{"cached_tokens", outcome.n_cached}}}};
}

std::string completion_id(const CompletionOutcome& outcome) {
    char id[40];
    std::snprintf(id, sizeof id, "chatcmpl-bimock%017lld", static_cast<long long>(outcome.id_task));
    return id;
}

Json oai_envelope(const char* object, const CompletionOutcome& outcome, const ReplyContext& context,
                  Json choice) {
    return Json::Object{{"choices", Json::Array{std::move(choice)}},
                        {"created", context.created},
                        {"model", context.model},
                        {"system_fingerprint", context.build_info},
                        {"object", object},
                        {"usage", usage_of(outcome)},
                        {"id", completion_id(outcome)},
                        {"id_slot", outcome.id_slot},
                        {"timings", timings_of(outcome)}};
}

std::string prompt_echo(const CompletionRequest& request) {
    std::string text;
    for (const auto& piece : request.prompt) text += piece.text;
    return text;
}

}  // namespace

Json logprob_entry(const GeneratedToken& token) {
    Json entry = candidate_json(token.chosen);
    Json top = Json::array();
    for (const auto& candidate : token.top) top.push_back(candidate_json(candidate));
    entry.set("top_logprobs", std::move(top));
    return entry;
}

Json timings_of(const CompletionOutcome& outcome) {
    const int evaluated = outcome.n_prompt - outcome.n_cached;
    const auto prompt_n = static_cast<double>(evaluated);
    const auto predicted_n = static_cast<double>(outcome.tokens.size());
    return Json::Object{
        {"cache_n", outcome.n_cached},
        {"prompt_n", evaluated},
        {"prompt_ms", outcome.prompt_ms},
        {"prompt_per_token_ms", per_token(prompt_n, outcome.prompt_ms)},
        {"prompt_per_second", per_second(prompt_n, outcome.prompt_ms)},
        {"predicted_n", static_cast<std::int64_t>(outcome.tokens.size())},
        {"predicted_ms", outcome.predicted_ms},
        {"predicted_per_token_ms", per_token(predicted_n, outcome.predicted_ms)},
        {"predicted_per_second", per_second(predicted_n, outcome.predicted_ms)},
    };
}

Json completion_body(const CompletionRequest& request, const CompletionOutcome& outcome,
                     const ReplyContext& context) {
    Json tokens = Json::array();
    if (request.return_tokens)
        for (const auto& token : outcome.tokens) tokens.push_back(token.chosen.id);
    const auto predicted = static_cast<std::int64_t>(outcome.tokens.size());
    Json body = Json::Object{
        {"index", 0},
        {"content", outcome.content},
        {"tokens", std::move(tokens)},
        {"id_slot", outcome.id_slot},
        {"stop", true},
        {"model", context.model},
        {"tokens_predicted", predicted},
        {"tokens_evaluated", outcome.n_prompt},
        {"generation_settings", request.settings},
        {"prompt", prompt_echo(request)},
        {"has_new_line", outcome.content.find('\n') != std::string::npos},
        {"truncated", false},
        {"stop_type", outcome.stop_type},
        {"stopping_word", outcome.stopping_word},
        {"tokens_cached", predicted + outcome.n_prompt},
        {"timings", timings_of(outcome)},
    };
    if (request.want_logprobs) body.set("completion_probabilities", logprob_list(outcome));
    return body;
}

Json oai_completion_body(const CompletionRequest& request, const CompletionOutcome& outcome,
                         const ReplyContext& context) {
    Json logprobs;  // null unless asked for, as llama-server sends it
    if (request.want_logprobs) logprobs = Json::Object{{"content", logprob_list(outcome)}};
    Json choice = Json::Object{{"text", outcome.content},
                               {"index", 0},
                               {"logprobs", std::move(logprobs)},
                               {"finish_reason", finish_reason(outcome)}};
    return oai_envelope("text_completion", outcome, context, std::move(choice));
}

Json chat_completion_body(const CompletionRequest& request, const CompletionOutcome& outcome,
                          const ReplyContext& context) {
    Json choice = Json::Object{
        {"finish_reason", finish_reason(outcome)},
        {"index", 0},
        {"message", Json::Object{{"role", "assistant"}, {"content", outcome.content}}}};
    if (request.want_logprobs)
        choice.set("logprobs", Json::Object{{"content", logprob_list(outcome)}});
    return oai_envelope("chat.completion", outcome, context, std::move(choice));
}

namespace {

// The timings a chunk carries: the tokens so far and the generation clock at the last of them.
Json chunk_timings(const CompletionOutcome& so_far, std::size_t token_index) {
    const auto n = static_cast<std::int64_t>(token_index + 1);
    const double ms = token_index < so_far.token_ms.size() ? so_far.token_ms[token_index] : 0.0;
    return Json::Object{{"cache_n", so_far.n_cached},
                        {"prompt_n", so_far.n_prompt - so_far.n_cached},
                        {"prompt_ms", so_far.prompt_ms},
                        {"predicted_n", n},
                        {"predicted_ms", ms},
                        {"predicted_per_token_ms", per_token(static_cast<double>(n), ms)},
                        {"predicted_per_second", per_second(static_cast<double>(n), ms)}};
}

Json chat_chunk(const CompletionOutcome& outcome, const ReplyContext& context, Json delta,
                Json finish) {
    Json choice = Json::Object{
        {"finish_reason", std::move(finish)}, {"index", 0}, {"delta", std::move(delta)}};
    return Json::Object{{"choices", Json::Array{std::move(choice)}},
                        {"created", context.created},
                        {"id", completion_id(outcome)},
                        {"model", context.model},
                        {"system_fingerprint", context.build_info},
                        {"object", "chat.completion.chunk"}};
}

}  // namespace

std::vector<std::string> stream_token_events(const CompletionRequest& request,
                                             const CompletionOutcome& so_far,
                                             std::size_t token_index, const ReplyContext& context) {
    const GeneratedToken& token = so_far.tokens[token_index];
    std::vector<std::string> events;
    if (request.endpoint == Endpoint::Completion) {
        Json chunk = Json::Object{{"index", 0},
                                  {"content", token.chosen.piece},
                                  {"tokens", Json::Array{Json(token.chosen.id)}},
                                  {"stop", false},
                                  {"id_slot", so_far.id_slot},
                                  {"tokens_predicted", static_cast<std::int64_t>(token_index + 1)},
                                  {"tokens_evaluated", so_far.n_prompt}};
        if (request.timings_per_token) chunk.set("timings", chunk_timings(so_far, token_index));
        if (request.want_logprobs)
            chunk.set("completion_probabilities", Json::Array{logprob_entry(token)});
        events.push_back(io::to_json_text(chunk));
        return events;
    }
    if (token_index == 0 && request.endpoint == Endpoint::OaiChat)
        events.push_back(io::to_json_text(chat_chunk(
            so_far, context, Json::Object{{"role", "assistant"}, {"content", Json()}}, Json())));
    Json chunk;
    if (request.endpoint == Endpoint::OaiChat) {
        chunk = chat_chunk(so_far, context, Json::Object{{"content", token.chosen.piece}}, Json());
    } else {
        chunk = oai_envelope("text_completion", so_far, context,
                             Json::Object{{"text", token.chosen.piece},
                                          {"index", 0},
                                          {"logprobs", Json()},
                                          {"finish_reason", Json()}});
        chunk.erase("usage");
    }
    Json& choice = chunk["choices"].as_array().front();
    if (request.want_logprobs)
        choice.set("logprobs", Json::Object{{"content", Json::Array{logprob_entry(token)}}});
    chunk.erase("timings");
    if (request.timings_per_token) chunk.set("timings", chunk_timings(so_far, token_index));
    events.push_back(io::to_json_text(chunk));
    return events;
}

std::vector<std::string> stream_final_events(const CompletionRequest& request,
                                             const CompletionOutcome& outcome,
                                             const ReplyContext& context) {
    if (request.endpoint == Endpoint::Completion) {
        CompletionRequest streamed = request;
        streamed.want_logprobs = false;  // sent with each token
        streamed.return_tokens = false;
        Json body = completion_body(streamed, outcome, context);
        body.set("content", "");
        return {io::to_json_text(body)};
    }
    Json last = chat_chunk(outcome, context, Json::object(), finish_reason(outcome));
    if (request.endpoint == Endpoint::OaiCompletion) {
        last = oai_envelope("text_completion", outcome, context,
                            Json::Object{{"text", ""},
                                         {"index", 0},
                                         {"logprobs", Json()},
                                         {"finish_reason", finish_reason(outcome)}});
        last.erase("usage");
    }
    last.set("timings", timings_of(outcome));
    std::vector<std::string> events{io::to_json_text(last)};
    if (request.include_usage) {
        Json usage = chat_chunk(outcome, context, Json::object(), Json());
        usage.set("choices", Json::array());
        usage.set("usage", usage_of(outcome));
        events.push_back(io::to_json_text(usage));
    }
    events.push_back("[DONE]");
    return events;
}

}  // namespace bi::mock
