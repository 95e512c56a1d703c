// Opt-in echo for end-to-end tests of real scorers: a user prompt holding a line
// "ECHO: <text>" makes the completion <text>, then EOS, so a scorer sees a known right answer.
// Prompts without the marker behave exactly as before; co-batching divergence still applies.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "token_function.hpp"
#include "tokenizer.hpp"

namespace bi::mock {

inline constexpr std::string_view kEchoMarker = "ECHO: ";

// The text of the first line starting with kEchoMarker, unescaped ("\n" is a newline, "\\" a
// backslash, any other backslash stays as it is); nullopt when there is none or it is empty.
std::optional<std::string> find_echo_text(std::string_view user_text);

// The echoed text as the tokens the mock will generate.
std::vector<Piece> echo_pieces(std::string_view user_text);

// The token at an echoed position: `produced` (what the token function chose) when a
// divergence mode replaced the base token, else the echo piece with produced's logprobs.
GeneratedToken echo_token(GeneratedToken produced, const GeneratedToken& base, const Piece& echo);

}  // namespace bi::mock
