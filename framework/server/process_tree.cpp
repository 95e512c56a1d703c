#include "process_tree.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "spawned_children.hpp"

namespace bi::server {

namespace {

std::optional<ProcessEntry> read_entry(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) return std::nullopt;
    // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime
    // stime cutime cstime priority nice threads itrealvalue starttime ...": comm may hold ") ".
    const auto close = line.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream rest(line.substr(close + 1));
    ProcessEntry e;
    e.pid = pid;
    std::string skip;
    rest >> e.state >> e.ppid >> e.pgid;
    for (int field = 6; field < 22 && rest; ++field) rest >> skip;
    rest >> e.start_ticks;
    if (!rest) return std::nullopt;
    return e;
}

bool has_token(pid_t pid, const std::string& token) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    std::string entry;
    while (std::getline(in, entry, '\0'))
        if (entry == token) return true;
    return false;
}

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
    return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

}  // namespace

bool become_child_subreaper() {
    static const bool subreaper = ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
    return subreaper;
}

std::vector<ProcessEntry> scan_processes() {
    std::vector<ProcessEntry> all;
    DIR* dir = ::opendir("/proc");
    if (!dir) return all;
    while (const dirent* d = ::readdir(dir)) {
        char* end = nullptr;
        const long pid = std::strtol(d->d_name, &end, 10);
        if (pid <= 0 || *end != '\0') continue;
        if (auto e = read_entry(static_cast<pid_t>(pid))) all.push_back(*e);
    }
    ::closedir(dir);
    return all;
}

std::vector<ProcessEntry> server_tree(const std::vector<ProcessEntry>& all,
                                      const TreeMarks& marks) {
    std::multimap<pid_t, const ProcessEntry*> children;
    for (const auto& e : all) children.emplace(e.ppid, &e);
    // Our own descendants first: nothing outside them is ever a candidate.
    std::vector<const ProcessEntry*> ours;
    std::vector<pid_t> frontier{::getpid()};
    while (!frontier.empty()) {
        const pid_t parent = frontier.back();
        frontier.pop_back();
        const auto [begin, end] = children.equal_range(parent);
        for (auto it = begin; it != end; ++it) {
            ours.push_back(it->second);
            frontier.push_back(it->second->pid);
        }
    }
    std::set<pid_t> in_tree;
    std::vector<pid_t> roots;
    for (const ProcessEntry* e : ours) {
        // A child of ours that we did not start was adopted: it descends from something we
        // started, whatever marks it shed on the way (its own session, a cleared environment).
        const bool adopted = e->ppid == ::getpid() && !is_spawned_child(e->pid);
        const bool marked =
            adopted || e->pid == marks.root || (marks.pgid > 0 && e->pgid == marks.pgid) ||
            (!marks.token.empty() && e->state != 'Z' && has_token(e->pid, marks.token));
        if (marked) roots.push_back(e->pid);
    }
    // Whatever a member started is a member too, marked or not.
    while (!roots.empty()) {
        const pid_t pid = roots.back();
        roots.pop_back();
        if (!in_tree.insert(pid).second) continue;
        const auto [begin, end] = children.equal_range(pid);
        for (auto it = begin; it != end; ++it) roots.push_back(it->second->pid);
    }
    std::vector<ProcessEntry> tree;
    for (const ProcessEntry* e : ours)
        if (in_tree.count(e->pid)) tree.push_back(*e);
    return tree;
}

bool signal_process(const ProcessEntry& entry, int signal_number) {
    const int fd = open_pidfd(entry.pid);
    if (fd < 0) {
        if (errno != ENOSYS) return false;  // gone
        const auto now = read_entry(entry.pid);
        return now && now->start_ticks == entry.start_ticks &&
               ::kill(entry.pid, signal_number) == 0;
    }
    // The pidfd pins the process; the start time proves it is still the one we scanned.
    const auto now = read_entry(entry.pid);
    bool sent = false;
    if (now && now->start_ticks == entry.start_ticks) {
#ifdef SYS_pidfd_send_signal
        sent = ::syscall(SYS_pidfd_send_signal, fd, signal_number, nullptr, 0) == 0;
#else
        sent = ::kill(entry.pid, signal_number) == 0;
#endif
    }
    ::close(fd);
    return sent;
}

}  // namespace bi::server
