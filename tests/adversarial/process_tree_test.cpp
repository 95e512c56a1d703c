// bi-run owns every process it starts: fake servers that fork and exit, serve from a grandchild
// (in the server's group or a session of its own), ignore SIGTERM or start slowly, and signals
// sent to bi-run during teardown. Each test checks the exit status, the message, the cert (none,
// or the old one untouched) and that no process of the fake is left, by PID and by scanning /proc
// for the fake's unique marker directory.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fake_cell.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "processes.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"
#include "wait_until.hpp"

using namespace bi;

extern char** environ;

namespace {

using bi::testing::process_exists;
using bi::testing::read_pid;

using clock_type = std::chrono::steady_clock;

std::vector<std::string> dir_entries(const std::string& path, const std::string& prefix) {
    std::vector<std::string> names;
    if (DIR* dir = ::opendir(path.c_str())) {
        while (const dirent* d = ::readdir(dir)) {
            const std::string name = d->d_name;
            if (name.rfind(prefix, 0) == 0) names.push_back(name);
        }
        ::closedir(dir);
    }
    return names;
}

// PIDs from the fake's DIR/start.PID (or term.PID) files.
std::vector<pid_t> marked_pids(const std::string& dir, const std::string& what) {
    std::vector<pid_t> pids;
    for (const auto& name : dir_entries(dir, what + "."))
        pids.push_back(static_cast<pid_t>(std::atoi(name.c_str() + what.size() + 1)));
    return pids;
}

// Live processes whose command line mentions `marker` (zombies have none).
std::vector<pid_t> processes_mentioning(const std::string& marker) {
    std::vector<pid_t> found;
    for (const auto& name : dir_entries("/proc", "")) {
        const int pid = std::atoi(name.c_str());
        if (pid <= 0 || pid == ::getpid()) continue;
        std::string cmdline = testing::read_text("/proc/" + name + "/cmdline");
        for (char& c : cmdline)
            if (c == '\0') c = ' ';
        if (cmdline.find(marker) != std::string::npos) found.push_back(pid);
    }
    return found;
}

// Nothing of the fake is left: not by the PIDs it recorded, not by its marker in /proc.
void check_no_survivors(const std::string& marker_dir) {
    const auto pids = marked_pids(marker_dir, "start");
    CHECK_FALSE(pids.empty());
    for (pid_t pid : pids) {
        INFO("fake process " << pid);
        CHECK(testing::wait_until([&] { return !process_exists(pid); },
                                  std::chrono::milliseconds(5000)));
    }
    CHECK(testing::wait_until([&] { return processes_mentioning(marker_dir).empty(); },
                              std::chrono::milliseconds(5000)));
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

struct FakeRun {
    testing::ScratchDir dir;
    std::string markers = dir.file("markers");
    std::string cert = dir.file("o/m__ctx512__N4.json");
    std::string log = dir.file("o/m__ctx512.server.log");

    FakeRun() { ::mkdir(markers.c_str(), 0755); }

    std::vector<std::string> argv(const std::vector<std::string>& fake,
                                  const std::vector<std::string>& extra) const {
        auto a =
            testing::fake_cell_argv(dir.write("model.gguf", "not really a model"), dir.file("o"));
        a.push_back("--server-flag=--fake-marker-dir=" + markers);
        for (const auto& token : fake) a.push_back("--server-flag=" + token);
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    }

    testing::CommandResult run(const std::vector<std::string>& fake,
                               const std::vector<std::string>& extra = {}) const {
        return testing::run_command(argv(fake, extra));
    }

    // bi-run in the background, its stderr in a file, so a test can signal it mid-run.
    pid_t start(const std::vector<std::string>& fake, const std::vector<std::string>& extra) const {
        const auto a = argv(fake, extra);
        std::vector<char*> args;
        args.reserve(a.size() + 1);
        for (const auto& s : a) args.push_back(const_cast<char*>(s.c_str()));
        args.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        const std::string err = dir.file("stderr");
        posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                         0644);
        pid_t pid = 0;
        const int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        REQUIRE(rc == 0);
        return pid;
    }

    std::string stderr_text() const { return testing::read_text(dir.file("stderr")); }
};

int wait_exit(pid_t pid) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    return WEXITSTATUS(status);
}

// True once `signal_number` is no longer pending for `pid`: bi-run's handler has taken it.
bool signal_taken(pid_t pid, int signal_number) {
    std::istringstream status(testing::read_text("/proc/" + std::to_string(pid) + "/status"));
    const unsigned long long bit = 1ULL << (signal_number - 1);
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("SigPnd:", 0) == 0 || line.rfind("ShdPnd:", 0) == 0)
            if (std::strtoull(line.c_str() + 7, nullptr, 16) & bit) return false;
    return true;
}

double seconds_since(clock_type::time_point start) {
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

}  // namespace

TEST_CASE("a server that forks and exits: exit 1, named, old cert untouched, nothing left",
          "[adversarial][process_tree]") {
    FakeRun fake;
    ::mkdir(fake.dir.file("o").c_str(), 0755);
    io::write_file_atomically(fake.cert, "an older cert\n");
    const auto r = fake.run({"--fake-fork-exit"});
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("exited with status 0"));
    CHECK(io::read_file(fake.cert) == "an older cert\n");
    CHECK(marked_pids(fake.markers, "start").size() == 2);  // the launched process and its child
    check_no_survivors(fake.markers);
}

TEST_CASE("a server that serves from a grandchild: the run completes and nothing is left",
          "[adversarial][process_tree]") {
    const std::string knob = GENERATE(std::string("--fake-grandchild"), "--fake-setsid");
    INFO(knob);
    FakeRun fake;
    const auto r = fake.run({knob});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(io::read_cert(fake.cert).digest_intact);
    // Per server: the launched process, its child (gone at once) and the serving grandchild.
    CHECK(marked_pids(fake.markers, "start").size() == 4);
    CHECK(count(io::read_file(fake.log), "other process(es) it started ended too") == 2);
    check_no_survivors(fake.markers);
}

TEST_CASE("a setsid grandchild that ignores SIGTERM is killed after the grace",
          "[adversarial][process_tree]") {
    FakeRun fake;
    const auto r = fake.run({"--fake-setsid", "--fake-ignore-term"}, {"--shutdown-grace", "1.5"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(count(io::read_file(fake.log),
                "killed with SIGKILL after ignoring SIGTERM for 1500 ms") == 2);
    // Every process of the tree got the SIGTERM it ignored, the setsid one included.
    CHECK(marked_pids(fake.markers, "term").size() == 4);
    check_no_survivors(fake.markers);
}

TEST_CASE("readiness timed out: the server still gets its SIGTERM, no grace is spent",
          "[adversarial][process_tree]") {
    FakeRun fake;
    const auto start = clock_type::now();
    const auto r =
        fake.run({"--fake-slow-start=600"}, {"--ready-timeout", "3", "--shutdown-grace", "120"});
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("not ready after 3 s"));
    CHECK(seconds_since(start) < 60.0);
    CHECK_FALSE(marked_pids(fake.markers, "term").empty());  // its handler saw SIGTERM
    CHECK_FALSE(std::filesystem::exists(fake.cert));
    check_no_survivors(fake.markers);
}

TEST_CASE("a tiny --ready-timeout: the server is stopped at once wherever it was",
          "[adversarial][process_tree]") {
    FakeRun fake;
    const auto start = clock_type::now();
    const auto r = fake.run({"--fake-slow-start=600"},
                            {"--ready-timeout", "0.001", "--shutdown-grace", "120"});
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("not ready after"));
    CHECK(seconds_since(start) < 60.0);
    CHECK_FALSE(std::filesystem::exists(fake.cert));
    CHECK(testing::wait_until([&] { return processes_mentioning(fake.markers).empty(); },
                              std::chrono::milliseconds(5000)));
    for (pid_t pid : marked_pids(fake.markers, "start")) CHECK_FALSE(process_exists(pid));
}

TEST_CASE("a signal during the teardown between the servers: no N-slot server, exit 130",
          "[adversarial][process_tree]") {
    FakeRun fake;
    const pid_t bi_run = fake.start({"--fake-ignore-term"}, {"--shutdown-grace", "2"});
    // The 1-slot server's handler has its SIGTERM: bi-run is in that teardown now.
    CHECK(testing::wait_until([&] { return !marked_pids(fake.markers, "term").empty(); },
                              std::chrono::milliseconds(60000)));
    ::kill(bi_run, SIGINT);
    CHECK(wait_exit(bi_run) == 130);
    CHECK_THAT(fake.stderr_text(), Catch::Contains("interrupted by Interrupt"));
    const std::string log = io::read_file(fake.log);
    CHECK(count(log, "=== bi-run launch") == 1);
    CHECK_THAT(log, Catch::Contains("--parallel 1") && !Catch::Contains("--parallel 4"));
    CHECK_FALSE(std::filesystem::exists(fake.cert));
    check_no_survivors(fake.markers);
}

TEST_CASE("a second SIGINT during teardown kills at once instead of waiting the grace",
          "[adversarial][process_tree]") {
    FakeRun fake;
    const pid_t bi_run = fake.start({"--fake-ignore-term"}, {"--shutdown-grace", "300"});
    CHECK(testing::wait_until([&] { return !marked_pids(fake.markers, "term").empty(); },
                              std::chrono::milliseconds(60000)));
    const auto start = clock_type::now();
    ::kill(bi_run, SIGINT);
    CHECK(testing::wait_until([&] { return signal_taken(bi_run, SIGINT); }));
    ::kill(bi_run, SIGINT);
    CHECK(wait_exit(bi_run) == 130);
    CHECK(seconds_since(start) < 60.0);  // the grace was 300 s
    const std::string log = io::read_file(fake.log);
    CHECK_THAT(log, Catch::Contains("killed with SIGKILL at once (interrupted again)"));
    CHECK(count(log, "=== bi-run launch") == 1);
    CHECK_FALSE(std::filesystem::exists(fake.cert));
    check_no_survivors(fake.markers);
}

TEST_CASE("an interrupt mid-run tears down with --shutdown-grace, not a built-in 10 s",
          "[adversarial][process_tree]") {
    FakeRun fake;
    const pid_t bi_run =
        fake.start({"--fake-ignore-term", "--fake-tick-ms=200"}, {"--shutdown-grace", "1"});
    CHECK(testing::wait_until([&] { return !marked_pids(fake.markers, "start").empty(); }));
    ::kill(bi_run, SIGTERM);
    CHECK(wait_exit(bi_run) == 143);
    CHECK_THAT(io::read_file(fake.log),
               Catch::Contains("killed with SIGKILL after ignoring SIGTERM for 1000 ms"));
    CHECK_FALSE(std::filesystem::exists(fake.cert));
    check_no_survivors(fake.markers);
}

TEST_CASE("an untouchable PID for the server bi-run launches: exit 2, nothing started",
          "[adversarial][process_tree]") {
    FakeRun fake;
    // A fresh PID, then the next few thousand as untouchable: the server's fork lands in them.
    pid_t probe = 0;
    char* true_argv[] = {const_cast<char*>("/bin/true"), nullptr};
    REQUIRE(::posix_spawn(&probe, "/bin/true", nullptr, nullptr, true_argv, environ) == 0);
    ::waitpid(probe, nullptr, 0);
    std::vector<std::string> extra;
    for (pid_t pid = probe + 1; pid < probe + 4000; ++pid)
        extra.push_back("--untouchable-pid=" + std::to_string(pid));
    const auto r = fake.run({}, extra);
    INFO(r.err);
    if (r.exit_code == 0) {
        WARN("PIDs wrapped around: the server's PID was outside the range");
        return;
    }
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("which --untouchable-pid names") &&
                          Catch::Contains("stopped before it started, nothing signalled"));
    CHECK(marked_pids(fake.markers, "start").empty());  // the fake never ran
    CHECK_FALSE(std::filesystem::exists(fake.cert));
    CHECK(processes_mentioning(fake.markers).empty());
}
