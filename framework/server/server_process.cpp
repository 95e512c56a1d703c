#include "server_process.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "argv.hpp"
#include "core/error.hpp"
#include "io/utc_time.hpp"
#include "process_tree.hpp"
#include "spawn.hpp"

namespace bi::server {

namespace {

using clock = std::chrono::steady_clock;

constexpr const char* kSetpriv = "/usr/bin/setpriv";
constexpr const char* kTreeVariable = "BI_RUN_SERVER_TREE";
constexpr std::size_t kTailBytes = std::size_t{16} * 1024;
// After SIGKILL a process is gone within milliseconds unless it is stuck in the kernel.
constexpr auto kAfterKill = std::chrono::seconds(5);

struct Untouchable {
    std::vector<pid_t> pids;
    bool has(pid_t pid) const { return std::find(pids.begin(), pids.end(), pid) != pids.end(); }
    // A signal to the whole group is safe only when no untouchable PID is in it.
    bool group_is_clear(pid_t pgid) const {
        const auto all = scan_processes();
        return std::none_of(all.begin(), all.end(),
                            [&](const ProcessEntry& e) { return e.pgid == pgid && has(e.pid); });
    }
};

// SIGTERM/SIGKILL to the group and to each member; members that are untouchable are skipped.
// The group is signalled only while a member is in it: its id cannot be recycled until then.
void signal_tree(const std::vector<ProcessEntry>& tree, const TreeMarks& marks,
                 const Untouchable& untouchable, int signal_number) {
    const bool group_lives = std::any_of(tree.begin(), tree.end(), [&](const ProcessEntry& e) {
        return e.pgid == marks.pgid && e.state != 'Z';
    });
    if (group_lives && untouchable.group_is_clear(marks.pgid)) ::kill(-marks.pgid, signal_number);
    for (const auto& e : tree)
        if (!untouchable.has(e.pid) && e.state != 'Z') signal_process(e, signal_number);
}

// Every live server tree, so an exit() that skips destructors still ends them (atexit).
struct LiveTree {
    TreeMarks marks;
    Untouchable untouchable;
};
std::mutex g_live_mutex;
std::map<pid_t, LiveTree> g_live;

void end_live_trees() {
    std::lock_guard<std::mutex> lock(g_live_mutex);
    for (const auto& [pid, live] : g_live) {
        const auto tree = server_tree(scan_processes(), live.marks);
        signal_tree(tree, live.marks, live.untouchable, SIGKILL);
        for (const auto& e : tree)
            if (e.ppid == ::getpid() && !live.untouchable.has(e.pid)) ::waitpid(e.pid, nullptr, 0);
    }
    g_live.clear();
}

void register_tree(pid_t pid, LiveTree tree) {
    static std::once_flag once;
    std::call_once(once, [] { std::atexit(end_live_trees); });
    std::lock_guard<std::mutex> lock(g_live_mutex);
    g_live[pid] = std::move(tree);
}

void forget_tree(pid_t pid) {
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

std::string token_for_launch() {
    static std::atomic<unsigned> serial{0};
    return std::string(kTreeVariable) + "=" + std::to_string(::getpid()) + "." +
           std::to_string(++serial);
}

}  // namespace

struct ServerProcess::Impl {
    std::vector<std::string> argv;
    std::string log_path;
    Untouchable untouchable;
    TreeMarks marks;
    bool pdeathsig = false;
    pid_t pid = -1;
    bool reaped = false;
    bool terminated = false;
    int status = 0;
    std::string ended_how;

    int output_fd = -1;
    std::thread reader;
    std::atomic<bool> stop_reading{false};
    std::mutex reader_mutex;
    std::condition_variable reader_done_cv;
    bool reader_done = false;
    mutable std::mutex tail_mutex;
    std::string tail;

    // Copies the tree's output into the log file and keeps the last bytes for error messages.
    // It polls, so a descendant that keeps the pipe open never holds bi-run up: once told to
    // stop it takes what is already there and returns.
    void pump(std::ofstream log) {
        char buffer[4096];
        while (true) {
            const bool last_round = stop_reading.load();
            pollfd p{output_fd, POLLIN, 0};
            const int ready = ::poll(&p, 1, last_round ? 0 : 100);
            if (ready < 0 && errno != EINTR) break;
            bool eof = false;
            // Bounded, so a process that writes without pause cannot keep the reader here.
            for (int round = 0; round < 64; ++round) {
                const ssize_t n = ::read(output_fd, buffer, sizeof buffer);
                if (n == 0) eof = true;
                if (n <= 0) break;
                log.write(buffer, n);
                log.flush();
                std::lock_guard<std::mutex> lock(tail_mutex);
                tail.append(buffer, static_cast<std::size_t>(n));
                if (tail.size() > kTailBytes) tail.erase(0, tail.size() - kTailBytes);
            }
            if (eof || last_round) break;
        }
        std::lock_guard<std::mutex> lock(reader_mutex);
        reader_done = true;
        reader_done_cv.notify_all();
    }

    void wait_for_reader(std::chrono::milliseconds limit) {
        std::unique_lock<std::mutex> lock(reader_mutex);
        reader_done_cv.wait_for(lock, limit, [this] { return reader_done; });
    }

    void stop_reader() {
        stop_reading.store(true);
        if (reader.joinable()) reader.join();
        if (output_fd >= 0) ::close(output_fd);
        output_fd = -1;
    }

    bool poll() {
        if (reaped) return false;
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD)) {
            reaped = true;
            if (r == pid) ended_how = describe_status(status);
            return false;
        }
        return true;
    }

    // Reaps members that are bi-run's children and have exited (the server, adopted orphans).
    void reap_exited(const std::vector<ProcessEntry>& tree) {
        poll();
        for (const auto& e : tree)
            if (e.pid != pid && e.ppid == ::getpid() && e.state == 'Z')
                ::waitpid(e.pid, nullptr, WNOHANG);
    }

    // Members still running (zombies whose parent is a member are gone for our purpose).
    static std::vector<ProcessEntry> running(const std::vector<ProcessEntry>& tree) {
        std::vector<ProcessEntry> live;
        for (const auto& e : tree)
            if (e.state != 'Z') live.push_back(e);
        return live;
    }

    std::string end_tree(std::chrono::milliseconds grace, const std::atomic<bool>* kill_now);
};

std::string ServerProcess::Impl::end_tree(std::chrono::milliseconds grace,
                                          const std::atomic<bool>* kill_now) {
    const auto start = clock::now();
    const auto give_up = start + grace;
    std::map<pid_t, std::uint64_t> seen;  // every member, to count them and say who was left
    std::map<pid_t, std::uint64_t> termed;
    // A member that has exited may have lost what marked it (a zombie has no environment):
    // the ones seen before are still recognised by PID and start time, to be reaped.
    auto scan = [&] {
        const auto all = scan_processes();
        auto tree = server_tree(all, marks);
        for (const auto& e : tree) seen.emplace(e.pid, e.start_ticks);
        for (const auto& e : all) {
            const auto it = seen.find(e.pid);
            const bool listed = std::any_of(tree.begin(), tree.end(),
                                            [&](const ProcessEntry& t) { return t.pid == e.pid; });
            if (!listed && it != seen.end() && it->second == e.start_ticks && e.ppid == ::getpid())
                tree.push_back(e);
        }
        return tree;
    };
    auto tree = scan();
    signal_tree(tree, marks, untouchable, SIGTERM);
    for (const auto& e : tree) termed.emplace(e.pid, e.start_ticks);

    bool killed = false;
    bool hurried = false;
    bool ended_before_kill = false;  // the launched process itself went on SIGTERM (or earlier)
    clock::time_point killed_at;
    auto pause = std::chrono::milliseconds(1);
    std::vector<ProcessEntry> left;
    while (true) {
        reap_exited(tree);
        tree = scan();
        left.clear();
        for (const auto& e : running(tree))
            if (!untouchable.has(e.pid)) left.push_back(e);
        const bool zombies = std::any_of(tree.begin(), tree.end(), [](const ProcessEntry& e) {
            return e.state == 'Z' && e.ppid == ::getpid();
        });
        if (left.empty() && !zombies && !poll()) break;
        const auto now = clock::now();
        if (!killed && (now >= give_up || (kill_now && kill_now->load()))) {
            hurried = now < give_up;
            ended_before_kill = reaped;
            killed = true;
            killed_at = now;
            signal_tree(tree, marks, untouchable, SIGKILL);
        } else if (killed) {
            if (now >= killed_at + kAfterKill) break;
            signal_tree(tree, marks, untouchable, SIGKILL);  // whatever forked meanwhile
        } else {
            // A process the tree started since the last look gets its SIGTERM too.
            for (const auto& e : left)
                if (termed.emplace(e.pid, e.start_ticks).second) signal_process(e, SIGTERM);
        }
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(20));
    }
    std::string how = ended_how.empty() ? "gone" : ended_how;
    if (killed) {
        const std::string kill = hurried ? "killed with SIGKILL at once (interrupted again)"
                                         : "killed with SIGKILL after ignoring SIGTERM for " +
                                               std::to_string(grace.count()) + " ms";
        how = ended_before_kill ? how + "; the rest of its tree " + kill : kill;
    }
    const std::size_t others = seen.size() - seen.count(pid);
    if (others > 0)
        how += "; " + std::to_string(others) + " other process(es) it started ended too";
    for (const auto& e : running(tree))
        if (untouchable.has(e.pid))
            how += "; PID " + std::to_string(e.pid) + " left running (--untouchable-pid)";
    if (!left.empty())
        how += "; " + std::to_string(left.size()) + " process(es) still there after SIGKILL";
    return how;
}

ServerProcess::ServerProcess(std::vector<std::string> argv, std::string log_path,
                             std::vector<pid_t> untouchable, std::vector<std::string> env)
    : impl_(std::make_unique<Impl>()) {
    auto& d = *impl_;
    d.argv = std::move(argv);
    d.log_path = std::move(log_path);
    d.untouchable.pids = std::move(untouchable);

    std::ofstream log(d.log_path, std::ios::app | std::ios::binary);
    if (!log) throw Error(ErrorCategory::Io, "cannot open the server log " + d.log_path);
    log << "\n=== bi-run launch " << io::utc_timestamp() << ": " << quote_argv(env)
        << (env.empty() ? "" : " ") << quote_argv(d.argv) << "\n";
    log.flush();

    // Orphans of the tree come to bi-run instead of init, so teardown can find and reap them.
    become_child_subreaper();
    // setpriv sets the parent-death signal and then execs the server, so a killed driver can
    // never leave the server behind. A bare name is the file in the working directory.
    std::vector<std::string> exec = d.argv;
    if (exec.front().find('/') == std::string::npos) exec.front() = "./" + exec.front();
    if (::access(kSetpriv, X_OK) == 0) {
        d.pdeathsig = true;
        exec.insert(exec.begin(), {kSetpriv, "--pdeathsig", "KILL", "--"});
    }
    d.marks.token = token_for_launch();
    const auto approve = [&d](pid_t pid) {
        if (d.untouchable.has(pid))
            throw Error(ErrorCategory::Guard,
                        "the server process bi-run forked got PID " + std::to_string(pid) +
                            ", which --untouchable-pid names: stopped before it started, "
                            "nothing signalled");
    };
    env.push_back(d.marks.token);  // last: the kind's environment cannot replace the mark
    const SpawnedChild child = spawn_server(exec, env, approve);
    d.pid = child.pid;
    d.output_fd = child.output_fd;
    d.marks.root = child.pid;
    d.marks.pgid = child.pid;
    register_tree(d.pid, {d.marks, d.untouchable});
    d.reader = std::thread([&d, log = std::move(log)]() mutable { d.pump(std::move(log)); });
}

ServerProcess::~ServerProcess() {
    try {
        terminate();
    } catch (...) {
    }
    impl_->stop_reader();
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
    // Give the reader a moment to take what the process wrote before it died; a descendant that
    // still holds the pipe open must not keep us here.
    impl_->wait_for_reader(std::chrono::milliseconds(500));
    std::string report = impl_->ended_how.empty() ? "the process is gone" : impl_->ended_how;
    if (WIFEXITED(impl_->status) &&
        (WEXITSTATUS(impl_->status) == 126 || WEXITSTATUS(impl_->status) == 127) &&
        impl_->pdeathsig)
        report += " (setpriv could not execute the binary)";
    const std::string tail = log_tail(12);
    if (!tail.empty()) report += "; last lines of " + impl_->log_path + ":\n" + tail;
    return report;
}

std::string ServerProcess::terminate(std::chrono::milliseconds grace,
                                     const std::atomic<bool>* kill_now) {
    auto& d = *impl_;
    if (d.terminated) return d.ended_how;
    d.terminated = true;
    d.ended_how = d.end_tree(grace, kill_now);
    forget_tree(d.pid);
    d.stop_reader();
    std::ofstream(d.log_path, std::ios::app)
        << "=== bi-run teardown " << io::utc_timestamp() << ": " << d.ended_how << "\n";
    return d.ended_how;
}

}  // namespace bi::server
