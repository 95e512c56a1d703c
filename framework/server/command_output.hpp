// Runs a short helper command (nvidia-smi, a server's --version) and returns what it printed,
// bounded in time and size: the provenance a cert records must never hang a run.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace bi::server {

// argv[0] is a path or a name looked up in PATH. Returns stdout + stderr (at most 64 KiB, invalid
// UTF-8 replaced) when the command exited 0 within `timeout`; nullopt when it could not run,
// failed, or ran too long (it is then killed by its PID and reaped).
std::optional<std::string> command_output(const std::vector<std::string>& argv,
                                          std::chrono::milliseconds timeout);

}  // namespace bi::server
