#include "text.hpp"

#include <charconv>
#include <cstddef>
#include <system_error>

#include "error.hpp"

namespace bi::core {

namespace {

std::string formatted(double value, std::chars_format format, int precision) {
    char buffer[400];  // a fixed double has at most 309 integer digits
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, format, precision);
    if (result.ec != std::errc()) throw Error(ErrorCategory::Internal, "cannot format a number");
    return std::string(buffer, result.ptr);
}

}  // namespace

std::string join(const std::vector<std::string>& words, std::string_view separator) {
    std::string text;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i > 0) text += separator;
        text += words[i];
    }
    return text;
}

std::string join_ids_capped(const std::vector<std::string>& ids, std::size_t at_most) {
    if (ids.size() <= at_most) return join(ids, ", ");
    return join({ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(at_most)}, ", ") +
           ", ... (" + std::to_string(ids.size()) + " in all)";
}

std::string format_fixed(double value, int digits) {
    return formatted(value, std::chars_format::fixed, digits);
}

std::string format_percent(double ratio, int digits) {
    return format_fixed(ratio * 100.0, digits) + "%";
}

std::string format_general(double value, int significant_digits) {
    return formatted(value, std::chars_format::general, significant_digits);
}

}  // namespace bi::core
