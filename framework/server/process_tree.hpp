// The processes a launched server became: found in /proc below bi-run (a child subreaper, so the
// orphans of the tree are re-parented to it), signalled by pidfd so a recycled PID is never hit.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace bi::server {

// One line of /proc/<pid>/stat: enough to tell a process apart from a later one with its PID.
struct ProcessEntry {
    pid_t pid = 0;
    pid_t ppid = 0;
    pid_t pgid = 0;
    char state = '?';               // 'Z' for a zombie
    std::uint64_t start_ticks = 0;  // start time since boot: (pid, start_ticks) is one process
};

// Makes this process a child subreaper (PR_SET_CHILD_SUBREAPER) once; later calls do nothing.
// Returns whether it is one.
bool become_child_subreaper();

// Every process in /proc now (those that vanish while reading are skipped).
std::vector<ProcessEntry> scan_processes();

// The launched server's tree: `root` and its descendants, plus every descendant of this process
// that carries `token` in its environment or sits in `pgid`, with their descendants. Only
// descendants of this process are ever returned: nothing bi-run did not start.
struct TreeMarks {
    pid_t root = 0;
    pid_t pgid = 0;
    std::string token;  // "NAME=VALUE" put in the server's environment at launch
};
std::vector<ProcessEntry> server_tree(const std::vector<ProcessEntry>& all, const TreeMarks& marks);

// Sends `signal_number` to exactly the process `entry` names, or to nothing when that PID now
// belongs to another process. True when the signal was sent.
bool signal_process(const ProcessEntry& entry, int signal_number);

}  // namespace bi::server
