// Fixed-point text of a number that never depends on the C locale's decimal point (to_chars).
#pragma once

#include <string>

namespace bi::core {

// "0.35" for (0.35, 2); throws bi::Error(Internal) only if the buffer could not hold it.
std::string format_fixed(double value, int digits);

}  // namespace bi::core
