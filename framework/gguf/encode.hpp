// Little-endian encoding of GGUF's scalar and string primitives into a byte string.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace bi::gguf::detail {

inline void put_le(std::string& out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xffu));
}
inline void put_u8(std::string& out, std::uint8_t v) {
    put_le(out, v, 1);
}
inline void put_u16(std::string& out, std::uint16_t v) {
    put_le(out, v, 2);
}
inline void put_u32(std::string& out, std::uint32_t v) {
    put_le(out, v, 4);
}
inline void put_u64(std::string& out, std::uint64_t v) {
    put_le(out, v, 8);
}
inline void put_i32(std::string& out, std::int32_t v) {
    put_u32(out, static_cast<std::uint32_t>(v));
}
inline void put_i64(std::string& out, std::int64_t v) {
    put_u64(out, static_cast<std::uint64_t>(v));
}
inline void put_f32(std::string& out, float v) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    put_u32(out, bits);
}
// GGUF strings: a uint64 byte length, then the bytes, no terminator.
inline void put_string(std::string& out, std::string_view s) {
    put_u64(out, s.size());
    out.append(s.data(), s.size());
}

}  // namespace bi::gguf::detail
