#include "completion_response.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "core/error.hpp"
#include "core/json.hpp"
#include "core/trial.hpp"
#include "io/json_text.hpp"

namespace bi::http {

namespace {

using core::Json;

struct BadResponse : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A member that is absent or null reads as absent; any other value must be of the asked type.
const Json* optional_member(const Json& object, std::string_view key, Json::Type type,
                            std::string_view where) {
    const Json* value = object.find(key);
    if (!value || value->is_null()) return nullptr;
    const bool matches = type == Json::Type::Double ? value->is_number() : value->type() == type;
    if (!matches)
        throw BadResponse(std::string(where) + "." + std::string(key) + " is " +
                          core::type_name(value->type()) + ", expected " + core::type_name(type));
    return value;
}

const Json& required_member(const Json& object, std::string_view key, Json::Type type,
                            std::string_view where) {
    const Json* value = optional_member(object, key, type, where);
    if (!value) throw BadResponse(std::string(where) + "." + std::string(key) + " is missing");
    return *value;
}

std::optional<std::int64_t> optional_int(const Json& object, std::string_view key,
                                         std::string_view where) {
    const Json* value = optional_member(object, key, Json::Type::Int, where);
    if (!value) return std::nullopt;
    return value->as_int();
}

std::vector<std::int64_t> int_array(const Json& array, std::string_view where) {
    std::vector<std::int64_t> out;
    out.reserve(array.size());
    for (const Json& item : array.as_array()) {
        if (!item.is_int()) throw BadResponse(std::string(where) + " holds a non-integer");
        out.push_back(item.as_int());
    }
    return out;
}

// One entry's top_logprobs: the best kKeptAlternatives, most likely first.
std::vector<core::TokenAlternative> read_alternatives(const Json& list, std::string_view where) {
    std::vector<core::TokenAlternative> out;
    for (const Json& item : list.as_array()) {
        if (!item.is_object()) throw BadResponse(std::string(where) + " holds a non-object");
        core::TokenAlternative alternative;
        alternative.id = optional_int(item, "id", where);
        if (const Json* text = optional_member(item, "token", Json::Type::String, where))
            alternative.text = text->as_string();
        alternative.logprob =
            required_member(item, "logprob", Json::Type::Double, where).as_double();
        out.push_back(std::move(alternative));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.logprob > b.logprob; });
    if (out.size() > core::kKeptAlternatives) out.resize(core::kKeptAlternatives);
    return out;
}

// Entries {id?, token?, logprob, top_logprobs?}: the chosen-token logprobs, and the ids and texts
// when every entry has one.
void read_probabilities(const Json& entries, std::string_view where, CompletionResult& result,
                        bool take_ids) {
    std::vector<double> logprobs;
    std::vector<std::int64_t> ids;
    std::vector<std::string> texts;
    std::vector<std::vector<core::TokenAlternative>> alternatives;
    bool any_alternatives = false;
    const std::string top_where = std::string(where) + "[].top_logprobs";
    for (const Json& entry : entries.as_array()) {
        if (!entry.is_object()) throw BadResponse(std::string(where) + " holds a non-object");
        logprobs.push_back(
            required_member(entry, "logprob", Json::Type::Double, where).as_double());
        if (auto id = optional_int(entry, "id", where)) ids.push_back(*id);
        if (const Json* text = optional_member(entry, "token", Json::Type::String, where))
            texts.push_back(text->as_string());
        alternatives.emplace_back();
        if (const Json* top = optional_member(entry, "top_logprobs", Json::Type::Array, where)) {
            alternatives.back() = read_alternatives(*top, top_where);
            any_alternatives = any_alternatives || !alternatives.back().empty();
        }
    }
    if (!ids.empty() && ids.size() != logprobs.size())
        throw BadResponse(std::string(where) + ": some entries lack an id");
    if (texts.size() == logprobs.size()) result.token_texts = std::move(texts);
    if (any_alternatives) result.top_alternatives = std::move(alternatives);
    result.token_logprobs = std::move(logprobs);
    if (take_ids && ids.size() == result.token_logprobs->size()) result.token_ids = std::move(ids);
}

void read_timings(const Json& root, CompletionResult& result, bool need_prompt_tokens,
                  bool need_completion_tokens) {
    const Json* timings = optional_member(root, "timings", Json::Type::Object, "response");
    if (!timings) return;
    if (const Json* tps =
            optional_member(*timings, "predicted_per_second", Json::Type::Double, "timings"))
        result.tokens_per_second = tps->as_double();
    if (need_prompt_tokens) {
        auto prompt_n = optional_int(*timings, "prompt_n", "timings");
        auto cache_n = optional_int(*timings, "cache_n", "timings");
        std::int64_t sum = 0;
        if (prompt_n && cache_n && __builtin_add_overflow(*prompt_n, *cache_n, &sum))
            throw BadResponse("timings.prompt_n + timings.cache_n is beyond a 64-bit count");
        if (prompt_n && cache_n) result.prompt_tokens = sum;
    }
    if (need_completion_tokens) {
        if (auto predicted_n = optional_int(*timings, "predicted_n", "timings"))
            result.completion_tokens = *predicted_n;
    }
}

// The calls as generated: each call's "id" is made up by the server, not by the model.
Json generated_tool_calls(const Json& calls) {
    if (calls.size() == 0) return Json();
    Json out = calls;
    for (Json& call : out.as_array()) {
        if (!call.is_object())
            throw BadResponse("choices[0].message.tool_calls holds a non-object");
        call.erase("id");
    }
    return out;
}

void read_message(const Json& message, CompletionResult& result) {
    const Json* content = message.find("content");
    if (!content) throw BadResponse("choices[0].message.content is missing");
    if (content->is_string())
        result.content = content->as_string();
    else if (!content->is_null())
        throw BadResponse(std::string("choices[0].message.content is ") +
                          core::type_name(content->type()) + ", expected string");
    if (const Json* reasoning =
            optional_member(message, "reasoning_content", Json::Type::String, "choices[0].message"))
        result.reasoning_content = reasoning->as_string();
    if (const Json* calls =
            optional_member(message, "tool_calls", Json::Type::Array, "choices[0].message"))
        result.tool_calls = generated_tool_calls(*calls);
}

void count_from_ids(CompletionResult& result) {
    if (!result.completion_tokens && result.token_ids)
        result.completion_tokens = static_cast<std::int64_t>(result.token_ids->size());
}

CompletionResult parse_chat(const Json& root, std::string_view slot_field) {
    CompletionResult result;
    const Json& choices = required_member(root, "choices", Json::Type::Array, "response");
    if (choices.size() == 0) throw BadResponse("response.choices is empty");
    const Json& choice = choices.as_array().front();
    if (!choice.is_object()) throw BadResponse("response.choices[0] is not an object");
    if (const Json* message =
            optional_member(choice, "message", Json::Type::Object, "choices[0]")) {
        read_message(*message, result);
    } else if (const Json* text =
                   optional_member(choice, "text", Json::Type::String, "choices[0]")) {
        result.content = text->as_string();  // the /v1/completions shape
    } else {
        throw BadResponse("choices[0] has neither message.content nor text");
    }
    if (const Json* reason =
            optional_member(choice, "finish_reason", Json::Type::String, "choices[0]"))
        result.finish_reason = reason->as_string();
    if (const Json* logprobs =
            optional_member(choice, "logprobs", Json::Type::Object, "choices[0]")) {
        if (const Json* entries =
                optional_member(*logprobs, "content", Json::Type::Array, "choices[0].logprobs"))
            read_probabilities(*entries, "choices[0].logprobs.content", result, true);
    }
    if (const Json* usage = optional_member(root, "usage", Json::Type::Object, "response")) {
        result.prompt_tokens = optional_int(*usage, "prompt_tokens", "usage");
        result.completion_tokens = optional_int(*usage, "completion_tokens", "usage");
    }
    if (!slot_field.empty()) result.id_slot = optional_int(root, slot_field, "response");
    read_timings(root, result, !result.prompt_tokens, !result.completion_tokens);
    count_from_ids(result);
    return result;
}

CompletionResult parse_plain(const Json& root, std::string_view slot_field) {
    CompletionResult result;
    result.content = required_member(root, "content", Json::Type::String, "response").as_string();
    const auto predicted = optional_int(root, "tokens_predicted", "response");
    if (const Json* probs =
            optional_member(root, "completion_probabilities", Json::Type::Array, "response"))
        read_probabilities(*probs, "completion_probabilities", result, true);
    // llama-server always sends "tokens", empty unless return_tokens was honoured; an empty list
    // is taken as the generated ids only when nothing was generated.
    if (const Json* tokens = optional_member(root, "tokens", Json::Type::Array, "response")) {
        auto ids = int_array(*tokens, "tokens");
        if (!ids.empty() || (predicted && *predicted == 0)) result.token_ids = std::move(ids);
    }
    result.prompt_tokens = optional_int(root, "tokens_evaluated", "response");
    result.completion_tokens = predicted;
    if (const Json* stop = optional_member(root, "stop_type", Json::Type::String, "response"))
        result.finish_reason = stop->as_string();
    if (!slot_field.empty()) result.id_slot = optional_int(root, slot_field, "response");
    read_timings(root, result, !result.prompt_tokens, !predicted);
    count_from_ids(result);
    return result;
}

// The count at a dotted path ("usage.prompt_tokens_details.cached_tokens"): absent when a
// segment is missing or null; a count that is present must be a non-negative integer (of
// `what`, for the message).
std::optional<std::int64_t> count_at(const Json& root, const std::string& dotted,
                                     const char* what = "prompt tokens") {
    const Json* node = root.find_path(dotted);
    if (!node) return std::nullopt;
    if (!node->is_int() || node->as_int() < 0)
        throw BadResponse(dotted + " is " +
                          (node->is_int() ? "negative" : core::type_name(node->type())) +
                          ", expected a count of " + what);
    return node->as_int();
}

// The kind's cache witness, as the answer states it: the first cached-tokens field present,
// else the first evaluated-tokens field present.
void read_cache_witness(const Json& root, const core::CacheWitness& witness,
                        CompletionResult& result) {
    for (const auto& field : witness.cached_tokens)
        if ((result.prompt_cached = count_at(root, field))) return;
    for (const auto& field : witness.evaluated_tokens)
        if ((result.prompt_evaluated = count_at(root, field))) return;
}

// The tokens the answer's decoding drafted, as the first of the kind's draft fields present
// states them.
void read_drafted(const Json& root, const std::vector<std::string>& draft_fields,
                  CompletionResult& result) {
    for (const auto& field : draft_fields)
        if ((result.drafted = count_at(root, field, "drafted tokens"))) return;
}

std::string server_error_note(const Json& root) {
    const Json* error = root.find("error");
    if (!error) return {};
    if (error->is_string()) return " (server error: " + error->as_string() + ")";
    if (error->is_object()) {
        const std::string message = error->string_or("message", "");
        if (!message.empty()) return " (server error: " + message + ")";
    }
    return {};
}

}  // namespace

CompletionOutcome parse_completion(EndpointKind endpoint, std::string_view body,
                                   std::string_view slot_field, const core::CacheWitness& witness,
                                   const std::vector<std::string>& draft_fields) {
    Json root;
    try {
        root = io::parse_json(body, "response");
    } catch (const Error& e) {
        CompletionOutcome outcome;
        outcome.failure = Failure{core::FailureMode::BadResponse, e.what()};
        return outcome;
    }
    return parse_completion_json(endpoint, root, slot_field, witness, draft_fields);
}

CompletionOutcome parse_completion_json(EndpointKind endpoint, const core::Json& root,
                                        std::string_view slot_field,
                                        const core::CacheWitness& witness,
                                        const std::vector<std::string>& draft_fields) {
    CompletionOutcome outcome;
    constexpr auto bad = core::FailureMode::BadResponse;
    if (!root.is_object()) {
        outcome.failure = Failure{
            bad, std::string("response is ") + core::type_name(root.type()) + ", expected object"};
        return outcome;
    }
    try {
        switch (endpoint) {
            case EndpointKind::Chat:
                outcome.result = parse_chat(root, slot_field);
                break;
            case EndpointKind::Completion:
                outcome.result = parse_plain(root, slot_field);
                break;
        }
        read_cache_witness(root, witness, outcome.result);
        read_drafted(root, draft_fields, outcome.result);
    } catch (const BadResponse& e) {
        outcome.failure = Failure{bad, e.what() + server_error_note(root)};
    } catch (const Error& e) {
        outcome.failure = Failure{bad, e.what()};
    }
    return outcome;
}

}  // namespace bi::http
