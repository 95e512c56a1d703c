// What the lock tests need of the clock and of processes: Unix seconds as lock files record
// them, and a PID that no process holds any more.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

namespace bi::testing {

inline long long unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// A PID that was just in use and is not any more: a reaped child's.
inline pid_t dead_pid() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    int status = 0;
    ::waitpid(child, &status, 0);
    return child;
}

}  // namespace bi::testing
