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
        outcome =
            parse_completion(options.endpoint, sent.response.body, options.dialect.slot_field);
    }
    outcome.retries = sent.retries;
    return outcome;
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

}  // namespace bi::http
