// The framing both ends of the plugin host's socket use: a 4-byte big-endian length, then that
// many bytes of JSON text. Frames are bounded, so neither side can be made to buffer without end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bi::plugin_host {

// The largest frame either side sends or accepts (a request, a reply, one generated row).
inline constexpr std::uint32_t kMaxFrameBytes = 16u << 20;
// The helper's end of the socket, as it is spawned.
inline constexpr int kHostChannelFd = 3;

// The 4-byte header for a body of `size` bytes.
std::string frame_header(std::size_t size);
// The body size a header announces.
std::uint32_t frame_size(const char* header);

// Blocking helpers for the plugin host's own side (it has nothing else to do while it waits).
// write_frame_blocking returns false when the peer is gone; read_frame_blocking returns nullopt
// at end of input and throws std::runtime_error for a frame over kMaxFrameBytes.
bool write_frame_blocking(int fd, std::string_view body);
std::optional<std::string> read_frame_blocking(int fd);

}  // namespace bi::plugin_host
