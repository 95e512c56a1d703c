#include "option_aliases.hpp"

#include <string_view>

#include "core/error.hpp"

namespace bi::cli {

namespace {

// The spelling `token` is, with its "=value" part when it has one.
bool spelt(std::string_view token, std::string_view spelling, std::string_view* value) {
    if (token == spelling) return true;
    if (token.size() > spelling.size() && token.substr(0, spelling.size()) == spelling &&
        token[spelling.size()] == '=') {
        *value = token.substr(spelling.size() + 1);
        return true;
    }
    return false;
}

const OptionAlias* alias_of(std::string_view token, const std::vector<OptionAlias>& aliases,
                            std::string_view* value, bool* has_value) {
    for (const auto& alias : aliases) {
        std::string_view rest;
        if (!spelt(token, alias.spelling, &rest)) continue;
        *has_value = token.size() != std::string_view(alias.spelling).size();
        *value = rest;
        return &alias;
    }
    return nullptr;
}

void remember_spelling(AliasLog& log, const std::string& option, const std::string& spelling) {
    for (auto& [canonical, typed] : log.spellings)
        if (canonical == option) {
            if (typed != spelling) typed.clear();
            return;
        }
    log.spellings.emplace_back(option, spelling);
}

bool option_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

// `text` with each whole-word `from` replaced by `to` ("--passes", never "--max-passes").
std::string replace_option(std::string text, const std::string& from, const std::string& to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
        const auto end = at + from.size();
        if ((at > 0 && option_char(text[at - 1])) ||
            (end < text.size() && option_char(text[end]))) {
            at = end;
            continue;
        }
        text.replace(at, from.size(), to);
        at += to.size();
    }
    return text;
}

}  // namespace

OptionAlias agreeing_option(const char* spelling, bool (*agrees)(std::string_view value),
                            const char* note, const char* refusal) {
    OptionAlias alias{spelling, ""};
    alias.agrees = agrees;
    alias.note = note;
    alias.refusal = refusal;
    return alias;
}

std::string as_typed(const std::string& message, const AliasLog& log) {
    std::string out = message;
    for (const auto& [option, typed] : log.spellings)
        if (!typed.empty()) out = replace_option(out, option, typed);
    return out;
}

ArgvCopy::ArgvCopy(std::vector<std::string> tokens) : tokens_(std::move(tokens)) {
    for (auto& token : tokens_) pointers_.push_back(token.data());
    pointers_.push_back(nullptr);
}

bool has_option(int argc, char** argv, const std::string& spelling) {
    for (int i = 1; i < argc; ++i) {
        const std::string_view token = argv[i];
        if (token == "--") return false;
        std::string_view value;
        if (spelt(token, spelling, &value)) return true;
    }
    return false;
}

std::vector<std::string> apply_aliases(int argc, char** argv, AliasLog& log,
                                       const std::vector<OptionAlias>& aliases) {
    std::vector<std::string> out;
    std::vector<std::pair<std::string, std::string>> used;  // remembered once all are applied
    if (argc > 0) out.emplace_back(argv[0]);
    bool options_ended = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view token = argv[i];
        if (token == "--") options_ended = true;
        std::string_view value;
        bool has_value = false;
        const OptionAlias* alias =
            options_ended ? nullptr : alias_of(token, aliases, &value, &has_value);
        if (!alias) {
            out.emplace_back(token);
            continue;
        }
        const std::string spelling = alias->spelling;
        if (alias->agrees) {
            if (!has_value) {
                if (i + 1 >= argc) usage_error(spelling + " needs a value");
                value = argv[++i];
            }
            const std::string given = spelling + " " + std::string(value);
            if (!alias->agrees(value)) usage_error(given + ": " + alias->refusal);
            log.notes.push_back(given + ": " + alias->note);
            continue;
        }
        if (alias->refusal) usage_error(spelling + ": " + alias->refusal);
        if (alias->switch_too && !has_value && (i + 1 >= argc || argv[i + 1][0] == '-')) continue;
        if (!alias->repeatable && *alias->option && has_option(argc, argv, alias->option))
            usage_error(spelling + " is another name for " + alias->option + ": give one of them");
        if (!*alias->option) {
            if (has_value) usage_error(spelling + " takes no value");
            continue;
        }
        if (alias->value) {
            if (has_value) usage_error(spelling + " takes no value");
            out.emplace_back(std::string(alias->option) + "=" + alias->value);
            continue;
        }
        if (!has_value) {
            if (i + 1 >= argc) usage_error(spelling + " needs a value");
            value = argv[++i];
        }
        out.emplace_back(std::string(alias->option) + "=" + (alias->prefix ? alias->prefix : "") +
                         std::string(value));
        if (!alias->prefix) used.emplace_back(alias->option, spelling);
    }
    for (const auto& [option, spelling] : used)
        remember_spelling(log, option, has_option(argc, argv, option) ? std::string() : spelling);
    return out;
}

}  // namespace bi::cli
