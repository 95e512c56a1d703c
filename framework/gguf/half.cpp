// Bit-level float -> half: no FPU conversion instruction, so no dependence on the build's flags.
#include "half.hpp"

#include <cstring>

namespace bi::gguf {

namespace {

// Drops the low `shift` bits of `value`, rounding to nearest with ties to even. Carries out of the
// kept bits are intended: they step the half's exponent field, which is what rounding up means.
std::uint32_t shift_right_round_even(std::uint32_t value, unsigned shift) {
    const std::uint32_t kept = value >> shift;
    const std::uint32_t dropped = value & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1u);
    const bool round_up = dropped > halfway || (dropped == halfway && (kept & 1u) != 0);
    return kept + (round_up ? 1u : 0u);
}

}  // namespace

std::uint16_t float_to_half(float value) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
    const std::uint32_t exponent = (bits >> 23) & 0xffu;
    const std::uint32_t mantissa = bits & 0x7fffffu;

    if (exponent == 0xffu) {
        if (mantissa == 0) return static_cast<std::uint16_t>(sign | 0x7c00u);
        return static_cast<std::uint16_t>(sign | 0x7e00u | (mantissa >> 13));
    }
    // The half's biased exponent (bias 15) for this float (bias 127).
    const int half_exponent = static_cast<int>(exponent) - 127 + 15;
    if (half_exponent >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
    if (half_exponent <= 0) {
        // Subnormal half (or zero): float subnormals are far below its range and round to zero.
        if (exponent == 0) return sign;
        const unsigned shift = static_cast<unsigned>(14 - half_exponent);
        if (shift > 24) return sign;
        const std::uint32_t significand = mantissa | 0x800000u;
        return static_cast<std::uint16_t>(sign | shift_right_round_even(significand, shift));
    }
    const std::uint32_t packed = (static_cast<std::uint32_t>(half_exponent) << 23) | mantissa;
    // Rounding may carry into the exponent, up to 0x7c00 (= inf), which is the right overflow.
    return static_cast<std::uint16_t>(sign | shift_right_round_even(packed, 13));
}

}  // namespace bi::gguf
