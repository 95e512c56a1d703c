#include "model_facts.hpp"

#include <fstream>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/sha256.hpp"

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

enum GgufType : std::uint32_t {
    kU8 = 0, kI8, kU16, kI16, kU32, kI32, kF32, kBool, kString, kArray, kU64, kI64, kF64
};

std::uint64_t scalar_size(std::uint32_t type) {
    switch (type) {
        case kU8: case kI8: case kBool: return 1;
        case kU16: case kI16: return 2;
        case kU32: case kI32: case kF32: return 4;
        case kU64: case kI64: case kF64: return 8;
        default: return 0;
    }
}

// Reads an integer-typed value; other types are skipped and yield nothing.
std::optional<std::int64_t> read_value(Cursor& c, std::uint32_t type) {
    switch (type) {
        case kU8: return c.read<std::uint8_t>();
        case kI8: return c.read<std::int8_t>();
        case kU16: return c.read<std::uint16_t>();
        case kI16: return c.read<std::int16_t>();
        case kU32: return c.read<std::uint32_t>();
        case kI32: return c.read<std::int32_t>();
        case kU64: return static_cast<std::int64_t>(c.read<std::uint64_t>());
        case kI64: return c.read<std::int64_t>();
        case kString: c.string(); return std::nullopt;
        case kArray: {
            const auto element = c.read<std::uint32_t>();
            const auto count = c.read<std::uint64_t>();
            if (element == kString) {
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
            throw Error(ErrorCategory::Input, "unknown metadata type " + std::to_string(type));
    }
}

void read_metadata(std::ifstream& in, ModelFacts& facts) {
    Cursor c(in);
    char magic[4];
    in.read(magic, 4);
    if (!in || std::string_view(magic, 4) != "GGUF") return;
    const auto version = c.read<std::uint32_t>();
    if (version < 2) return;
    c.read<std::uint64_t>();  // tensor count
    const auto n_kv = c.read<std::uint64_t>();
    std::vector<std::pair<std::string, std::int64_t>> numbers;
    for (std::uint64_t i = 0; i < n_kv; ++i) {
        const std::string key = c.string();
        const auto type = c.read<std::uint32_t>();
        if (key == "general.architecture" && type == kString) {
            facts.architecture = c.string();
            continue;
        }
        if (auto value = read_value(c, type)) numbers.emplace_back(key, *value);
    }
    const std::string prefix = facts.architecture + ".";
    for (const auto& [key, value] : numbers) {
        if (key.rfind(prefix, 0) != 0) continue;
        const std::string name = key.substr(prefix.size());
        if (name == "block_count") facts.n_layer = value;
        else if (name == "embedding_length") facts.n_embd = value;
        else if (name == "attention.head_count") facts.n_head = value;
        else if (name == "attention.head_count_kv") facts.n_head_kv = value;
        else if (name == "attention.key_length") facts.key_length = value;
        else if (name == "attention.value_length") facts.value_length = value;
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
