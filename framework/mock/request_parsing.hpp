// Request bodies of the completion and tokenize endpoints, checked field by field. Every
// problem is a bi::Error(Input) whose message the server returns with status 400.
#pragma once

#include <string>
#include <vector>

#include "core/json.hpp"
#include "tokenizer.hpp"

namespace bi::mock {

enum class Endpoint { Completion, OaiCompletion, OaiChat };

struct CompletionRequest {
    Endpoint endpoint = Endpoint::Completion;
    std::string prompt_text;                // what is evaluated (chat: the rendered template)
    std::vector<Piece> prompt;              // BOS first
    std::vector<std::string> prompt_words;  // the caller's words, for the Contamination knob
    std::vector<Piece> echo;                // an "ECHO: " marker line's text (echo_marker.hpp)
    int n_predict = -1;                     // < 0: until the mock's EOS
    bool want_logprobs = false;             // report per-token logprobs
    int n_probs = 0;                        // alternatives per token
    bool return_tokens = false;             // /completion: echo generated ids in "tokens"
    bool cache_prompt =
        false;  // reuse the slot's cached prefix (absent: false, unlike llama-server)
    std::vector<std::string> stop;
    int id_slot = -1;                // the slot asked for ("id_slot"); -1: any free one
    bool stream = false;             // answer as server-sent events, one chunk per token
    bool timings_per_token = false;  // a stream's chunks carry timings (the generation clock)
    bool include_usage = false;      // a chat stream ends with a usage chunk
    core::Json settings;             // generation settings as llama-server echoes them
};

CompletionRequest parse_completion_request(Endpoint endpoint, const core::Json& body);

// The settings a request without sampler fields gets (/props default_generation_settings).
core::Json default_generation_settings();

struct TokenizeRequest {
    std::string content;
    bool add_special = false;
    bool with_pieces = false;
};

TokenizeRequest parse_tokenize_request(const core::Json& body);

}  // namespace bi::mock
