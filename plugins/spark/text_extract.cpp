// Scanners over completion text. Byte-oriented: every delimiter searched for is ASCII or a whole
// UTF-8 sequence, so multi-byte characters pass through untouched.
#include "text_extract.hpp"

#include <charconv>

namespace spark {

namespace {

constexpr std::string_view kOpenQuote = "\xE2\x80\x9C";   // “
constexpr std::string_view kCloseQuote = "\xE2\x80\x9D";  // ”
constexpr std::string_view kBullet = "\xE2\x80\xA2";      // •
constexpr std::size_t kMaxQuoted = 80;
constexpr int kMaxJsonStarts = 256;  // bounds the work on brace-heavy, hostile output

struct TagPair {
    std::string_view open;
    std::string_view close;
};
constexpr TagPair kReasoningTags[] = {
    {"<think>", "</think>"}, {"<thinking>", "</thinking>"}, {"<reasoning>", "</reasoning>"}};

bool is_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_word_char(char c) {
    return is_alnum(c) || c == '_';
}
bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = text.find('\n', start);
        auto line = text.substr(
            start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return lines;
}

std::size_t indent_of(std::string_view line) {
    std::size_t width = 0;
    for (const char c : line) {
        if (c == ' ')
            ++width;
        else if (c == '\t')
            width += 4;
        else
            break;
    }
    return width;
}

// The line at `first` and the following lines that are blank or indented deeper than it.
std::string indented_block(const std::vector<std::string_view>& lines, std::size_t first) {
    const std::size_t base = indent_of(lines[first]);
    std::size_t last = first;
    for (std::size_t i = first + 1; i < lines.size(); ++i) {
        if (trim(lines[i]).empty()) continue;
        if (indent_of(lines[i]) <= base) break;
        last = i;
    }
    std::string out;
    for (std::size_t i = first; i <= last; ++i)
        out += std::string(lines[i]) + (i < last ? "\n" : "");
    return out;
}

bool starts_def(std::string_view line) {
    const auto t = trim(line);
    return t.substr(0, 4) == "def ";
}

}  // namespace

std::string_view trim(std::string_view text) {
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
    return text;
}

std::string lower_ascii(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

bool has_reasoning_tags(std::string_view text) {
    const std::string lowered = lower_ascii(text);
    for (const auto& tags : kReasoningTags)
        if (lowered.find(tags.open) != std::string::npos ||
            lowered.find(tags.close) != std::string::npos)
            return true;
    return false;
}

std::string strip_reasoning(std::string_view text) {
    const std::string lowered = lower_ascii(text);
    std::string out;
    std::size_t at = 0;
    while (at <= text.size()) {
        std::size_t open = std::string::npos, close = std::string::npos;
        const TagPair* open_tag = nullptr;
        const TagPair* close_tag = nullptr;
        for (const auto& tags : kReasoningTags) {
            const auto o = lowered.find(tags.open, at);
            if (o < open) {
                open = o;
                open_tag = &tags;
            }
            const auto c = lowered.find(tags.close, at);
            if (c < close) {
                close = c;
                close_tag = &tags;
            }
        }
        if (!open_tag && !close_tag) {
            out += text.substr(at);
            break;
        }
        if (close < open) {
            // A closing tag with no opening one: the template opened the block in the prompt,
            // so everything before it was reasoning.
            out.clear();
            at = close + close_tag->close.size();
            continue;
        }
        out += text.substr(at, open - at);
        std::size_t end = std::string::npos;
        std::size_t end_size = 0;
        for (const auto& tags : kReasoningTags) {
            const auto c = lowered.find(tags.close, open + open_tag->open.size());
            if (c < end) {
                end = c;
                end_size = tags.close.size();
            }
        }
        if (end == std::string::npos) break;  // unclosed: the rest is reasoning
        at = end + end_size;
    }
    return out;
}

std::optional<std::string> first_quoted_span(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        std::string_view close;
        std::size_t open_size = 1;
        if (text[i] == '"') {
            close = "\"";
        } else if (text.substr(i, kOpenQuote.size()) == kOpenQuote) {
            close = kCloseQuote;
            open_size = kOpenQuote.size();
        } else if (text[i] == '`') {
            if (text.substr(i, 3) == "```") {  // a fence, not an inline span
                i += 2;
                continue;
            }
            close = "`";
        } else {
            continue;
        }
        const auto end = text.find(close, i + open_size);
        if (end == std::string_view::npos) continue;
        const auto content = trim(text.substr(i + open_size, end - i - open_size));
        if (!content.empty() && content.size() <= kMaxQuoted) return std::string(content);
    }
    return std::nullopt;
}

std::optional<std::string> first_code_token(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
        if (!is_alnum(text[i])) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && (is_alnum(text[end]) || text[end] == '-')) ++end;
        auto token = text.substr(i, end - i);
        while (!token.empty() && token.back() == '-') token.remove_suffix(1);
        const bool glued = (i > 0 && text[i - 1] == '_') || (end < text.size() && text[end] == '_');
        bool has_digit = false;
        for (const char c : token) has_digit = has_digit || is_digit(c);
        if (!glued && has_digit && token.find('-') != std::string_view::npos &&
            token.find("--") == std::string_view::npos)
            return std::string(token);
        i = end;
    }
    return std::nullopt;
}

std::optional<Json> last_number(std::string_view text) {
    std::optional<Json> last;
    std::size_t i = 0;
    while (i < text.size()) {
        if (!is_digit(text[i])) {
            ++i;
            continue;
        }
        const std::size_t start = i;
        std::string digits;
        while (i < text.size() && is_digit(text[i])) digits += text[i++];
        // Thousands groups: a comma followed by exactly three digits.
        while (i + 3 < text.size() && text[i] == ',' && is_digit(text[i + 1]) &&
               is_digit(text[i + 2]) && is_digit(text[i + 3]) &&
               (i + 4 >= text.size() || !is_digit(text[i + 4]))) {
            digits.append(text.substr(i + 1, 3));
            i += 4;
        }
        std::string fraction;
        if (i + 1 < text.size() && text[i] == '.' && is_digit(text[i + 1])) {
            ++i;
            while (i < text.size() && is_digit(text[i])) fraction += text[i++];
        }
        const char before = start > 0 ? text[start - 1] : ' ';
        const char before2 = start > 1 ? text[start - 2] : ' ';
        const char after = i < text.size() ? text[i] : ' ';
        const char after2 = i + 1 < text.size() ? text[i + 1] : ' ';
        const bool glued = is_word_char(before) || is_word_char(after) || before == '.' ||
                           (before == '-' && is_alnum(before2)) ||
                           (after == '-' && is_alnum(after2));
        if (glued) continue;
        const bool negative = before == '-';
        if (fraction.empty()) {
            std::int64_t value = 0;
            const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), value);
            if (r.ec == std::errc()) {
                last = json_integer(negative ? -value : value);
                continue;
            }
        }
        const std::string literal = digits + (fraction.empty() ? "" : "." + fraction);
        double value = 0.0;
        std::from_chars(literal.data(), literal.data() + literal.size(), value);
        last = json_number(negative ? -value : value);
    }
    return last;
}

std::vector<std::string> bullets(std::string_view text) {
    std::vector<std::string> out;
    for (const auto line : lines_of(text)) {
        const auto t = trim(line);
        std::string_view rest;
        if (t.size() >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ') {
            rest = t.substr(2);
        } else if (t.substr(0, kBullet.size()) == kBullet) {
            rest = t.substr(kBullet.size());
        } else {
            std::size_t d = 0;
            while (d < t.size() && is_digit(t[d])) ++d;
            if (d == 0 || d > 2 || d + 1 >= t.size() || (t[d] != '.' && t[d] != ')') ||
                t[d + 1] != ' ')
                continue;
            rest = t.substr(d + 2);
        }
        const auto content = trim(rest);
        if (!content.empty()) out.emplace_back(content);
    }
    return out;
}

std::optional<Json> first_json_object(std::string_view text, bool* saw_brace) {
    if (saw_brace) *saw_brace = text.find('{') != std::string_view::npos;
    int starts = 0;
    for (auto open = text.find('{'); open != std::string_view::npos && starts < kMaxJsonStarts;
         open = text.find('{', open + 1), ++starts) {
        int depth = 0;
        bool in_string = false;
        bool escaped = false;
        for (std::size_t i = open; i < text.size(); ++i) {
            const char c = text[i];
            if (in_string) {
                if (escaped)
                    escaped = false;
                else if (c == '\\')
                    escaped = true;
                else if (c == '"')
                    in_string = false;
                continue;
            }
            if (c == '"')
                in_string = true;
            else if (c == '{' || c == '[')
                ++depth;
            else if (c == '}' || c == ']') {
                if (--depth > 0) continue;
                if (c == '}') {
                    auto parsed = parse_json(text.substr(open, i - open + 1));
                    if (parsed && parsed->IsObject()) return parsed;
                }
                break;
            }
        }
    }
    return std::nullopt;
}

std::optional<std::string> code_block(std::string_view text) {
    std::optional<std::string> first_fenced;
    for (auto fence = text.find("```"); fence != std::string_view::npos;) {
        const auto line_end = text.find('\n', fence);
        if (line_end == std::string_view::npos) break;
        const auto close = text.find("```", line_end + 1);
        const auto body =
            text.substr(line_end + 1, close == std::string_view::npos ? std::string_view::npos
                                                                      : close - line_end - 1);
        std::string content(body);
        while (!content.empty() && (content.back() == '\n' || content.back() == '\r'))
            content.pop_back();
        bool has_def = false;
        for (const auto line : lines_of(content)) has_def = has_def || starts_def(line);
        if (has_def) return content;
        if (!first_fenced && !trim(content).empty()) first_fenced = content;
        if (close == std::string_view::npos) break;
        fence = text.find("```", close + 3);
    }
    if (first_fenced) return first_fenced;
    const auto lines = lines_of(text);
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (starts_def(lines[i])) return indented_block(lines, i);
    return std::nullopt;
}

std::optional<std::string> function_named(std::string_view code, std::string_view name) {
    const auto lines = lines_of(code);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        auto t = trim(lines[i]);
        if (t.substr(0, 4) != "def ") continue;
        t = trim(t.substr(4));
        if (t.substr(0, name.size()) != name) continue;
        const auto rest = trim(t.substr(name.size()));
        if (!rest.empty() && rest.front() == '(') return indented_block(lines, i);
    }
    return std::nullopt;
}

std::size_t find_word(std::string_view text, std::string_view word) {
    if (word.empty()) return std::string_view::npos;
    const std::string hay = lower_ascii(text);
    const std::string needle = lower_ascii(word);
    for (auto at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) {
        const bool left = at == 0 || !is_word_char(hay[at - 1]);
        const auto end = at + needle.size();
        const bool right = end >= hay.size() || !is_word_char(hay[end]);
        if (left && right) return at;
    }
    return std::string_view::npos;
}

bool contains_word(std::string_view text, std::string_view word) {
    return find_word(text, word) != std::string_view::npos;
}

bool is_identifier(std::string_view text) {
    if (text.empty() || is_digit(text.front())) return false;
    for (const char c : text)
        if (!is_word_char(c)) return false;
    return true;
}

std::string strip_wrapping(std::string_view text) {
    constexpr std::string_view kWrapping = "\"'`*_";
    constexpr std::string_view kTrailing = "\"'`*_.,;:!?";
    text = trim(text);
    bool changed = true;
    while (changed && !text.empty()) {
        changed = false;
        if (kWrapping.find(text.front()) != std::string_view::npos) {
            text.remove_prefix(1);
            changed = true;
        } else if (text.substr(0, kOpenQuote.size()) == kOpenQuote) {
            text.remove_prefix(kOpenQuote.size());
            changed = true;
        }
        if (!text.empty() && kTrailing.find(text.back()) != std::string_view::npos) {
            text.remove_suffix(1);
            changed = true;
        } else if (text.size() >= kCloseQuote.size() &&
                   text.substr(text.size() - kCloseQuote.size()) == kCloseQuote) {
            text.remove_suffix(kCloseQuote.size());
            changed = true;
        }
        text = trim(text);
    }
    return std::string(text);
}

std::string normalise_exact(std::string_view raw) {
    const std::string text = strip_wrapping(raw);
    std::string out;
    bool space = false;
    for (const char c : text) {
        if (is_space(c)) {
            space = true;
            continue;
        }
        if (space && !out.empty()) out += ' ';
        space = false;
        out += c;
    }
    return lower_ascii(out);
}

}  // namespace spark
