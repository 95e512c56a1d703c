// IEEE 754 binary32 -> binary16 conversion, done on the bits so it is the same everywhere.
#pragma once

#include <cstdint>

namespace bi::gguf {

// Round-to-nearest-even, like a conforming FPU: overflow gives +-inf, tiny values become
// subnormals or signed zero, NaN stays NaN (quiet, sign kept).
std::uint16_t float_to_half(float value);

}  // namespace bi::gguf
