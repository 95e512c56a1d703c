// GGUF v3 on-disk constants: the magic, value and tensor type codes, and alignment rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace bi::gguf {

inline constexpr char kMagic[4] = {'G', 'G', 'U', 'F'};
inline constexpr std::uint32_t kVersion = 3;
inline constexpr std::uint32_t kDefaultAlignment = 32;
inline constexpr const char* kAlignmentKey = "general.alignment";
// ggml rejects tensor names of this length or longer.
inline constexpr std::size_t kMaxTensorNameLength = 63;

// Metadata value types, stored on disk as int32.
enum class ValueType : std::uint32_t {
    UInt8 = 0,
    Int8 = 1,
    UInt16 = 2,
    Int16 = 3,
    UInt32 = 4,
    Int32 = 5,
    Float32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    UInt64 = 10,
    Int64 = 11,
    Float64 = 12,
};

// The ggml tensor types this writer produces (ggml numbers them; both have a block size of 1).
enum class TensorType : std::uint32_t { F32 = 0, F16 = 1 };

inline constexpr std::uint64_t tensor_type_size(TensorType type) {
    return type == TensorType::F32 ? 4 : 2;
}

inline constexpr const char* tensor_type_name(TensorType type) {
    return type == TensorType::F32 ? "f32" : "f16";
}

// The type tensor_type_name gives `name`; nullopt for a name this writer does not produce.
inline std::optional<TensorType> tensor_type_named(std::string_view name) {
    for (const TensorType type : {TensorType::F32, TensorType::F16})
        if (name == tensor_type_name(type)) return type;
    return std::nullopt;
}

// llama.cpp's general.file_type: all tensors f32, or the large ones f16.
inline constexpr std::uint32_t file_type_of(TensorType type) {
    return type == TensorType::F32 ? 0 : 1;
}

}  // namespace bi::gguf
