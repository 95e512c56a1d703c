// float -> half: hand-checked vectors, then every pair of neighbouring halves probed at and
// around its midpoint against the tests' own decoder.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "gguf/half.hpp"
#include "gguf_reader.hpp"

using bi::gguf::float_to_half;
using bi::testing::decode_half;

namespace {

float from_bits(std::uint32_t bits) {
    float value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

std::uint32_t bits_of(float value) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

}  // namespace

TEST_CASE("half: exact values and signs", "[gguf][half]") {
    CHECK(float_to_half(0.0f) == 0x0000);
    CHECK(float_to_half(-0.0f) == 0x8000);
    CHECK(float_to_half(1.0f) == 0x3c00);
    CHECK(float_to_half(-2.0f) == 0xc000);
    CHECK(float_to_half(0.5f) == 0x3800);
    CHECK(float_to_half(65504.0f) == 0x7bff);                  // largest finite half
    CHECK(float_to_half(std::ldexp(1.0f, -14)) == 0x0400);     // smallest normal
    CHECK(float_to_half(std::ldexp(1.0f, -24)) == 0x0001);     // smallest subnormal
    CHECK(float_to_half(std::ldexp(1023.0f, -24)) == 0x03ff);  // largest subnormal
}

TEST_CASE("half: inexact values round to nearest", "[gguf][half]") {
    CHECK(float_to_half(0.1f) == 0x2e66);
    CHECK(float_to_half(1.0f / 3.0f) == 0x3555);
    CHECK(float_to_half(-3.14159265f) == 0xc248);
    CHECK(float_to_half(65519.0f) == 0x7bff);  // below the overflow midpoint
}

TEST_CASE("half: ties go to the even neighbour", "[gguf][half]") {
    CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);      // 1 + half ulp -> 1
    CHECK(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);  // -> the even 1 + 2 ulp
    CHECK(float_to_half(-(1.0f + std::ldexp(1.0f, -11))) == 0xbc00);
    CHECK(float_to_half(std::ldexp(1.0f, -25)) == 0x0000);     // half the smallest subnormal
    CHECK(float_to_half(std::ldexp(3.0f, -25)) == 0x0002);     // 1.5 subnormal ulps -> 2
    CHECK(float_to_half(std::ldexp(2047.0f, -25)) == 0x0400);  // carries into the normals
    CHECK(float_to_half(65520.0f) == 0x7c00);                  // the overflow midpoint -> inf
}

TEST_CASE("half: overflow, underflow, infinities and NaN", "[gguf][half]") {
    const float inf = std::numeric_limits<float>::infinity();
    CHECK(float_to_half(inf) == 0x7c00);
    CHECK(float_to_half(-inf) == 0xfc00);
    CHECK(float_to_half(1e6f) == 0x7c00);
    CHECK(float_to_half(-1e6f) == 0xfc00);
    CHECK(float_to_half(std::numeric_limits<float>::max()) == 0x7c00);
    CHECK(float_to_half(1e-10f) == 0x0000);
    CHECK(float_to_half(-1e-10f) == 0x8000);
    CHECK(float_to_half(std::numeric_limits<float>::denorm_min()) == 0x0000);
    CHECK(float_to_half(std::ldexp(1.0f, -25) * 1.0000001f) == 0x0001);  // just above the tie

    const std::uint16_t nan = float_to_half(std::numeric_limits<float>::quiet_NaN());
    CHECK((nan & 0x7c00) == 0x7c00);
    CHECK((nan & 0x03ff) != 0);
    const std::uint16_t negative_nan = float_to_half(-std::numeric_limits<float>::quiet_NaN());
    CHECK((negative_nan & 0x8000) != 0);
    CHECK((negative_nan & 0x03ff) != 0);
    // A signalling NaN whose payload sits only in the low bits must not turn into infinity.
    CHECK((float_to_half(from_bits(0x7f800001u)) & 0x03ff) != 0);
}

TEST_CASE("half: every finite half round-trips and every midpoint rounds to even", "[gguf][half]") {
    int checked = 0;
    for (std::uint32_t sign : {0u, 0x8000u}) {
        for (std::uint32_t h = 0; h < 0x7c00u; ++h) {
            const auto low = static_cast<std::uint16_t>(sign | h);
            const auto high = static_cast<std::uint16_t>(sign | (h + 1));
            const float low_value = decode_half(low);
            REQUIRE(float_to_half(low_value) == low);
            // Midpoints of neighbouring halves are exact in float (they need 12 significant bits).
            // Past the largest finite half the next step would be 65536, so its midpoint is 65520.
            const float high_value =
                h + 1 == 0x7c00u ? std::copysign(65536.0f, low_value) : decode_half(high);
            const float mid = (low_value + high_value) / 2;
            const std::uint16_t even = (h & 1) ? high : low;
            REQUIRE(float_to_half(mid) == even);
            // One float ulp to either side of the midpoint decides the direction.
            const float above = from_bits(bits_of(mid) + 1);  // further from zero
            const float below = from_bits(bits_of(mid) - 1);
            if (mid != 0.0f) {
                REQUIRE(float_to_half(above) == high);
                REQUIRE(float_to_half(below) == low);
            }
            ++checked;
        }
    }
    CHECK(checked == 2 * 0x7c00);
}
