// SHA-256 (FIPS 180-4) for content hashes and cert digests; pure, incremental.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace bi::core {

class Sha256 {
public:
    Sha256();
    Sha256& update(const void* data, std::size_t size);
    Sha256& update(std::string_view text) { return update(text.data(), text.size()); }
    std::array<std::uint8_t, 32> digest();  // finalises; the object must not be updated after
    std::string hex_digest();

private:
    void compress(const std::uint8_t* block);
    std::array<std::uint32_t, 8> state_;
    std::array<std::uint8_t, 64> buffer_{};
    std::size_t buffered_ = 0;
    std::uint64_t total_bytes_ = 0;
};

std::string sha256_hex(std::string_view text);
// The first 12 hex digits of sha256(content): the diagnostic hash kept per trial.
std::string content_sha(std::string_view content);

}  // namespace bi::core
