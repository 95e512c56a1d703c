// The text helpers every layer shares: joining words, and numbers written the same whatever
// the C or C++ locale says the decimal point is (std::to_chars, never printf or a stream).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace bi::core {

// "a, b, c" for ({"a", "b", "c"}, ", "); "" for none. A separator goes between every two
// words, empty ones included.
std::string join(const std::vector<std::string>& words, std::string_view separator = " ");
template <typename Integer, typename = std::enable_if_t<std::is_integral_v<Integer>>>
std::string join(const std::vector<Integer>& numbers, std::string_view separator = " ") {
    std::vector<std::string> words;
    words.reserve(numbers.size());
    for (const Integer n : numbers) words.push_back(std::to_string(n));
    return join(words, separator);
}

// The first `at_most` ids joined by ", ", then ", ... (N in all)" when there are more.
std::string join_ids_capped(const std::vector<std::string>& ids, std::size_t at_most = 8);

// printf's "%.*f": "0.35" for (0.35, 2), "2.67" for (2.675, 2) (the double just below).
// Throws bi::Error(Internal) only if the buffer could not hold it.
std::string format_fixed(double value, int digits);

// format_fixed of the ratio times 100, then "%": "12.5%" for (0.125, 1).
std::string format_percent(double ratio, int digits);

// printf's "%.*g", which is also what a stream writes by default (6 significant digits):
// "120" for 120.0, "0.5" for 0.5, "1e+06" for 1e6.
std::string format_general(double value, int significant_digits = 6);

}  // namespace bi::core
