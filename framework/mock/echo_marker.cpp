// Finding and unescaping the echo marker, and splicing echoed pieces into generation.
#include "echo_marker.hpp"

#include <algorithm>

namespace bi::mock {

std::optional<std::string> find_echo_text(std::string_view user_text) {
    std::size_t line = 0;
    while (line <= user_text.size()) {
        const auto end = user_text.find('\n', line);
        const auto text = user_text.substr(
            line, end == std::string_view::npos ? std::string_view::npos : end - line);
        if (text.substr(0, kEchoMarker.size()) == kEchoMarker) {
            const auto raw = text.substr(kEchoMarker.size());
            std::string out;
            for (std::size_t i = 0; i < raw.size(); ++i) {
                if (raw[i] == '\\' && i + 1 < raw.size() &&
                    (raw[i + 1] == 'n' || raw[i + 1] == '\\')) {
                    out += raw[i + 1] == 'n' ? '\n' : '\\';
                    ++i;
                } else {
                    out += raw[i];
                }
            }
            if (out.empty()) return std::nullopt;
            return out;
        }
        if (end == std::string_view::npos) break;
        line = end + 1;
    }
    return std::nullopt;
}

std::vector<Piece> echo_pieces(std::string_view user_text) {
    const auto text = find_echo_text(user_text);
    return text ? tokenize(*text) : std::vector<Piece>{};
}

GeneratedToken echo_token(GeneratedToken produced, const GeneratedToken& base, const Piece& echo) {
    if (produced.chosen.id != base.chosen.id) return produced;
    produced.chosen.id = echo.id;
    produced.chosen.piece = echo.text;
    if (!produced.top.empty()) {
        // Keep the alternatives distinct from the echoed choice.
        produced.top.erase(std::remove_if(produced.top.begin() + 1, produced.top.end(),
                                          [&](const Candidate& c) { return c.id == echo.id; }),
                           produced.top.end());
        produced.top.front() = produced.chosen;
    }
    return produced;
}

}  // namespace bi::mock
