#include "command_output.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "core/utf8.hpp"
#include "spawned_children.hpp"

namespace bi::server {

namespace {

constexpr std::size_t kMaxOutput = std::size_t{64} * 1024;

// Exec in the child: stdin from /dev/null, stdout and stderr into the pipe. Only async-signal-
// safe calls here (the parent may have other threads): `args` was built before the fork.
[[noreturn]] void exec_child(char* const* args, int write_fd) {
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd >= 0) ::dup2(null_fd, 0);
    ::dup2(write_fd, 1);
    ::dup2(write_fd, 2);
    ::execvp(args[0], args);
    ::_exit(127);
}

}  // namespace

std::optional<std::string> command_output(const std::vector<std::string>& argv,
                                          std::chrono::milliseconds timeout, ExitRule rule) {
    if (argv.empty()) return std::nullopt;
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return std::nullopt;
    }
    if (pid == 0) exec_child(args.data(), fds[1]);
    note_spawned_child(pid);
    ::close(fds[1]);
    std::string output;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    bool timed_out = false;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timed_out = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
        char buffer[4096];
        const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n <= 0) break;  // EOF: every writer closed
        if (output.size() < kMaxOutput)
            output.append(buffer,
                          std::min(static_cast<std::size_t>(n), kMaxOutput - output.size()));
    }
    ::close(fds[0]);
    if (timed_out) ::kill(pid, SIGKILL);
    int status = 0;
    pid_t reaped = -1;
    do {
        reaped = ::waitpid(pid, &status, 0);
    } while (reaped < 0 && errno == EINTR);
    if (reaped != pid || timed_out || !WIFEXITED(status) ||
        (rule == ExitRule::Zero && WEXITSTATUS(status) != 0))
        return std::nullopt;
    return core::replace_invalid_utf8(output);
}

}  // namespace bi::server
