#include "completion_request.hpp"

#include <algorithm>

#include "core/json.hpp"
#include "io/json_text.hpp"

namespace bi::http {

namespace {

constexpr std::uint64_t kRandomSeedSentinel = 0xFFFFFFFFULL;

core::Json chat_body(const RequestOptions& options, std::string_view system,
                     std::string_view prompt) {
    core::Json messages = core::Json::array();
    if (!system.empty())
        messages.push_back(core::Json::Object{{"role", "system"}, {"content", system}});
    messages.push_back(core::Json::Object{{"role", "user"}, {"content", prompt}});
    core::Json body = core::Json::object();
    body.set("messages", std::move(messages));
    for (const auto& field : options.dialect.limit_fields) body.set(field, options.n_predict);
    if (options.logprobs > 0) {
        body.set("logprobs", true);
        body.set("top_logprobs", top_logprobs_asked(options));
    }
    return body;
}

core::Json completion_body(const RequestOptions& options, std::string_view system,
                           std::string_view prompt) {
    std::string text;
    if (!system.empty()) {
        text.append(system);
        text.append("\n\n");
    }
    text.append(prompt);
    core::Json body = core::Json::object();
    if (options.prompt_ids.empty()) {
        body.set("prompt", std::move(text));
    } else {
        core::Json::Array mixed{core::Json(std::move(text))};
        for (const auto id : options.prompt_ids) mixed.emplace_back(id);
        body.set("prompt", core::Json(std::move(mixed)));
    }
    body.set("n_predict", options.n_predict);
    body.set("return_tokens", true);
    if (options.logprobs > 0) body.set("n_probs", top_logprobs_asked(options));
    return body;
}

}  // namespace

int top_logprobs_asked(const RequestOptions& options) {
    if (options.logprobs <= 0) return 0;
    return std::max(options.logprobs, kMinTopLogprobs);
}

std::string_view request_path(EndpointKind endpoint) {
    switch (endpoint) {
        case EndpointKind::Chat:
            return "/v1/chat/completions";
        case EndpointKind::Completion:
            return "/completion";
    }
    return "";  // unreachable: the switch names every kind (-Werror=switch)
}

const std::string& request_path(const RequestOptions& options) {
    return options.endpoint == EndpointKind::Completion ? options.dialect.completion_path
                                                        : options.dialect.chat_path;
}

std::optional<EndpointKind> endpoint_of_path(std::string_view path) {
    for (const auto kind : {EndpointKind::Chat, EndpointKind::Completion})
        if (request_path(kind) == path) return kind;
    return std::nullopt;
}

std::uint32_t wire_seed(std::uint64_t seed) {
    return static_cast<std::uint32_t>(seed % kRandomSeedSentinel);
}

std::string build_request_body(const RequestOptions& options, std::string_view system,
                               std::string_view prompt, std::uint64_t seed) {
    core::Json body;
    switch (options.endpoint) {
        case EndpointKind::Chat:
            body = chat_body(options, system, prompt);
            break;
        case EndpointKind::Completion:
            body = completion_body(options, system, prompt);
            break;
    }
    if (options.dialect.fields.is_object())
        for (const auto& [name, value] : options.dialect.fields.as_object()) body.set(name, value);
    body.set("temperature", 0.0);
    body.set("seed", static_cast<std::int64_t>(wire_seed(options.fixed_seed.value_or(seed))));
    body.set("stream", options.stream);
    if (options.stream && options.dialect.stream_fields.is_object())
        for (const auto& [name, value] : options.dialect.stream_fields.as_object())
            body.set(name, value);
    if (options.id_slot && !options.dialect.slot_field.empty())
        body.set(options.dialect.slot_field, *options.id_slot);
    if (options.dialect.model_field) body.set("model", options.model);
    return io::to_json_text(body);
}

}  // namespace bi::http
