#include "model_facts.hpp"

#include <cstring>
#include <fstream>
#include <vector>

#include "core/error.hpp"
#include "core/sha256.hpp"
#include "core/utf8.hpp"
#include "gguf/format.hpp"

namespace bi::server {

namespace {

constexpr std::uint64_t kHeadBytes = 1 << 20;
constexpr std::uint64_t kMaxString = 1 << 24;  // a sanity bound on metadata strings

// A bounds-checked little-endian reader over the start of the file.
class Cursor {
public:
    explicit Cursor(std::ifstream& in) : in_(in) {}
    template <typename T>
    T read() {
        T value{};
        in_.read(reinterpret_cast<char*>(&value), sizeof value);
        if (!in_) throw Error(ErrorCategory::Input, "truncated");
        return value;
    }
    std::string string() {
        const auto size = read<std::uint64_t>();
        if (size > kMaxString) throw Error(ErrorCategory::Input, "implausible string length");
        std::string text(size, '\0');
        in_.read(text.data(), static_cast<std::streamsize>(size));
        if (!in_) throw Error(ErrorCategory::Input, "truncated");
        return text;
    }
    void skip(std::uint64_t bytes) {
        in_.seekg(static_cast<std::streamoff>(bytes), std::ios::cur);
        if (!in_) throw Error(ErrorCategory::Input, "truncated");
    }

private:
    std::ifstream& in_;
};

using gguf::ValueType;

// A type code as the file stores it; any value, known or not.
ValueType read_type(Cursor& c) {
    return static_cast<ValueType>(c.read<std::uint32_t>());
}

std::uint64_t scalar_size(ValueType type) {
    switch (type) {
        case ValueType::UInt8:
        case ValueType::Int8:
        case ValueType::Bool:
            return 1;
        case ValueType::UInt16:
        case ValueType::Int16:
            return 2;
        case ValueType::UInt32:
        case ValueType::Int32:
        case ValueType::Float32:
            return 4;
        case ValueType::UInt64:
        case ValueType::Int64:
        case ValueType::Float64:
            return 8;
        default:
            return 0;
    }
}

// Reads an integer-typed value; other types are skipped and yield nothing.
std::optional<std::int64_t> read_value(Cursor& c, ValueType type) {
    switch (type) {
        case ValueType::UInt8:
            return c.read<std::uint8_t>();
        case ValueType::Int8:
            return c.read<std::int8_t>();
        case ValueType::UInt16:
            return c.read<std::uint16_t>();
        case ValueType::Int16:
            return c.read<std::int16_t>();
        case ValueType::UInt32:
            return c.read<std::uint32_t>();
        case ValueType::Int32:
            return c.read<std::int32_t>();
        case ValueType::UInt64:
            return static_cast<std::int64_t>(c.read<std::uint64_t>());
        case ValueType::Int64:
            return c.read<std::int64_t>();
        case ValueType::String:
            c.string();
            return std::nullopt;
        case ValueType::Array: {
            const auto element = read_type(c);
            const auto count = c.read<std::uint64_t>();
            if (element == ValueType::String) {
                for (std::uint64_t i = 0; i < count; ++i) c.string();
            } else if (const auto size = scalar_size(element)) {
                c.skip(size * count);
            } else {
                throw Error(ErrorCategory::Input, "unsupported array element type");
            }
            return std::nullopt;
        }
        default:
            if (const auto size = scalar_size(type)) {
                c.skip(size);
                return std::nullopt;
            }
            const auto code = static_cast<std::uint32_t>(type);
            throw Error(ErrorCategory::Input, "unknown metadata type " + std::to_string(code));
    }
}

void read_metadata(std::ifstream& in, ModelFacts& facts) {
    Cursor c(in);
    char magic[sizeof gguf::kMagic];
    in.read(magic, sizeof magic);
    if (!in || std::memcmp(magic, gguf::kMagic, sizeof magic) != 0) return;
    const auto version = c.read<std::uint32_t>();
    if (version < 2) return;
    c.read<std::uint64_t>();  // tensor count
    const auto n_kv = c.read<std::uint64_t>();
    std::vector<std::pair<std::string, std::int64_t>> numbers;
    for (std::uint64_t i = 0; i < n_kv; ++i) {
        const std::string key = c.string();
        const auto type = read_type(c);
        if (key == "general.architecture" && type == ValueType::String) {
            facts.architecture = core::replace_invalid_utf8(c.string());
            continue;
        }
        if (auto value = read_value(c, type)) numbers.emplace_back(key, *value);
    }
    const std::string prefix = facts.architecture + ".";
    for (const auto& [key, value] : numbers) {
        if (key.rfind(prefix, 0) != 0) continue;
        const std::string name = key.substr(prefix.size());
        if (name == "block_count")
            facts.n_layer = value;
        else if (name == "embedding_length")
            facts.n_embd = value;
        else if (name == "attention.head_count")
            facts.n_head = value;
        else if (name == "attention.head_count_kv")
            facts.n_head_kv = value;
        else if (name == "attention.key_length")
            facts.key_length = value;
        else if (name == "attention.value_length")
            facts.value_length = value;
    }
}

}  // namespace

ModelFacts read_model_facts(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorCategory::Input, "model " + path + ": cannot be read");
    ModelFacts facts;
    facts.path = path;
    in.seekg(0, std::ios::end);
    facts.file_bytes = static_cast<std::uint64_t>(in.tellg());
    in.seekg(0);
    std::string head(std::min(facts.file_bytes, kHeadBytes), '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    facts.sha256_head = core::sha256_hex(head);
    in.clear();
    in.seekg(0);
    try {
        read_metadata(in, facts);
    } catch (const Error&) {
        // A damaged header: the shape stays unknown and the footprint falls back.
        facts.n_layer.reset();
    }
    return facts;
}

}  // namespace bi::server
