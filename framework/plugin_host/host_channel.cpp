#include "host_channel.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include <stdexcept>

namespace bi::plugin_host {

std::string frame_header(std::size_t size) {
    std::string header(4, '\0');
    for (int i = 0; i < 4; ++i) header[i] = static_cast<char>((size >> (8 * (3 - i))) & 0xff);
    return header;
}

std::uint32_t frame_size(const char* header) {
    std::uint32_t size = 0;
    for (int i = 0; i < 4; ++i) size = (size << 8) | static_cast<unsigned char>(header[i]);
    return size;
}

namespace {

bool write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

// false at end of input before `size` bytes arrived.
bool read_all(int fd, char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::read(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

bool write_frame_blocking(int fd, std::string_view body) {
    const std::string header = frame_header(body.size());
    return write_all(fd, header.data(), header.size()) && write_all(fd, body.data(), body.size());
}

std::optional<std::string> read_frame_blocking(int fd) {
    char header[4];
    if (!read_all(fd, header, sizeof header)) return std::nullopt;
    const std::uint32_t size = frame_size(header);
    if (size > kMaxFrameBytes)
        throw std::runtime_error("bi: plugin host: a request of " + std::to_string(size) +
                                 " bytes (limit " + std::to_string(kMaxFrameBytes) + ")");
    std::string body(size, '\0');
    if (!read_all(fd, body.data(), size)) return std::nullopt;
    return body;
}

}  // namespace bi::plugin_host
