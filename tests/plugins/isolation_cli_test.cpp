// Plugins that crash, abort, overflow their stack, exit(0), hang or garble their channel, run
// through the real bi-run: each ends the run with exit 1 and one line naming the plugin, the call
// and the test id, writes no cert, leaves an existing cert alone and leaves no process behind.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "fixture_path.hpp"
#include "io/files.hpp"
#include "scratch_dir.hpp"
#include "wait_until.hpp"

extern char** environ;

using bi::testing::fixture;
using bi::testing::read_text;
using bi::testing::ScratchDir;
using bi::testing::wait_until;

namespace {

constexpr const char* kCertName = "bi-mock__ctx2048__N4.json";
constexpr const char* kMarkerKey = "BI_ISOLATION_TEST_MARK=";

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// The pids of live processes whose environment holds `marker` (bi-run passes its environment to
// the plugin host, so this finds bi-run, its helper and anything either left behind).
std::vector<pid_t> processes_marked(const std::string& marker) {
    std::vector<pid_t> found;
    DIR* proc = ::opendir("/proc");
    if (!proc) return found;
    while (const dirent* entry = ::readdir(proc)) {
        const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
        if (pid <= 0) continue;
        std::ifstream in(std::string("/proc/") + entry->d_name + "/environ", std::ios::binary);
        const std::string environment((std::istreambuf_iterator<char>(in)),
                                      std::istreambuf_iterator<char>());
        if (contains(environment, marker)) found.push_back(pid);
    }
    ::closedir(proc);
    return found;
}

// bi-run has ended and killed what it started; a process killed on a loaded machine takes a
// moment to go, so its absence is waited for (bounded), not sampled once.
bool none_left(const std::string& marker) {
    return wait_until([&marker] { return processes_marked(marker).empty(); },
                      std::chrono::milliseconds(5000));
}

// bi-run started with a unique marker in its environment and its output in files.
class BiRun {
public:
    BiRun(std::vector<std::string> args, const ScratchDir& scratch)
        : marker_(std::string(kMarkerKey) + std::to_string(::getpid()) + "-" +
                  std::to_string(++counter_)),
          err_path_(scratch.file("bi-run.err")) {
        args.insert(args.begin(), BI_RUN_EXE);
        std::vector<char*> argv;
        for (auto& arg : args) argv.push_back(arg.data());
        argv.push_back(nullptr);
        std::vector<std::string> env_text = {marker_};
        for (char** e = environ; *e; ++e) env_text.emplace_back(*e);
        std::vector<char*> envp;
        for (auto& entry : env_text) envp.push_back(entry.data());
        envp.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        const std::string out_path = scratch.file("bi-run.out");
        posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&actions, 2, err_path_.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data()) != 0)
            pid_ = -1;
        posix_spawn_file_actions_destroy(&actions);
    }
    ~BiRun() {
        if (pid_ > 0 && !exited_) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }

    pid_t pid() const { return pid_; }
    const std::string& marker() const { return marker_; }
    std::string err() const { return read_text(err_path_); }

    // The exit code (128 + signal when killed), or -1 when it did not end within `timeout`.
    int wait(std::chrono::milliseconds timeout = bi::testing::kDefaultWait) {
        if (exited_) return code_;
        int status = 0;
        const bool ended =
            wait_until([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, timeout);
        if (!ended) return -1;
        exited_ = true;
        code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return code_;
    }

private:
    static inline int counter_ = 0;
    std::string marker_;
    std::string err_path_;
    pid_t pid_ = -1;
    bool exited_ = false;
    int code_ = -1;
};

std::string small_workset(const ScratchDir& scratch) {
    return scratch.write("ws.json",
                         R"([{"family": "sums", "prompt": "2 + 2?", "expected_answer": "4"},
 {"family": "sums", "prompt": "3 + 3?", "expected_answer": "6"}])");
}

std::vector<std::string> run_mock_args(const std::string& fault, const ScratchDir& scratch,
                                       const std::string& out_dir) {
    return {"run-mock",
            "--out-dir",
            out_dir,
            "--plugin",
            fixture("faulty_" + fault),
            "--scorer",
            "faulty",
            "--workset",
            small_workset(scratch),
            "--passes",
            "1",
            "--n-predict",
            "4",
            "--quiet"};
}

struct Fault {
    const char* name;
    const char* what;  // the heart of the expected message
};

}  // namespace

TEST_CASE("a plugin that crashes, exits or garbles in score() ends the run with one line",
          "[isolation]") {
    const Fault fault = GENERATE(Fault{"segv", "score() crashed (signal 11, "},
                                 Fault{"fork", "score() crashed (signal 11, "},
                                 Fault{"abort", "score() crashed (signal 6, "},
                                 Fault{"stack", "score() crashed (signal 11, "},
                                 Fault{"exit0", "score() exited the plugin host with status 0"},
                                 Fault{"garbage", "score() sent a message of "},
                                 Fault{"huge", "score() returned "});
    CAPTURE(fault.name);
    const ScratchDir scratch;
    const std::string fresh = scratch.file("fresh");
    const std::string kept = scratch.file("kept");
    std::filesystem::create_directories(kept);
    const std::string precious = scratch.write("kept/" + std::string(kCertName), "precious\n");

    for (const auto& out_dir : {fresh, kept}) {
        BiRun run(run_mock_args(fault.name, scratch, out_dir), scratch);
        REQUIRE(run.pid() > 0);
        CHECK(run.wait() == 1);
        const std::string err = run.err();
        CAPTURE(err);
        const std::string line = "bi-run run-mock: plugin " +
                                 fixture("faulty_" + std::string(fault.name)) + ": " + fault.what;
        CHECK(contains(err, line));
        CHECK(contains(err, " on test bi-mock|2048|sums|"));
        // One line of error: the plugin's own log line may come before it, nothing after.
        CHECK(err.substr(err.find(line)).find('\n') == err.size() - err.find(line) - 1);
        CHECK(none_left(run.marker()));
    }
    CHECK_FALSE(std::filesystem::exists(fresh + "/" + kCertName));
    CHECK(read_text(precious) == "precious\n");
    // Nothing but the precious file, and the empty guard every locked directory keeps.
    std::vector<std::string> left;
    for (const auto& entry : std::filesystem::directory_iterator(kept))
        if (entry.path().filename() != bi::io::kLockGuardName)
            left.push_back(entry.path().filename().string());
    CHECK(left == std::vector<std::string>{std::filesystem::path(precious).filename().string()});
}

TEST_CASE("a plugin that hangs in score() is killed after --plugin-timeout", "[isolation]") {
    const ScratchDir scratch;
    const std::string out_dir = scratch.file("out");
    auto args = run_mock_args("loop", scratch, out_dir);
    args.insert(args.end(), {"--plugin-timeout", "1"});
    BiRun run(args, scratch);
    CHECK(run.wait() == 1);
    const std::string err = run.err();
    CHECK(contains(err, "bi-run run-mock: plugin " + fixture("faulty_loop") +
                            ": score() did not return within 1 s (--plugin-timeout) on test "
                            "bi-mock|2048|sums|"));
    CHECK_FALSE(std::filesystem::exists(out_dir + "/" + kCertName));
    CHECK(none_left(run.marker()));
}

TEST_CASE("SIGINT ends a run stuck in a hung plugin call promptly", "[isolation]") {
    const ScratchDir scratch;
    const std::string out_dir = scratch.file("out");
    auto args = run_mock_args("loop", scratch, out_dir);
    args.insert(args.end(), {"--plugin-timeout", "600"});
    BiRun run(args, scratch);
    // The fixture logs as it enters score(); then bi-run and its plugin host are both there.
    REQUIRE(wait_until([&] { return contains(run.err(), "faulty score() begins"); }));
    CHECK(processes_marked(run.marker()).size() == 2);
    ::kill(run.pid(), SIGINT);
    CHECK(run.wait(std::chrono::seconds(10)) == 130);
    CHECK(contains(run.err(), "interrupted"));
    CHECK_FALSE(std::filesystem::exists(out_dir + "/" + kCertName));
    CHECK(none_left(run.marker()));
}

TEST_CASE("a plugin that crashes in generate() ends the run with one line", "[isolation]") {
    const ScratchDir scratch;
    const std::string out_dir = scratch.file("out");
    BiRun run({"run-mock", "--out-dir", out_dir, "--plugin", fixture("faulty_segv_generate"),
               "--generator", "faulty-gen", "--passes", "1", "--quiet"},
              scratch);
    CHECK(run.wait() == 1);
    CHECK(run.err() == "bi-run run-mock: plugin " + fixture("faulty_segv_generate") +
                           ": generate() crashed (signal 11, Segmentation fault)\n");
    CHECK_FALSE(std::filesystem::exists(out_dir + "/" + kCertName));
    CHECK(none_left(run.marker()));

    BiRun workset(
        {"workset", "--plugin", fixture("faulty_segv_generate"), "--generator", "faulty-gen"},
        scratch);
    CHECK(workset.wait() == 1);
    CHECK(contains(workset.err(), "generate() crashed (signal 11, "));
}

TEST_CASE("a plugin whose entry point segfaults is a clear error, not a crash", "[isolation]") {
    const ScratchDir scratch;
    BiRun plugins({"plugins", "--plugin", fixture("faulty_segv_entry")}, scratch);
    CHECK(plugins.wait() == 1);
    CHECK(plugins.err() == "bi-run plugins: plugin " + fixture("faulty_segv_entry") +
                               ": load() crashed (signal 11, Segmentation fault)\n");
    CHECK(none_left(plugins.marker()));

    const std::string out_dir = scratch.file("out");
    BiRun run(
        {"run-mock", "--out-dir", out_dir, "--plugin", fixture("faulty_segv_entry"), "--quiet"},
        scratch);
    CHECK(run.wait() == 1);
    CHECK(contains(run.err(), "load() crashed (signal 11, "));
    CHECK_FALSE(std::filesystem::exists(out_dir));
}

TEST_CASE("a --plugin-timeout out of range is refused, naming the option", "[isolation]") {
    const ScratchDir scratch;
    for (const char* bad : {"0", "-1", "1e9"}) {
        BiRun run({"plugins", std::string("--plugin-timeout=") + bad}, scratch);
        CHECK(run.wait() == 2);
        CHECK(contains(run.err(), "--plugin-timeout"));
    }
}
