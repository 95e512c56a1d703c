#include "host_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "host_channel.hpp"
#include "plugin_fault.hpp"
#include "server/spawned_children.hpp"

extern char** environ;

namespace bi::plugin_host {

#ifndef BI_HOST_DIR_FROM_BINDIR
#error "BI_HOST_DIR_FROM_BINDIR must name the installed plugin host's directory relative to bindir"
#endif

namespace {

namespace fs = std::filesystem;

constexpr auto kPollSlice = std::chrono::milliseconds(20);

std::string describe_status(int status) {
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = ::strsignal(sig);
        return "crashed (signal " + std::to_string(sig) + ", " + (name ? name : "unknown") + ")";
    }
    if (WIFEXITED(status))
        return "exited the plugin host with status " + std::to_string(WEXITSTATUS(status));
    return "stopped the plugin host (wait status " + std::to_string(status) + ")";
}

// A descriptor above the standard ones, so that the child's dup2 onto fd 3 is a real dup2
// (dup2 onto itself would leave close-on-exec set).
int high_cloexec(int fd) {
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
    ::close(fd);
    return moved;
}

}  // namespace

std::string plugin_host_executable() {
    if (const char* env = std::getenv("BI_PLUGIN_HOST"); env && *env) {
        if (::access(env, X_OK) != 0 || fs::is_directory(env))
            throw PluginFault(std::string("bi: BI_PLUGIN_HOST=") + env +
                              " is not an executable file");
        return env;
    }
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    const fs::path bindir = exe.parent_path();
    const fs::path beside = bindir / "bi-plugin-host";
    const fs::path installed =
        (bindir / BI_HOST_DIR_FROM_BINDIR / "bi-plugin-host").lexically_normal();
    if (!ec)
        for (const fs::path& host : {beside, installed})
            if (::access(host.c_str(), X_OK) == 0 && !fs::is_directory(host, ec))
                return host.string();
    throw PluginFault("bi: the plugin host is missing: neither " + beside.string() + " nor " +
                      installed.string() +
                      " (it is built beside bi-run and installed with it; BI_PLUGIN_HOST "
                      "overrides its path)");
}

HostProcess::HostProcess(const std::string& executable) {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        throw PluginFault(std::string("bi: plugin host: socketpair failed: ") +
                          std::strerror(errno));
    const int ours = high_cloexec(fds[0]);
    const int theirs = high_cloexec(fds[1]);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, theirs, kHostChannelFd);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD}) sigaddset(&defaults, sig);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(
        &attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    const std::string parent = std::to_string(::getpid());
    std::vector<char*> argv = {const_cast<char*>(executable.c_str()), const_cast<char*>("--parent"),
                               const_cast<char*>(parent.c_str()), nullptr};
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, executable.c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(theirs);
    if (rc != 0) {
        ::close(ours);
        throw PluginFault("bi: cannot start the plugin host " + executable + ": " +
                          std::strerror(rc));
    }
    server::note_spawned_child(pid);
    pid_ = pid;
    fd_ = ours;
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
}

HostProcess::~HostProcess() {
    kill_and_reap();
}

bool HostProcess::exited() const {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
           info.si_pid == pid_;
}

bool HostProcess::wait_ready(short events, Clock::time_point deadline,
                             const std::function<void()>& poll_interrupt) {
    for (;;) {
        if (poll_interrupt) poll_interrupt();
        // A plugin's child may hold the channel open after the helper died: watch the helper.
        if (exited()) fail_after_hangup();
        const auto now = Clock::now();
        if (now >= deadline) return false;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
        pollfd p{fd_, events, 0};
        const int n = ::poll(&p, 1, static_cast<int>(std::min(left, kPollSlice).count()) + 1);
        if (n > 0) return true;
        if (n < 0 && errno != EINTR) return true;  // let the read or write report it
    }
}

void HostProcess::send(std::string_view body, Clock::time_point deadline,
                       const std::function<void()>& poll_interrupt) {
    if (!running()) throw HostFailure("is no longer running");
    const std::string frame = frame_header(body.size()) + std::string(body);
    std::size_t done = 0;
    while (done < frame.size()) {
        const ssize_t n = ::send(fd_, frame.data() + done, frame.size() - done, MSG_NOSIGNAL);
        if (n > 0) {
            done += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!wait_ready(POLLOUT, deadline, poll_interrupt)) {
                kill_and_reap();
                throw HostFailure("did not take its input in time");
            }
            continue;
        }
        fail_after_hangup();
    }
}

std::optional<std::string> HostProcess::take_frame() {
    if (inbox_.size() < 4) return std::nullopt;
    const std::uint32_t size = frame_size(inbox_.data());
    if (size > kMaxFrameBytes) {
        kill_and_reap();
        throw HostFailure("sent a message of " + std::to_string(size) + " bytes (limit " +
                          std::to_string(kMaxFrameBytes) + ")");
    }
    if (inbox_.size() < 4 + static_cast<std::size_t>(size)) return std::nullopt;
    std::string body = inbox_.substr(4, size);
    inbox_.erase(0, 4 + static_cast<std::size_t>(size));
    return body;
}

std::string HostProcess::receive(Clock::time_point deadline,
                                 const std::function<void()>& poll_interrupt) {
    if (!running()) throw HostFailure("is no longer running");
    char buffer[65536];
    for (;;) {
        if (auto frame = take_frame()) return std::move(*frame);
        const ssize_t n = ::read(fd_, buffer, sizeof buffer);
        if (n > 0) {
            inbox_.append(buffer, static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!wait_ready(POLLIN, deadline, poll_interrupt)) {
                kill_and_reap();
                throw HostFailure("timed out");
            }
            continue;
        }
        fail_after_hangup();
    }
}

void HostProcess::fail_after_hangup() {
    // The channel closes a moment before the process becomes a zombie; give it a second to
    // finish dying, so the report says how it ended.
    const auto until = Clock::now() + std::chrono::seconds(1);
    while (Clock::now() < until) {
        siginfo_t info{};
        // WNOWAIT: look without reaping, so its group id is still ours to signal.
        if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
            pid_ = -1;  // not our child any more: someone else reaped it
            kill_and_reap();
            throw HostFailure("ended (its status was taken elsewhere)");
        }
        if (info.si_pid == pid_) {
            ::kill(-pid_, SIGKILL);  // whatever it left in its group
            int status = 0;
            while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
            }
            pid_ = -1;
            kill_and_reap();  // closes the channel
            throw HostFailure(describe_status(status));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    kill_and_reap();
    throw HostFailure("closed the plugin host's channel");
}

void HostProcess::kill_and_reap() {
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
    if (pid_ <= 0) return;
    // Its process group too: the helper leads it (we made it so at spawn), so whatever a plugin
    // forked without leaving the group goes with it. Until the waitpid below, the pid and group
    // id cannot have been reused by anything that is not ours.
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
}

void HostProcess::shut_down(std::chrono::milliseconds grace) {
    if (pid_ > 0 && fd_ >= 0) {
        ::shutdown(fd_, SHUT_WR);  // end of requests: the helper returns from its loop
        const auto until = Clock::now() + grace;
        // Its end of the channel closes when it exits; read (and drop) until then.
        char buffer[4096];
        while (Clock::now() < until) {
            pollfd p{fd_, POLLIN, 0};
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
            if (::poll(&p, 1, static_cast<int>(left.count()) + 1) <= 0) continue;
            const ssize_t n = ::read(fd_, buffer, sizeof buffer);
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) break;
        }
    }
    kill_and_reap();
}

}  // namespace bi::plugin_host
