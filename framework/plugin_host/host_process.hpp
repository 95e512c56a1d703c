// The plugin host process as bi-run sees it: a separate executable (bi-plugin-host) started with
// posix_spawn, so nothing of this multithreaded process runs in the child, and talked to over a
// socketpair (one bidirectional pipe; MSG_NOSIGNAL keeps a dead helper from raising SIGPIPE here).
// It is ours by PID: only it is ever signalled, and it is always reaped. Internal to plugin_host.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace bi::plugin_host {

// Why the helper stopped answering; `what()` reads as the tail of a message, e.g.
// "crashed (signal 11, Segmentation fault)" or "exited the plugin host with status 0".
class HostFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The helper executable: $BI_PLUGIN_HOST when set, else bi-plugin-host beside /proc/self/exe (the
// build tree), else in the installed <libdir>/bi-run relative to it.
// Throws PluginFault naming what was looked for when it is not an executable file.
std::string plugin_host_executable();

class HostProcess {
public:
    using Clock = std::chrono::steady_clock;

    // Spawns `executable` in its own process group (a terminal's Ctrl-C reaches bi-run, which
    // then kills the helper itself) with the socket on fd 3, stdin /dev/null and stdout sent to
    // our stderr, so a plugin's printf cannot mix into bi-run's output. The helper asks for
    // SIGKILL when its parent thread ends (PR_SET_PDEATHSIG), so spawn it from a thread that
    // lives as long as the set (bi-run: the main thread).
    explicit HostProcess(const std::string& executable);
    ~HostProcess();  // kill_and_reap()
    HostProcess(const HostProcess&) = delete;
    HostProcess& operator=(const HostProcess&) = delete;

    pid_t pid() const { return pid_; }
    bool running() const { return pid_ > 0; }

    // Both wait no later than `deadline` and call `poll_interrupt` every few milliseconds (it may
    // throw to abandon the wait). They throw HostFailure when the helper died, closed the
    // channel, sent an oversized frame or ran past the deadline; the helper is then reaped.
    void send(std::string_view body, Clock::time_point deadline,
              const std::function<void()>& poll_interrupt);
    std::string receive(Clock::time_point deadline, const std::function<void()>& poll_interrupt);

    // SIGKILL to our helper (when it still runs) and waitpid for it. Safe to call again.
    void kill_and_reap();
    // Closes the channel, gives the helper `grace` to exit by itself, then kill_and_reap().
    void shut_down(std::chrono::milliseconds grace);

private:
    [[noreturn]] void fail_after_hangup();
    bool exited() const;  // the helper ended (a zombie now, not reaped yet)
    std::optional<std::string> take_frame();
    bool wait_ready(short events, Clock::time_point deadline,
                    const std::function<void()>& poll_interrupt);

    pid_t pid_ = -1;
    int fd_ = -1;
    std::string inbox_;
};

}  // namespace bi::plugin_host
