// One server process, PID-scoped: launched with Poco::Process under a parent-death signal, its
// output appended to a log file, ended with SIGTERM then SIGKILL - by its PID, never by name.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace bi::server {

class ServerProcess {
public:
    // argv[0] is the binary. Output (stdout and stderr) is appended to log_path, after a header
    // line with the time and the command. `untouchable` PIDs are never signalled.
    // Throws bi::Error(Server) when the process cannot be started.
    ServerProcess(std::vector<std::string> argv, std::string log_path,
                  std::vector<pid_t> untouchable = {});
    ~ServerProcess();  // terminate() with the default grace
    ServerProcess(const ServerProcess&) = delete;
    ServerProcess& operator=(const ServerProcess&) = delete;

    pid_t pid() const;
    const std::vector<std::string>& argv() const;
    const std::string& log_path() const;
    bool under_parent_death_signal() const;  // launched through setpriv --pdeathsig KILL

    bool alive();  // reaps the child once it has exited
    // "exited with status 3" / "killed by signal 9" and the log's last lines; empty while alive.
    std::string death_report();
    // SIGTERM, then polls until `grace` is over, then SIGKILL. Idempotent. Returns how it ended.
    std::string terminate(std::chrono::milliseconds grace = std::chrono::seconds(10));
    std::string log_tail(std::size_t max_lines = 20) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bi::server
