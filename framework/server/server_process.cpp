#include "server_process.hpp"

#include <Poco/Exception.h>
#include <Poco/Pipe.h>
#include <Poco/Process.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "argv.hpp"
#include "core/error.hpp"
#include "io/utc_time.hpp"

namespace bi::server {

namespace {

constexpr const char* kSetpriv = "/usr/bin/setpriv";
constexpr std::size_t kTailBytes = std::size_t{16} * 1024;

// Every live child, so an exit() that skips destructors still ends them (atexit).
std::mutex g_live_mutex;
std::set<pid_t> g_live;

void end_live_children() {
    std::lock_guard<std::mutex> lock(g_live_mutex);
    for (pid_t pid : g_live) ::kill(pid, SIGKILL);
    for (pid_t pid : g_live) ::waitpid(pid, nullptr, 0);
    g_live.clear();
}

void register_child(pid_t pid) {
    static std::once_flag once;
    std::call_once(once, [] { std::atexit(end_live_children); });
    std::lock_guard<std::mutex> lock(g_live_mutex);
    g_live.insert(pid);
}

void forget_child(pid_t pid) {
    std::lock_guard<std::mutex> lock(g_live_mutex);
    g_live.erase(pid);
}

std::string describe_status(int status) {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
               ::strsignal(WTERMSIG(status)) + ")";
    return "ended (status " + std::to_string(status) + ")";
}

}  // namespace

struct ServerProcess::Impl {
    std::vector<std::string> argv;
    std::string log_path;
    std::vector<pid_t> untouchable;
    bool pdeathsig = false;
    pid_t pid = -1;
    bool reaped = false;
    int status = 0;
    std::string ended_how;

    Poco::Pipe output;
    std::thread reader;
    mutable std::mutex tail_mutex;
    std::string tail;

    bool touchable() const {
        return std::find(untouchable.begin(), untouchable.end(), pid) == untouchable.end();
    }

    // Copies the child's output into the log file and keeps the last bytes for error messages.
    void pump(std::ofstream log) {
        char buffer[4096];
        while (true) {
            int n = 0;
            try {
                n = output.readBytes(buffer, sizeof buffer);
            } catch (...) {
                break;
            }
            if (n <= 0) break;
            log.write(buffer, n);
            log.flush();
            std::lock_guard<std::mutex> lock(tail_mutex);
            tail.append(buffer, static_cast<std::size_t>(n));
            if (tail.size() > kTailBytes) tail.erase(0, tail.size() - kTailBytes);
        }
    }

    bool poll() {
        if (reaped) return false;
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD)) {
            reaped = true;
            forget_child(pid);
            if (r == pid) ended_how = describe_status(status);
            return false;
        }
        return true;
    }
};

ServerProcess::ServerProcess(std::vector<std::string> argv, std::string log_path,
                             std::vector<pid_t> untouchable)
    : impl_(std::make_unique<Impl>()) {
    auto& d = *impl_;
    d.argv = std::move(argv);
    d.log_path = std::move(log_path);
    d.untouchable = std::move(untouchable);

    std::ofstream log(d.log_path, std::ios::app | std::ios::binary);
    if (!log) throw Error(ErrorCategory::Io, "cannot open the server log " + d.log_path);
    log << "\n=== bi-run launch " << io::utc_timestamp() << ": " << quote_argv(d.argv) << "\n";
    log.flush();

    // setpriv sets the parent-death signal and then execs the server, so a killed driver can
    // never leave the server behind.
    std::string command = d.argv.front();
    Poco::Process::Args args(d.argv.begin() + 1, d.argv.end());
    if (::access(kSetpriv, X_OK) == 0) {
        d.pdeathsig = true;
        args.insert(args.begin(), {"--pdeathsig", "KILL", "--", command});
        command = kSetpriv;
    }
    try {
        Poco::ProcessHandle handle =
            Poco::Process::launch(command, args, nullptr, &d.output, &d.output);
        d.pid = handle.id();
    } catch (const Poco::Exception& e) {
        throw Error(ErrorCategory::Server,
                    "cannot start " + d.argv.front() + ": " + e.displayText());
    }
    register_child(d.pid);
    d.reader = std::thread([&d, log = std::move(log)]() mutable { d.pump(std::move(log)); });
}

ServerProcess::~ServerProcess() {
    try {
        terminate();
    } catch (...) {
    }
    if (impl_->reader.joinable()) impl_->reader.join();
}

pid_t ServerProcess::pid() const {
    return impl_->pid;
}
const std::vector<std::string>& ServerProcess::argv() const {
    return impl_->argv;
}
const std::string& ServerProcess::log_path() const {
    return impl_->log_path;
}
bool ServerProcess::under_parent_death_signal() const {
    return impl_->pdeathsig;
}

bool ServerProcess::alive() {
    return impl_->poll();
}

std::string ServerProcess::log_tail(std::size_t max_lines) const {
    std::string tail;
    {
        std::lock_guard<std::mutex> lock(impl_->tail_mutex);
        tail = impl_->tail;
    }
    while (!tail.empty() && tail.back() == '\n') tail.pop_back();
    std::size_t lines = 0, start = tail.size();
    while (start > 0 && lines < max_lines) {
        start = tail.rfind('\n', start - 1);
        if (start == std::string::npos) {
            start = 0;
            break;
        }
        ++lines;
    }
    return tail.substr(start == 0 ? 0 : start + 1);
}

std::string ServerProcess::death_report() {
    if (alive()) return "";
    // Give the reader a moment to drain what the process wrote before it died.
    if (impl_->reader.joinable()) impl_->reader.join();
    std::string report = impl_->ended_how.empty() ? "the process is gone" : impl_->ended_how;
    if (WIFEXITED(impl_->status) && WEXITSTATUS(impl_->status) == 72)
        report += " (the binary could not be executed)";
    const std::string tail = log_tail(12);
    if (!tail.empty()) report += "; last lines of " + impl_->log_path + ":\n" + tail;
    return report;
}

std::string ServerProcess::terminate(std::chrono::milliseconds grace) {
    auto& d = *impl_;
    if (!d.poll()) return d.ended_how;
    if (!d.touchable())
        throw Error(ErrorCategory::Guard,
                    "refusing to signal untouchable PID " + std::to_string(d.pid));
    ::kill(d.pid, SIGTERM);
    const auto give_up = std::chrono::steady_clock::now() + grace;
    auto pause = std::chrono::milliseconds(1);
    while (d.poll()) {
        if (std::chrono::steady_clock::now() >= give_up) {
            ::kill(d.pid, SIGKILL);
            ::waitpid(d.pid, &d.status, 0);
            d.reaped = true;
            forget_child(d.pid);
            d.ended_how = "killed with SIGKILL after ignoring SIGTERM for " +
                          std::to_string(grace.count()) + " ms";
            break;
        }
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(20));
    }
    // The child is gone, so its output has reached end of file: note how it ended.
    if (d.reader.joinable()) d.reader.join();
    std::ofstream(d.log_path, std::ios::app)
        << "=== bi-run teardown " << io::utc_timestamp() << ": " << d.ended_how << "\n";
    return d.ended_how;
}

}  // namespace bi::server
