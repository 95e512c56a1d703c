#include "spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "spawned_children.hpp"

extern char** environ;

namespace bi::server {

namespace {

// Closes every descriptor from `first` up, but `keep`; only async-signal-safe calls.
void close_from(int first, int keep) {
#ifdef SYS_close_range
    if (keep >= first) {
        if (keep > first) ::syscall(SYS_close_range, first, keep - 1, 0);
        if (::syscall(SYS_close_range, keep + 1, ~0U, 0) == 0) return;
    } else if (::syscall(SYS_close_range, first, ~0U, 0) == 0) {
        return;
    }
#endif
    for (int fd = first; fd < 4096; ++fd)
        if (fd != keep) ::close(fd);
}

// What the child does between fork and exec: nothing that allocates or takes a lock.
[[noreturn]] void run_child(const int (&gate)[2], int report, int output, int null_in,
                            char* const* argv, char* const* envp) {
    ::close(gate[1]);  // so the parent closing its end is an EOF here
    char go = 0;
    while (::read(gate[0], &go, 1) < 0 && errno == EINTR) {
    }
    if (go != 'g') ::_exit(0);
    ::setpgid(0, 0);
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &default_action, nullptr);
    ::dup2(null_in, STDIN_FILENO);
    ::dup2(output, STDOUT_FILENO);
    ::dup2(output, STDERR_FILENO);
    close_from(3, report);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(argv[0], argv, envp);
    const int error = errno;
    ssize_t ignored = ::write(report, &error, sizeof error);
    (void)ignored;
    ::_exit(127);
}

struct Fds {
    int fd[2] = {-1, -1};
    ~Fds() {
        for (int f : fd)
            if (f >= 0) ::close(f);
    }
    int release(int i) {
        const int f = fd[i];
        fd[i] = -1;
        return f;
    }
};

void reap(pid_t pid) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
}

}  // namespace

SpawnedChild spawn_server(const std::vector<std::string>& argv,
                          const std::vector<std::string>& env_entries,
                          const std::function<void(pid_t)>& approve) {
    const std::string& binary = argv.front();
    // Everything the child needs is built before fork: it must not allocate.
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const auto replaced = [&env_entries](const char* entry) {
        for (const auto& given : env_entries) {
            const auto name = given.substr(0, given.find('=') + 1);
            if (std::strncmp(entry, name.c_str(), name.size()) == 0) return true;
        }
        return false;
    };
    std::vector<char*> env;
    for (char** e = environ; e && *e; ++e)
        if (!replaced(*e)) env.push_back(*e);
    for (std::size_t i = 0; i < env_entries.size(); ++i) {
        const auto name = env_entries[i].substr(0, env_entries[i].find('=') + 1);
        bool later = false;
        for (std::size_t j = i + 1; j < env_entries.size(); ++j)
            later = later || env_entries[j].compare(0, name.size(), name) == 0;
        if (!later) env.push_back(const_cast<char*>(env_entries[i].c_str()));
    }
    env.push_back(nullptr);

    Fds gate, report, output;
    if (::pipe2(gate.fd, O_CLOEXEC) != 0 || ::pipe2(report.fd, O_CLOEXEC) != 0 ||
        ::pipe2(output.fd, O_CLOEXEC) != 0)
        throw Error(ErrorCategory::Server,
                    "cannot start " + binary + ": pipe: " + std::strerror(errno));
    const int null_in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_in < 0)
        throw Error(ErrorCategory::Server,
                    "cannot start " + binary + ": /dev/null: " + std::strerror(errno));

    // Signals stay blocked across fork, so none reaches a handler of ours in the child.
    sigset_t all, before;
    sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &before);
    const pid_t pid = ::fork();
    if (pid == 0) run_child(gate.fd, report.fd[1], output.fd[1], null_in, args.data(), env.data());
    const int fork_error = errno;
    ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
    ::close(null_in);
    if (pid < 0)
        throw Error(ErrorCategory::Server,
                    "cannot start " + binary + ": fork: " + std::strerror(fork_error));
    ::setpgid(pid, pid);  // also done by the child; whichever runs first wins the race
    note_spawned_child(pid);

    ::close(gate.release(0));
    ::close(report.release(1));
    ::close(output.release(1));
    try {
        approve(pid);
    } catch (...) {
        ::close(gate.release(1));  // EOF: the child exits without exec
        reap(pid);
        throw;
    }
    const char go = 'g';
    ssize_t written = ::write(gate.fd[1], &go, 1);
    (void)written;
    int exec_error = 0;
    ssize_t n = 0;
    while ((n = ::read(report.fd[0], &exec_error, sizeof exec_error)) < 0 && errno == EINTR) {
    }
    if (n == static_cast<ssize_t>(sizeof exec_error)) {
        reap(pid);
        throw Error(ErrorCategory::Server,
                    "cannot start " + binary + ": " + std::strerror(exec_error));
    }
    const int out = output.release(0);
    ::fcntl(out, F_SETFL, ::fcntl(out, F_GETFL) | O_NONBLOCK);
    return {pid, out};
}

}  // namespace bi::server
