// Server kind files (`bi-server-kind/1`, TOML): read, checked and turned into core::ServerKind.
// Every problem is bi::Error(Input) naming the file and the key; an unknown key, placeholder
// or schema is refused, never ignored.
#pragma once

#include <string>

#include "core/server_kind.hpp"

namespace bi::io {

// A kind from the text of `path` ("built-in" for the kinds compiled into bi-run); its sha256 is
// the text's.
core::ServerKind parse_server_kind(const std::string& text, const std::string& path);

// A kind file on disk.
core::ServerKind read_server_kind(const std::string& path);

}  // namespace bi::io
