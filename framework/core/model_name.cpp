#include "model_name.hpp"

#include <algorithm>

namespace bi::core {

namespace {

bool ascii_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool kept_in_file_name(char c) {
    return ascii_alnum(c) || c == '.' || c == '_' || c == '-' || c == '+';
}

}  // namespace

std::string model_name_problem(std::string_view model) {
    const auto plain_char = [](char c) { return kept_in_file_name(c) || c == '/' || c == ':'; };
    const bool plain = !model.empty() && model.size() <= kMaxModelName && model.front() != '.' &&
                       model.front() != '/' && model.find("..") == std::string_view::npos &&
                       std::all_of(model.begin(), model.end(), plain_char);
    if (plain) return "";
    return "not a plain model name (letters, digits and . _ - + / :, not starting with . or /, "
           "no '..', at most " +
           std::to_string(kMaxModelName) + " characters)";
}

std::string model_file_stem(std::string_view model) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string stem;
    stem.reserve(model.size());
    for (const char c : model) {
        if (kept_in_file_name(c)) {
            stem += c;
            continue;
        }
        const auto byte = static_cast<unsigned char>(c);
        stem += '~';
        stem += kHex[byte >> 4];
        stem += kHex[byte & 0x0F];
    }
    return stem;
}

}  // namespace bi::core
