// A lexer close enough to Python's for comparing short functions, and the normalisations the
// E4 scorer accepts as "the same fix".
#include "code_compare.hpp"

#include <algorithm>

namespace spark {

namespace {

constexpr const char* kNewline = "NEWLINE";
constexpr const char* kIndent = "INDENT";
constexpr const char* kDedent = "DEDENT";
constexpr int kMaxRewriteRounds = 4;

constexpr std::string_view kOperators3[] = {"**=", "//=", ">>=", "<<=", "..."};
constexpr std::string_view kOperators2[] = {
    "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "//",
    "**", "->", ":=", "<<", ">>", "&=", "|=", "^=", "@="};

bool is_name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_name_char(char c) {
    return is_name_start(c) || (c >= '0' && c <= '9');
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_structural(const std::string& token) {
    return token == kNewline || token == kIndent || token == kDedent;
}

bool is_string_token(const std::string& token) {
    return token.size() >= 2 && token.front() == '"' && token.back() == '"';
}

class Lexer {
public:
    explicit Lexer(std::string_view code) : code_(code) {}

    CodeTokens run() {
        while (at_ < code_.size()) {
            if (line_start_ && depth_ == 0) {
                if (!start_line()) continue;
            }
            const char c = code_[at_];
            if (c == '\n') {
                end_line();
                ++at_;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
                ++at_;
            } else if (c == '#') {
                while (at_ < code_.size() && code_[at_] != '\n') ++at_;
            } else if (c == '\\' && at_ + 1 < code_.size() && code_[at_ + 1] == '\n') {
                at_ += 2;  // an explicit line continuation
            } else if (c == '"' || c == '\'') {
                string_token();
            } else if (is_name_start(c)) {
                const auto start = at_;
                while (at_ < code_.size() && is_name_char(code_[at_])) ++at_;
                emit(std::string(code_.substr(start, at_ - start)));
            } else if (is_digit(c) ||
                       (c == '.' && at_ + 1 < code_.size() && is_digit(code_[at_ + 1]))) {
                const auto start = at_;
                while (at_ < code_.size() && (is_name_char(code_[at_]) || code_[at_] == '.')) ++at_;
                emit(std::string(code_.substr(start, at_ - start)));
            } else {
                operator_token();
            }
        }
        end_line();
        while (indents_.size() > 1) {
            indents_.pop_back();
            tokens_.emplace_back(kDedent);
        }
        return std::move(tokens_);
    }

private:
    // Measures the indentation of a new logical line; false when the line is blank or only a
    // comment (it was skipped and the next line must be measured).
    bool start_line() {
        std::size_t width = 0;
        std::size_t i = at_;
        for (; i < code_.size() && (code_[i] == ' ' || code_[i] == '\t'); ++i)
            width = code_[i] == '\t' ? (width / 8 + 1) * 8 : width + 1;
        if (i >= code_.size()) {
            at_ = i;
            return false;
        }
        if (code_[i] == '\n' || code_[i] == '\r' || code_[i] == '#') {
            while (i < code_.size() && code_[i] != '\n') ++i;
            at_ = i < code_.size() ? i + 1 : i;
            return false;
        }
        if (width > indents_.back()) {
            indents_.push_back(width);
            tokens_.emplace_back(kIndent);
        }
        while (width < indents_.back() && indents_.size() > 1) {
            indents_.pop_back();
            tokens_.emplace_back(kDedent);
        }
        at_ = i;
        line_start_ = false;
        return true;
    }

    void end_line() {
        if (depth_ > 0) return;  // inside brackets a newline is only whitespace
        if (line_has_tokens_) tokens_.emplace_back(kNewline);
        line_has_tokens_ = false;
        line_start_ = true;
    }

    void emit(std::string token) {
        tokens_.push_back(std::move(token));
        line_has_tokens_ = true;
    }

    void string_token() {
        const char quote = code_[at_];
        const bool triple = code_.substr(at_, 3) == std::string(3, quote);
        const std::string close = triple ? std::string(3, quote) : std::string(1, quote);
        at_ += close.size();
        std::string content;
        while (at_ < code_.size()) {
            if (code_[at_] == '\\' && at_ + 1 < code_.size()) {
                content += code_.substr(at_, 2);
                at_ += 2;
                continue;
            }
            if (code_.substr(at_, close.size()) == close) {
                at_ += close.size();
                break;
            }
            if (!triple && code_[at_] == '\n') break;  // unterminated: stop at the line's end
            content += code_[at_++];
        }
        emit("\"" + content + "\"");
    }

    void operator_token() {
        for (const auto op : kOperators3)
            if (code_.substr(at_, 3) == op) {
                at_ += 3;
                emit(std::string(op));
                return;
            }
        for (const auto op : kOperators2)
            if (code_.substr(at_, 2) == op) {
                at_ += 2;
                emit(std::string(op));
                return;
            }
        const char c = code_[at_++];
        if (c == '(' || c == '[' || c == '{') ++depth_;
        if ((c == ')' || c == ']' || c == '}') && depth_ > 0) --depth_;
        emit(std::string(1, c));
    }

    std::string_view code_;
    std::size_t at_ = 0;
    int depth_ = 0;
    bool line_start_ = true;
    bool line_has_tokens_ = false;
    std::vector<std::size_t> indents_{0};
    CodeTokens tokens_;
};

CodeTokens bare_tokens(std::string_view snippet) {
    CodeTokens out;
    for (auto& token : tokenize_code(snippet))
        if (!is_structural(token)) out.push_back(std::move(token));
    return out;
}

bool statement_start(const CodeTokens& tokens, std::size_t i) {
    return i == 0 || is_structural(tokens[i - 1]);
}

void drop_docstrings(CodeTokens& tokens) {
    CodeTokens out;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (is_string_token(tokens[i]) && statement_start(tokens, i) && i + 1 < tokens.size() &&
            tokens[i + 1] == kNewline) {
            ++i;  // the string and its NEWLINE
            continue;
        }
        out.push_back(tokens[i]);
    }
    tokens = std::move(out);
}

// Operators that bind no tighter than `op` would need parentheses once "x op= r" is spelled
// "x = x op r"; the rewrite is only made when r has none of them at its top level.
bool safe_to_spell_out(const std::string& op, const CodeTokens& rhs) {
    static const CodeTokens kLoose = {
        "+",  "-",    "<",  ">",  "==", "!=", "<=", ">=", "and", "or",    "not",
        "if", "else", "in", "is", "|",  "&",  "^",  "<<", ">>",  "lambda"};
    static const CodeTokens kProducts = {"*", "/", "//", "%", "@"};
    const bool product = std::find(kProducts.begin(), kProducts.end(), op) != kProducts.end();
    int depth = 0;
    for (const auto& token : rhs) {
        if (token == "(" || token == "[" || token == "{") ++depth;
        if (token == ")" || token == "]" || token == "}") --depth;
        if (depth != 0) continue;
        if (std::find(kLoose.begin(), kLoose.end(), token) != kLoose.end()) return false;
        if (product && std::find(kProducts.begin(), kProducts.end(), token) != kProducts.end())
            return false;
    }
    return !rhs.empty();
}

void spell_out_augmented(CodeTokens& tokens) {
    static const CodeTokens kAugmented = {"+=", "-=", "*=", "/=", "//=", "%="};
    CodeTokens out;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const bool candidate =
            statement_start(tokens, i) && i + 1 < tokens.size() && is_name_start(tokens[i][0]) &&
            std::find(kAugmented.begin(), kAugmented.end(), tokens[i + 1]) != kAugmented.end();
        if (!candidate) {
            out.push_back(tokens[i]);
            continue;
        }
        std::size_t end = i + 2;
        while (end < tokens.size() && tokens[end] != kNewline) ++end;
        const CodeTokens rhs(tokens.begin() + static_cast<std::ptrdiff_t>(i + 2),
                             tokens.begin() + static_cast<std::ptrdiff_t>(end));
        const std::string op = tokens[i + 1].substr(0, tokens[i + 1].size() - 1);
        if (!safe_to_spell_out(op, rhs)) {
            out.push_back(tokens[i]);
            continue;
        }
        out.insert(out.end(), {tokens[i], "=", tokens[i], op});
        out.insert(out.end(), rhs.begin(), rhs.end());
        i = end - 1;
    }
    tokens = std::move(out);
}

// Returns whether anything was rewritten.
bool rewrite(CodeTokens& tokens, const CodeTokens& from, const CodeTokens& to) {
    if (from.empty() || from == to) return false;
    bool changed = false;
    CodeTokens out;
    for (std::size_t i = 0; i < tokens.size();) {
        if (i + from.size() <= tokens.size() &&
            std::equal(from.begin(), from.end(), tokens.begin() + static_cast<std::ptrdiff_t>(i))) {
            out.insert(out.end(), to.begin(), to.end());
            i += from.size();
            changed = true;
        } else {
            out.push_back(tokens[i++]);
        }
    }
    tokens = std::move(out);
    return changed;
}

}  // namespace

CodeTokens tokenize_code(std::string_view code) {
    return Lexer(code).run();
}

CodeTokens normalise_code(std::string_view code,
                          const std::vector<std::pair<std::string, std::string>>& equivalents) {
    CodeTokens tokens = tokenize_code(code);
    drop_docstrings(tokens);
    spell_out_augmented(tokens);
    // One rewrite can expose another ("range(1 + n)" -> "range(n + 1)" -> "range(1, n + 1)"),
    // so the list is applied again while it changes anything, a few rounds at most.
    for (int round = 0; round < kMaxRewriteRounds; ++round) {
        bool changed = false;
        for (const auto& [canonical, alternative] : equivalents)
            changed = rewrite(tokens, bare_tokens(alternative), bare_tokens(canonical)) || changed;
        if (!changed) break;
    }
    return tokens;
}

CodeTokens normalise_snippet(std::string_view snippet,
                             const std::vector<std::pair<std::string, std::string>>& equivalents) {
    CodeTokens tokens = normalise_code(snippet, equivalents);
    while (!tokens.empty() && (tokens.back() == kNewline || tokens.back() == kDedent))
        tokens.pop_back();
    if (!tokens.empty() && tokens.front() == kIndent) tokens.erase(tokens.begin());
    return tokens;
}

bool contains_tokens(const CodeTokens& haystack, const CodeTokens& needle) {
    if (needle.empty()) return true;
    return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end()) !=
           haystack.end();
}

}  // namespace spark
