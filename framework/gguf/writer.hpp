// A GGUF v3 file writer: typed metadata, tensor infos and aligned tensor data, little-endian,
// streamed to disk one tensor at a time and published atomically.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gguf/format.hpp"

namespace bi::gguf {

// Produces one tensor's values in ggml order (dims[0] varies fastest). Called once, during write.
using TensorValues = std::function<std::vector<float>()>;

struct WriteSummary {
    std::uint64_t bytes = 0;
    std::string sha256_hex;  // of the whole file
};

class GgufWriter {
public:
    // `alignment` must be a power of two; it is recorded as general.alignment (uint32).
    explicit GgufWriter(std::uint32_t alignment = kDefaultAlignment);

    // Metadata, written in the order added. A key may be added once; general.alignment is the
    // writer's own. Misuse throws bi::Error(Internal): it is a bug in the caller, not bad input.
    void add_uint32(const std::string& key, std::uint32_t value);
    void add_int32(const std::string& key, std::int32_t value);
    void add_uint64(const std::string& key, std::uint64_t value);
    void add_float32(const std::string& key, float value);
    void add_bool(const std::string& key, bool value);
    void add_string(const std::string& key, const std::string& value);
    void add_string_array(const std::string& key, const std::vector<std::string>& values);
    void add_float32_array(const std::string& key, const std::vector<float>& values);
    void add_int32_array(const std::string& key, const std::vector<std::int32_t>& values);

    // A tensor of `dims` in ggml order (dims[0] is the row length). Float values are stored as
    // `type` (f16 by round-to-nearest-even). Data offsets follow the order tensors are added.
    void add_tensor(const std::string& name, const std::vector<std::int64_t>& dims, TensorType type,
                    TensorValues values);

    std::uint32_t alignment() const { return alignment_; }
    std::uint64_t parameter_count() const;

    // Streams the file to a temp file beside `path` and renames it over `path` on success; on any
    // failure `path` is left as it was. Throws bi::Error(Io) for file-system failures.
    WriteSummary write(const std::string& path) const;

private:
    struct Tensor {
        std::string name;
        std::vector<std::int64_t> dims;
        TensorType type;
        TensorValues values;
        std::uint64_t element_count;
    };

    std::string& begin_entry(const std::string& key, ValueType type);

    std::uint32_t alignment_;
    std::vector<std::string> keys_;
    std::vector<std::string> entries_;  // each key/value pair already encoded
    std::vector<Tensor> tensors_;
};

}  // namespace bi::gguf
