// Builds one prompt: an introduction, the notes (filler with the needle paragraph at its depth),
// the question and, when asked for, the mock's echo marker; and sizes it to a token target.
#pragma once

#include <bi/plugin.hpp>

#include <cstdint>
#include <string>

#include "filler_text.hpp"

namespace spark {

// Lines that delimit the notes; the filler and needle lie strictly between them.
inline constexpr const char* kNotesBegin = "=== notes ===";
inline constexpr const char* kNotesEnd = "=== end of notes ===";
// The opt-in marker line the mock server echoes (see framework/mock/echo_marker.hpp).
inline constexpr const char* kEchoMarker = "ECHO: ";

struct PromptPlan {
    std::string needle;
    double depth = 0.5;  // fraction of the filler sentences placed before the needle
    std::string question;
    std::string echo_text;  // empty: no echo marker line
};

// The prompt with the first `sentences` sentences of `filler` around the needle.
std::string assemble_prompt(const PromptPlan& plan, FillerStream& filler, std::size_t sentences);

// Counts tokens with the host's counter (the server's /tokenize) when there is one, else
// estimates one token per four bytes of UTF-8, rounded up. A counter that fails once is not
// asked again: the rest of the work-set is estimated, and a warning is logged.
class TokenMeter {
public:
    explicit TokenMeter(const bi::sdk::HostServices& host);
    std::int64_t count(const std::string& text);
    bool measured() const { return use_host_; }

private:
    const bi::sdk::HostServices& host_;
    bool use_host_;
};

struct SizedPrompt {
    std::string text;
    std::int64_t tokens = 0;    // as counted by the meter
    std::size_t sentences = 0;  // filler sentences used
};

// The prompt with the most filler whose count stays at or under `target_tokens`, found by
// bisection over the number of sentences and accepted early once within 2% under the target.
// When the needle and question alone exceed the target, the prompt has no filler at all.
SizedPrompt size_prompt(const PromptPlan& plan, FillerStream& filler, std::int64_t target_tokens,
                        TokenMeter& meter);

// The prompt with the least filler whose count is at least `min_tokens` (a bisection over the
// number of sentences); the needle and question alone when they reach it.
SizedPrompt size_prompt_at_least(const PromptPlan& plan, FillerStream& filler,
                                 std::int64_t min_tokens, TokenMeter& meter);

// The echo marker's escaping: a backslash becomes "\\" and a newline "\n", so a multi-line
// answer fits on the marker's single line.
std::string escape_echo(const std::string& text);

}  // namespace spark
