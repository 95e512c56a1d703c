#include "fixed_text.hpp"

#include <charconv>
#include <system_error>

#include "error.hpp"

namespace bi::core {

std::string format_fixed(double value, int digits) {
    char buffer[64];
    const auto result =
        std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, digits);
    if (result.ec != std::errc()) throw Error(ErrorCategory::Internal, "cannot format a number");
    return std::string(buffer, result.ptr);
}

}  // namespace bi::core
