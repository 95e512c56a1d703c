// fork + exec of a server, for ServerProcess: its own process group, default signal handling,
// output into a pipe, and a gate that holds the child before exec until its PID is approved.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace bi::server {

struct SpawnedChild {
    pid_t pid = -1;      // also its process group id
    int output_fd = -1;  // read end of its stdout + stderr; non-blocking, close-on-exec
};

// Starts argv[0] (a path) with `argv`, the environment plus `env_entries` ("NAME=VALUE" each,
// replacing a variable of that name; a later entry wins), stdin
// from /dev/null, in a new process group, every signal at its default and none blocked, and no
// descriptor of ours but the output pipe. Before the child execs, `approve(pid)` runs in the
// parent: if it throws, the child exits without running anything, is reaped, and the exception
// propagates. Throws bi::Error(Server) naming the binary when it cannot be executed.
SpawnedChild spawn_server(const std::vector<std::string>& argv,
                          const std::vector<std::string>& env_entries,
                          const std::function<void(pid_t)>& approve);

}  // namespace bi::server
