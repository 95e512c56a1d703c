// The processes this process started itself (servers, the plugin host), as opposed to those it
// adopted as a child subreaper: an orphan re-parented to bi-run descends from something bi-run
// started, so it is provably ours even when it hid every other mark (own session, no environment).
#pragma once

#include <sys/types.h>

namespace bi::server {

// Called right after fork/posix_spawn returns the child's PID. Thread-safe.
void note_spawned_child(pid_t pid);

// True when `pid` was noted by note_spawned_child in this process. Thread-safe.
bool is_spawned_child(pid_t pid);

}  // namespace bi::server
