// GgufWriter: encodes metadata up front, then streams tensor data through a hashing buffer.
#include "writer.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "core/sha256.hpp"
#include "gguf/encode.hpp"
#include "gguf/half.hpp"
#include "io/files.hpp"

namespace bi::gguf {

namespace {

using namespace detail;

[[noreturn]] void misuse(const std::string& message) {
    throw Error(ErrorCategory::Internal, "gguf writer: " + message);
}

std::uint64_t padding_for(std::uint64_t offset, std::uint64_t alignment) {
    return (alignment - offset % alignment) % alignment;
}

// Buffers writes to the atomic file (few large syscalls) and hashes every byte on the way.
class HashingSink {
public:
    explicit HashingSink(const std::string& path) : file_(path) { buffer_.reserve(kChunk); }

    void put(std::string_view bytes) {
        hash_.update(bytes);
        written_ += bytes.size();
        buffer_.append(bytes.data(), bytes.size());
        if (buffer_.size() >= kChunk) flush();
    }
    void put_zeros(std::uint64_t count) { put(std::string(count, '\0')); }
    std::uint64_t written() const { return written_; }

    WriteSummary commit() {
        flush();
        file_.commit();
        return {written_, hash_.hex_digest()};
    }

private:
    static constexpr std::size_t kChunk = std::size_t{1} << 20;
    void flush() {
        file_.write(buffer_);
        buffer_.clear();
    }

    io::AtomicFileWriter file_;
    core::Sha256 hash_;
    std::string buffer_;
    std::uint64_t written_ = 0;
};

void encode_values(std::string& out, const std::vector<float>& values, std::size_t begin,
                   std::size_t end, TensorType type) {
    for (std::size_t i = begin; i < end; ++i) {
        if (type == TensorType::F32)
            put_f32(out, values[i]);
        else
            put_u16(out, float_to_half(values[i]));
    }
}

}  // namespace

GgufWriter::GgufWriter(std::uint32_t alignment) : alignment_(alignment) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
        misuse("alignment " + std::to_string(alignment) + " is not a power of two");
}

std::string& GgufWriter::begin_entry(const std::string& key, ValueType type) {
    if (key.empty()) misuse("empty metadata key");
    if (key == kAlignmentKey) misuse(std::string(kAlignmentKey) + " is set by the writer");
    if (std::find(keys_.begin(), keys_.end(), key) != keys_.end())
        misuse("duplicate metadata key '" + key + "'");
    keys_.push_back(key);
    entries_.emplace_back();
    std::string& entry = entries_.back();
    put_string(entry, key);
    put_u32(entry, static_cast<std::uint32_t>(type));
    return entry;
}

void GgufWriter::add_uint32(const std::string& key, std::uint32_t value) {
    put_u32(begin_entry(key, ValueType::UInt32), value);
}

void GgufWriter::add_int32(const std::string& key, std::int32_t value) {
    put_i32(begin_entry(key, ValueType::Int32), value);
}

void GgufWriter::add_uint64(const std::string& key, std::uint64_t value) {
    put_u64(begin_entry(key, ValueType::UInt64), value);
}

void GgufWriter::add_float32(const std::string& key, float value) {
    put_f32(begin_entry(key, ValueType::Float32), value);
}

void GgufWriter::add_bool(const std::string& key, bool value) {
    put_u8(begin_entry(key, ValueType::Bool), value ? 1 : 0);
}

void GgufWriter::add_string(const std::string& key, const std::string& value) {
    put_string(begin_entry(key, ValueType::String), value);
}

void GgufWriter::add_string_array(const std::string& key, const std::vector<std::string>& values) {
    std::string& entry = begin_entry(key, ValueType::Array);
    put_u32(entry, static_cast<std::uint32_t>(ValueType::String));
    put_u64(entry, values.size());
    for (const auto& value : values) put_string(entry, value);
}

void GgufWriter::add_float32_array(const std::string& key, const std::vector<float>& values) {
    std::string& entry = begin_entry(key, ValueType::Array);
    put_u32(entry, static_cast<std::uint32_t>(ValueType::Float32));
    put_u64(entry, values.size());
    for (const float value : values) put_f32(entry, value);
}

void GgufWriter::add_int32_array(const std::string& key, const std::vector<std::int32_t>& values) {
    std::string& entry = begin_entry(key, ValueType::Array);
    put_u32(entry, static_cast<std::uint32_t>(ValueType::Int32));
    put_u64(entry, values.size());
    for (const std::int32_t value : values) put_i32(entry, value);
}

void GgufWriter::add_tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                            TensorType type, TensorValues values) {
    if (name.empty() || name.size() > kMaxTensorNameLength)
        misuse("tensor name '" + name + "' is empty or too long");
    for (const auto& tensor : tensors_)
        if (tensor.name == name) misuse("duplicate tensor '" + name + "'");
    if (dims.empty() || dims.size() > 4) misuse("tensor '" + name + "' needs 1 to 4 dimensions");
    std::uint64_t count = 1;
    for (const std::int64_t dim : dims) {
        if (dim <= 0) misuse("tensor '" + name + "' has a dimension <= 0");
        count *= static_cast<std::uint64_t>(dim);
    }
    if (!values) misuse("tensor '" + name + "' has no value source");
    tensors_.push_back({name, dims, type, std::move(values), count});
}

std::uint64_t GgufWriter::parameter_count() const {
    std::uint64_t total = 0;
    for (const auto& tensor : tensors_) total += tensor.element_count;
    return total;
}

WriteSummary GgufWriter::write(const std::string& path) const {
    std::string head;
    head.append(kMagic, sizeof kMagic);
    put_u32(head, kVersion);
    put_i64(head, static_cast<std::int64_t>(tensors_.size()));
    put_i64(head, static_cast<std::int64_t>(entries_.size() + 1));
    for (const auto& entry : entries_) head += entry;
    put_string(head, kAlignmentKey);
    put_u32(head, static_cast<std::uint32_t>(ValueType::UInt32));
    put_u32(head, alignment_);

    // Offsets are relative to the data section; each tensor starts aligned.
    std::uint64_t offset = 0;
    for (const auto& tensor : tensors_) {
        put_string(head, tensor.name);
        put_u32(head, static_cast<std::uint32_t>(tensor.dims.size()));
        for (const std::int64_t dim : tensor.dims) put_i64(head, dim);
        put_u32(head, static_cast<std::uint32_t>(tensor.type));
        put_u64(head, offset);
        const std::uint64_t size = tensor.element_count * tensor_type_size(tensor.type);
        offset += size + padding_for(size, alignment_);
    }

    HashingSink sink(path);
    sink.put(head);
    sink.put_zeros(padding_for(sink.written(), alignment_));

    constexpr std::size_t kElementsPerChunk = std::size_t{1} << 16;
    std::string chunk;
    for (const auto& tensor : tensors_) {
        const std::vector<float> values = tensor.values();
        if (values.size() != tensor.element_count)
            misuse("tensor '" + tensor.name + "' produced " + std::to_string(values.size()) +
                   " values for " + std::to_string(tensor.element_count) + " elements");
        for (std::size_t begin = 0; begin < values.size(); begin += kElementsPerChunk) {
            chunk.clear();
            encode_values(chunk, values, begin, std::min(values.size(), begin + kElementsPerChunk),
                          tensor.type);
            sink.put(chunk);
        }
        const std::uint64_t size = tensor.element_count * tensor_type_size(tensor.type);
        sink.put_zeros(padding_for(size, alignment_));
    }
    return sink.commit();
}

}  // namespace bi::gguf
