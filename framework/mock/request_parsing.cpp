// Field checks for completion/tokenize bodies; wrong types are 400s, never crashes.
#include "request_parsing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "chat_template.hpp"
#include "core/error.hpp"
#include "echo_marker.hpp"
#include "vocabulary.hpp"

namespace bi::mock {

namespace {

using core::Json;

constexpr std::int64_t kMaxPredict = 1 << 30;
constexpr int kMaxProbs = 1000;
constexpr std::size_t kMaxLeakWords = 256;
constexpr std::int64_t kDefaultSeed = 4294967295LL;  // llama.cpp's "random seed" marker

[[noreturn]] void bad(const std::string& message) {
    throw Error(ErrorCategory::Input, message);
}

std::string quoted(std::string_view key) {
    return "\"" + std::string(key) + "\"";
}

// nullptr when absent or JSON null: llama-server treats both as "use the default".
const Json* field(const Json& body, std::string_view key) {
    const Json* value = body.find(key);
    return value && !value->is_null() ? value : nullptr;
}

std::optional<std::int64_t> int_field(const Json& body, std::string_view key, std::int64_t low,
                                      std::int64_t high) {
    const Json* value = field(body, key);
    if (!value) return std::nullopt;
    std::int64_t number = 0;
    if (value->is_int()) {
        number = value->as_int();
    } else if (value->is_double() && std::isfinite(value->as_double()) &&
               std::floor(value->as_double()) == value->as_double() &&
               std::fabs(value->as_double()) < 9.0e15) {
        number = static_cast<std::int64_t>(value->as_double());
    } else {
        bad(quoted(key) + " must be an integer");
    }
    if (number < low || number > high)
        bad(quoted(key) + " must be between " + std::to_string(low) + " and " +
            std::to_string(high));
    return number;
}

std::optional<double> number_field(const Json& body, std::string_view key) {
    const Json* value = field(body, key);
    if (!value) return std::nullopt;
    if (!value->is_number()) bad(quoted(key) + " must be a number");
    return value->as_double();
}

std::optional<bool> bool_field(const Json& body, std::string_view key) {
    const Json* value = field(body, key);
    if (!value) return std::nullopt;
    if (!value->is_bool()) bad(quoted(key) + " must be a boolean");
    return value->as_bool();
}

std::vector<std::string> stop_field(const Json& body, bool allow_string) {
    const Json* value = field(body, "stop");
    if (!value) return {};
    if (allow_string && value->is_string()) return {value->as_string()};
    if (!value->is_array()) bad("\"stop\" must be an array of strings");
    std::vector<std::string> stop;
    for (const auto& item : value->as_array()) {
        if (!item.is_string()) bad("\"stop\" must be an array of strings");
        stop.push_back(item.as_string());
    }
    return stop;
}

// The caller's own words (ASCII letters and digits, two or more), in order.
std::vector<std::string> words_of(std::string_view text) {
    std::vector<std::string> words;
    std::string word;
    auto flush = [&] {
        if (!word.empty() && words.size() < kMaxLeakWords) words.push_back(word);
        word.clear();
    };
    for (const char c : text) {
        const bool alnum =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (alnum)
            word += c;
        else
            flush();
    }
    flush();
    return words;
}

void set_text_prompt(CompletionRequest& request, std::string text, std::string_view user_text) {
    request.prompt = tokenize_prompt(text);
    request.prompt_words = words_of(user_text);
    request.echo = echo_pieces(user_text);
    request.prompt_text = std::move(text);
}

std::int32_t token_id_of(const Json& id) {
    if (!id.is_int() || id.as_int() < 0 || id.as_int() >= kVocabSize)
        bad("\"prompt\" token ids must be integers in 0.." + std::to_string(kVocabSize - 1));
    return static_cast<std::int32_t>(id.as_int());
}

// A prompt given as token ids is evaluated as sent (no BOS added, like llama-server).
void set_token_prompt(CompletionRequest& request, const Json::Array& ids) {
    for (const auto& id : ids) request.prompt.push_back(Piece{token_id_of(id), ""});
}

// llama-server's mixed prompt (tokenize_mixed): text first is tokenized as a string prompt is
// (BOS first), any other text without BOS, and the token ids taken as sent, all in order;
// ["text", 12, 34] is the text's tokens, then 12 and 34.
void set_mixed_prompt(CompletionRequest& request, const Json::Array& items) {
    std::string text;
    for (const auto& item : items) {
        if (!item.is_string()) {
            request.prompt.push_back(Piece{token_id_of(item), ""});
            continue;
        }
        auto pieces =
            request.prompt.empty() ? tokenize_prompt(item.as_string()) : tokenize(item.as_string());
        request.prompt.insert(request.prompt.end(), std::make_move_iterator(pieces.begin()),
                              std::make_move_iterator(pieces.end()));
        text += item.as_string();
    }
    request.prompt_words = words_of(text);
    request.echo = echo_pieces(text);
    request.prompt_text = std::move(text);
}

void parse_prompt(CompletionRequest& request, const Json& body) {
    const Json* prompt = field(body, "prompt");
    if (!prompt) bad("\"prompt\" must be provided");
    if (prompt->is_string()) {
        set_text_prompt(request, prompt->as_string(), prompt->as_string());
        return;
    }
    if (prompt->is_array() && prompt->size() == 1 && prompt->as_array()[0].is_string()) {
        const auto& text = prompt->as_array()[0].as_string();
        set_text_prompt(request, text, text);
        return;
    }
    if (prompt->is_array() && prompt->size() > 0) {
        const auto& items = prompt->as_array();
        const auto texts = std::count_if(items.begin(), items.end(),
                                         [](const Json& item) { return item.is_string(); });
        if (texts == static_cast<std::ptrdiff_t>(items.size()))
            bad("\"prompt\": the mock answers one prompt per request");
        if (texts == 0)
            set_token_prompt(request, items);
        else
            set_mixed_prompt(request, items);
        return;
    }
    bad("\"prompt\" must be a string or an array of token ids");
}

std::string message_content(const Json& message) {
    const Json* content = field(message, "content");
    if (!content) return {};
    if (content->is_string()) return content->as_string();
    if (!content->is_array()) bad("message \"content\" must be a string or an array of parts");
    std::string text;
    for (const auto& part : content->as_array()) {
        const Json* type = part.find("type");
        const Json* part_text = part.find("text");
        if (!type || !type->is_string() || type->as_string() != "text" || !part_text ||
            !part_text->is_string())
            bad("message content parts must be {\"type\": \"text\", \"text\": ...}");
        text += part_text->as_string();
    }
    return text;
}

void parse_messages(CompletionRequest& request, const Json& body) {
    const Json* messages = field(body, "messages");
    if (!messages || !messages->is_array() || messages->size() == 0)
        bad("\"messages\" must be a non-empty array");
    std::vector<ChatMessage> chat;
    std::string user_text;
    for (const auto& message : messages->as_array()) {
        if (!message.is_object()) bad("each message must be an object");
        const Json* role = field(message, "role");
        if (!role || !role->is_string()) bad("each message needs a string \"role\"");
        chat.push_back(ChatMessage{role->as_string(), message_content(message)});
        user_text += chat.back().content + "\n";
    }
    set_text_prompt(request, render_chat(chat), user_text);
}

float as_float(double value) {
    return static_cast<float>(value);
}

Json settings_of(const Json& body, const CompletionRequest& request) {
    Json settings = Json::object();
    settings.set("seed", int_field(body, "seed", std::numeric_limits<std::int64_t>::min(),
                                   std::numeric_limits<std::int64_t>::max())
                             .value_or(kDefaultSeed));
    // llama-server keeps sampler settings as floats; echo them with float precision.
    settings.set("temperature", as_float(number_field(body, "temperature").value_or(0.8)));
    settings.set("top_k", int_field(body, "top_k", -1000000, 1000000).value_or(40));
    settings.set("top_p", as_float(number_field(body, "top_p").value_or(0.95)));
    settings.set("min_p", as_float(number_field(body, "min_p").value_or(0.05)));
    settings.set("typical_p", 1.0);
    settings.set("repeat_penalty", 1.0);
    settings.set("repeat_last_n", 64);
    settings.set("n_predict", request.n_predict);
    settings.set("max_tokens", request.n_predict);
    settings.set("n_keep", int_field(body, "n_keep", -1, kMaxPredict).value_or(0));
    settings.set("n_probs", request.n_probs);
    settings.set("ignore_eos", bool_field(body, "ignore_eos").value_or(false));
    settings.set("stream", false);
    Json stop = Json::array();
    for (const auto& word : request.stop) stop.push_back(word);
    settings.set("stop", std::move(stop));
    settings.set("chat_format", "Content-only");
    settings.set("samplers", Json::Array{"penalties", "dry", "top_n_sigma", "top_k", "typ_p",
                                         "top_p", "min_p", "xtc", "temperature"});
    return settings;
}

int predict_limit(const Json& body, std::initializer_list<std::string_view> keys) {
    for (const auto key : keys)
        if (const auto value = int_field(body, key, -1000000, kMaxPredict))
            return static_cast<int>(*value);
    return -1;
}

void parse_logprob_request(CompletionRequest& request, const Json& body) {
    switch (request.endpoint) {
        case Endpoint::Completion:
            request.n_probs =
                static_cast<int>(int_field(body, "n_probs", 0, kMaxProbs).value_or(0));
            request.want_logprobs = request.n_probs > 0;
            break;
        case Endpoint::OaiCompletion: {
            // The legacy field is a count of alternatives; a boolean is tolerated too.
            const Json* logprobs = field(body, "logprobs");
            if (logprobs && logprobs->is_bool()) {
                request.want_logprobs = logprobs->as_bool();
                request.n_probs =
                    static_cast<int>(int_field(body, "top_logprobs", 0, kMaxProbs).value_or(0));
            } else if (logprobs) {
                request.n_probs = static_cast<int>(*int_field(body, "logprobs", 0, kMaxProbs));
                request.want_logprobs = true;
            }
            break;
        }
        case Endpoint::OaiChat: {
            request.want_logprobs = bool_field(body, "logprobs").value_or(false);
            const auto top = int_field(body, "top_logprobs", 0, kMaxProbs);
            if (top && !request.want_logprobs)
                bad("\"top_logprobs\" requires \"logprobs\" to be true");
            request.n_probs = static_cast<int>(top.value_or(0));
            break;
        }
    }
}

}  // namespace

CompletionRequest parse_completion_request(Endpoint endpoint, const Json& body) {
    if (!body.is_object()) bad("the request body must be a JSON object");
    CompletionRequest request;
    request.endpoint = endpoint;
    request.stream = bool_field(body, "stream").value_or(false);
    request.timings_per_token = bool_field(body, "timings_per_token").value_or(false);
    if (const Json* options = field(body, "stream_options")) {
        if (!options->is_object()) bad("\"stream_options\" must be an object");
        request.include_usage = bool_field(*options, "include_usage").value_or(false);
    }
    if (const auto n = int_field(body, "n", 0, 1000); n && *n != 1)
        bad("\"n\": the mock returns exactly one choice");
    if (endpoint == Endpoint::OaiChat) {
        parse_messages(request, body);
        request.n_predict =
            predict_limit(body, {"max_completion_tokens", "max_tokens", "n_predict"});
    } else {
        parse_prompt(request, body);
        request.n_predict = predict_limit(body, {"n_predict", "max_tokens"});
    }
    parse_logprob_request(request, body);
    request.return_tokens = bool_field(body, "return_tokens").value_or(false);
    request.cache_prompt = bool_field(body, "cache_prompt").value_or(false);
    request.stop = stop_field(body, endpoint != Endpoint::Completion);
    request.id_slot = static_cast<int>(int_field(body, "id_slot", -1, 1 << 20).value_or(-1));
    request.settings = settings_of(body, request);
    return request;
}

core::Json default_generation_settings() {
    CompletionRequest request;
    return settings_of(Json::object(), request);
}

TokenizeRequest parse_tokenize_request(const Json& body) {
    if (!body.is_object()) bad("the request body must be a JSON object");
    const Json* content = field(body, "content");
    if (!content || !content->is_string()) bad("\"content\" must be a string");
    TokenizeRequest request;
    request.content = content->as_string();
    request.add_special = bool_field(body, "add_special").value_or(false);
    request.with_pieces = bool_field(body, "with_pieces").value_or(false);
    return request;
}

}  // namespace bi::mock
