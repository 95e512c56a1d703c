// Runs a short helper command (nvidia-smi, a server's --version) and returns what it printed,
// bounded in time and size: the provenance a cert records must never hang a run.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace bi::server {

// Which exits count as an answer: only status 0, or any exit (some servers' --help exits 1).
enum class ExitRule { Zero, Any };

// argv[0] is a path or a name looked up in PATH. Returns stdout + stderr (at most 64 KiB, invalid
// UTF-8 replaced) when the command exited (with status 0 under ExitRule::Zero) within
// `timeout`; nullopt when it could not run, failed, died of a signal, or ran too long (it is
// then killed by its PID and reaped).
std::optional<std::string> command_output(const std::vector<std::string>& argv,
                                          std::chrono::milliseconds timeout,
                                          ExitRule rule = ExitRule::Zero);

}  // namespace bi::server
