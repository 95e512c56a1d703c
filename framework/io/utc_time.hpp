// The wall-clock time as ISO-8601 UTC text, for certs and log headers (the core takes it as an
// argument; it never reads a clock).
#pragma once

#include <string>

namespace bi::io {

std::string utc_timestamp();  // "2026-11-29T23:15:00Z"

}  // namespace bi::io
