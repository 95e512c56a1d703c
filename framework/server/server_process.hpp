// One server process and everything it starts, owned by bi-run: launched in its own process
// group under a parent-death signal, its output read into a log by a thread, and ended - the
// whole tree, orphans re-parented to bi-run included - with SIGTERM, then SIGKILL after the grace.
// Only processes bi-run started are ever signalled or reaped, never by name, never an
// untouchable PID.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace bi::server {

class ServerProcess {
public:
    // argv[0] is the binary. Output (stdout and stderr) is appended to log_path, after a header
    // line with the time and the command. `untouchable` PIDs are never signalled: when the
    // launched process would get one, it is stopped before it execs and bi::Error(Guard) is
    // thrown. Throws bi::Error(Server) when the process cannot be started.
    ServerProcess(std::vector<std::string> argv, std::string log_path,
                  std::vector<pid_t> untouchable = {}, std::vector<std::string> env = {});
    ~ServerProcess();  // terminate() with the default grace
    ServerProcess(const ServerProcess&) = delete;
    ServerProcess& operator=(const ServerProcess&) = delete;

    pid_t pid() const;
    const std::vector<std::string>& argv() const;
    const std::string& log_path() const;
    bool under_parent_death_signal() const;  // launched through setpriv --pdeathsig KILL

    bool alive();  // the launched process; reaps it once it has exited
    // "exited with status 3" / "killed by signal 9" and the log's last lines; empty while alive.
    std::string death_report();
    // SIGTERM to the process group and to every process of the tree, then polls until they are
    // all gone or `grace` is over, then SIGKILL; reaps every one that is bi-run's child. Returns
    // at once with SIGKILL when `kill_now` is (or becomes) true. Never waits on the output pipe.
    // Idempotent. Returns how it ended.
    std::string terminate(std::chrono::milliseconds grace = std::chrono::seconds(10),
                          const std::atomic<bool>* kill_now = nullptr);
    std::string log_tail(std::size_t max_lines = 20) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bi::server
