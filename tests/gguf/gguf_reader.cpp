// The tests' own GGUF parser: bounds-checked, little-endian by byte arithmetic.
#include "gguf_reader.hpp"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace bi::testing {

namespace {

class Cursor {
public:
    explicit Cursor(const std::string& bytes) : bytes_(bytes) {}

    std::uint64_t pos() const { return pos_; }

    std::uint64_t unsigned_le(int width) {
        need(static_cast<std::uint64_t>(width));
        std::uint64_t value = 0;
        for (int i = 0; i < width; ++i)
            value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes_[pos_ + i]))
                     << (8 * i);
        pos_ += static_cast<std::uint64_t>(width);
        return value;
    }
    std::int64_t signed_le(int width) {
        const std::uint64_t raw = unsigned_le(width);
        if (width == 8) {
            std::int64_t value = 0;
            std::memcpy(&value, &raw, sizeof value);
            return value;
        }
        const std::uint64_t sign_bit = std::uint64_t{1} << (8 * width - 1);
        return raw & sign_bit
                   ? static_cast<std::int64_t>(raw) - static_cast<std::int64_t>(sign_bit << 1)
                   : static_cast<std::int64_t>(raw);
    }
    double float_le(int width) {
        const std::uint64_t raw = unsigned_le(width);
        if (width == 4) {
            const auto bits = static_cast<std::uint32_t>(raw);
            float value = 0;
            std::memcpy(&value, &bits, sizeof value);
            return value;
        }
        double value = 0;
        std::memcpy(&value, &raw, sizeof value);
        return value;
    }
    std::string string() {
        const std::uint64_t length = unsigned_le(8);
        need(length);
        std::string value = bytes_.substr(pos_, length);
        pos_ += length;
        return value;
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error("gguf: " + what + " at byte " + std::to_string(pos_));
    }

private:
    void need(std::uint64_t count) const {
        if (count > bytes_.size() || pos_ > bytes_.size() - count) fail("truncated");
    }
    const std::string& bytes_;
    std::uint64_t pos_ = 0;
};

int scalar_width(std::uint32_t type) {
    switch (type) {
        case 0:
        case 1:
        case 7:
            return 1;
        case 2:
        case 3:
            return 2;
        case 4:
        case 5:
        case 6:
            return 4;
        case 10:
        case 11:
        case 12:
            return 8;
        default:
            return 0;
    }
}

// Reads one non-array value of `type` into `value`; numeric arrays collect into `numbers`.
void read_scalar(Cursor& in, std::uint32_t type, GgufValue& value, bool into_array) {
    if (type == 8) {
        std::string s = in.string();
        if (into_array)
            value.strings.push_back(std::move(s));
        else
            value.s = std::move(s);
        return;
    }
    const int width = scalar_width(type);
    if (width == 0) in.fail("unknown value type " + std::to_string(type));
    double number = 0;
    if (type == 6 || type == 12) {
        value.f = in.float_le(width);
        number = value.f;
    } else if (type == 1 || type == 3 || type == 5 || type == 11) {
        value.i = in.signed_le(width);
        number = static_cast<double>(value.i);
    } else {
        value.u = in.unsigned_le(width);
        if (type == 7 && value.u > 1) in.fail("bool byte " + std::to_string(value.u));
        number = static_cast<double>(value.u);
    }
    if (into_array) value.numbers.push_back(number);
}

std::uint64_t element_size(std::uint32_t tensor_type) {
    if (tensor_type == 0) return 4;
    if (tensor_type == 1) return 2;
    throw std::runtime_error("gguf: unexpected tensor type " + std::to_string(tensor_type));
}

}  // namespace

float decode_half(std::uint16_t bits) {
    const int sign = bits >> 15;
    const int exponent = (bits >> 10) & 0x1f;
    const int fraction = bits & 0x3ff;
    float magnitude = 0;
    if (exponent == 0x1f)
        magnitude = fraction ? std::numeric_limits<float>::quiet_NaN()
                             : std::numeric_limits<float>::infinity();
    else if (exponent == 0)
        magnitude = std::ldexp(static_cast<float>(fraction), -24);
    else
        magnitude = std::ldexp(static_cast<float>(1024 + fraction), exponent - 25);
    return sign ? -magnitude : magnitude;
}

GgufFile parse_gguf(std::string bytes) {
    GgufFile file;
    file.bytes = std::move(bytes);
    Cursor in(file.bytes);
    if (file.bytes.compare(0, 4, "GGUF") != 0) in.fail("bad magic");
    in.unsigned_le(4);
    file.version = static_cast<std::uint32_t>(in.unsigned_le(4));
    file.tensor_count = in.signed_le(8);
    file.kv_count = in.signed_le(8);
    if (file.tensor_count < 0 || file.kv_count < 0) in.fail("negative count");

    for (std::int64_t k = 0; k < file.kv_count; ++k) {
        std::string key = in.string();
        if (file.kv.count(key)) in.fail("duplicate key " + key);
        GgufValue value;
        value.type = static_cast<std::uint32_t>(in.unsigned_le(4));
        if (value.type == 9) {
            value.array_type = static_cast<std::uint32_t>(in.unsigned_le(4));
            if (value.array_type == 9) in.fail("nested array");
            const std::uint64_t count = in.unsigned_le(8);
            for (std::uint64_t n = 0; n < count; ++n)
                read_scalar(in, value.array_type, value, true);
        } else {
            read_scalar(in, value.type, value, false);
        }
        file.keys.push_back(key);
        file.kv.emplace(std::move(key), std::move(value));
    }

    for (std::int64_t t = 0; t < file.tensor_count; ++t) {
        GgufTensorInfo info;
        info.name = in.string();
        const std::uint64_t n_dims = in.unsigned_le(4);
        if (n_dims == 0 || n_dims > 4) in.fail("tensor with " + std::to_string(n_dims) + " dims");
        for (std::uint64_t d = 0; d < n_dims; ++d) info.dims.push_back(in.signed_le(8));
        info.type = static_cast<std::uint32_t>(in.unsigned_le(4));
        info.offset = in.unsigned_le(8);
        file.tensors.push_back(std::move(info));
    }
    file.header_end = in.pos();

    const auto alignment = file.kv.find("general.alignment");
    if (alignment == file.kv.end()) {
        file.alignment = 32;
    } else {
        if (alignment->second.type != 4) in.fail("general.alignment is not uint32");
        file.alignment = alignment->second.u;
        if (file.alignment == 0) in.fail("alignment 0");
    }
    file.data_start = (file.header_end + file.alignment - 1) / file.alignment * file.alignment;
    return file;
}

GgufFile load_gguf(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::ostringstream content;
    content << in.rdbuf();
    return parse_gguf(content.str());
}

const GgufValue& GgufFile::at(const std::string& key) const {
    const auto found = kv.find(key);
    if (found == kv.end()) throw std::runtime_error("gguf: no key " + key);
    return found->second;
}

const GgufTensorInfo& GgufFile::tensor(const std::string& name) const {
    for (const auto& info : tensors)
        if (info.name == name) return info;
    throw std::runtime_error("gguf: no tensor " + name);
}

std::uint64_t GgufFile::tensor_bytes(const GgufTensorInfo& info) const {
    std::uint64_t count = 1;
    for (const auto dim : info.dims) count *= static_cast<std::uint64_t>(dim);
    return count * element_size(info.type);
}

std::vector<float> GgufFile::tensor_values(const std::string& name) const {
    const GgufTensorInfo& info = tensor(name);
    const std::uint64_t size = tensor_bytes(info);
    const std::uint64_t begin = data_start + info.offset;
    if (begin > bytes.size() || size > bytes.size() - begin)
        throw std::runtime_error("gguf: tensor " + name + " runs past the end of the file");
    const std::uint64_t width = element_size(info.type);
    std::vector<float> values;
    values.reserve(size / width);
    for (std::uint64_t at = begin; at < begin + size; at += width) {
        std::uint32_t raw = 0;
        for (std::uint64_t b = 0; b < width; ++b)
            raw |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + b])) << (8 * b);
        if (width == 2) {
            values.push_back(decode_half(static_cast<std::uint16_t>(raw)));
        } else {
            float value = 0;
            std::memcpy(&value, &raw, sizeof value);
            values.push_back(value);
        }
    }
    return values;
}

}  // namespace bi::testing
