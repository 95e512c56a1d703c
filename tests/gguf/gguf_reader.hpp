// A minimal GGUF v3 reader written from the format description for the tests only. It shares no
// code or constants with the writer, so a mistake in one is not mirrored in the other.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace bi::testing {

// Type codes as numbers on purpose (not the writer's enum).
struct GgufValue {
    std::uint32_t type = 0;
    std::uint32_t array_type = 0;  // when type == 9 (array)
    std::uint64_t u = 0;           // unsigned scalars and bool
    std::int64_t i = 0;            // signed scalars
    double f = 0;                  // float scalars
    std::string s;
    std::vector<std::string> strings;  // string arrays
    std::vector<double> numbers;       // numeric arrays, as double
};

struct GgufTensorInfo {
    std::string name;
    std::vector<std::int64_t> dims;
    std::uint32_t type = 0;
    std::uint64_t offset = 0;  // relative to the data section
};

struct GgufFile {
    std::string bytes;  // the whole file
    std::uint32_t version = 0;
    std::int64_t tensor_count = 0;
    std::int64_t kv_count = 0;
    std::vector<std::string> keys;  // in file order
    std::map<std::string, GgufValue> kv;
    std::vector<GgufTensorInfo> tensors;
    std::uint64_t header_end = 0;  // first byte after the last tensor info
    std::uint64_t alignment = 0;   // general.alignment, or 32 when absent
    std::uint64_t data_start = 0;  // header_end rounded up to the alignment

    const GgufValue& at(const std::string& key) const;
    const GgufTensorInfo& tensor(const std::string& name) const;
    // The tensor's bytes in the file (offset, byte size from dims x element size).
    std::uint64_t tensor_bytes(const GgufTensorInfo& info) const;
    // Decodes an f32 (type 0) or f16 (type 1) tensor.
    std::vector<float> tensor_values(const std::string& name) const;
};

// Throws std::runtime_error naming the byte offset of the first malformed field.
GgufFile parse_gguf(std::string bytes);
GgufFile load_gguf(const std::string& path);

// IEEE binary16 -> binary32 by its definition (sign, exponent, fraction), with std::ldexp.
float decode_half(std::uint16_t bits);

}  // namespace bi::testing
