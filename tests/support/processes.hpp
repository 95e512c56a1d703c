// Processes a test started or watches: whether one is still there, its PID from a file a stand-in
// wrote, and a load that keeps every core busy while a test runs.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace bi::testing {

// Whether `pid` names a live process (or one this test may not signal).
bool process_exists(pid_t pid);

// The PID written in `path`; 0 when there is none.
pid_t read_pid(const std::string& path);

// One spinning child per core (at least two), ended by PID when this goes (and by the kernel if
// the test dies first).
class CoreLoad {
public:
    CoreLoad();
    ~CoreLoad();
    CoreLoad(const CoreLoad&) = delete;
    CoreLoad& operator=(const CoreLoad&) = delete;

private:
    std::vector<pid_t> pids_;
};

}  // namespace bi::testing
