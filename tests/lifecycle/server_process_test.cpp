// ServerProcess owns the whole tree it starts: shell scripts as servers that fork, setsid and
// ignore SIGTERM, each checked for what terminate() reports, how long it took and, by PID,
// that nothing they started is left.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "processes.hpp"
#include "scratch_dir.hpp"
#include "server/process_tree.hpp"
#include "server/server_process.hpp"
#include "server/spawned_children.hpp"
#include "wait_until.hpp"

using namespace bi;
using std::chrono::milliseconds;

namespace {

using bi::testing::process_exists;
using bi::testing::read_pid;

// A server that is a shell script; `script` runs with $D set to the scratch directory.
server::ServerProcess shell_server(const testing::ScratchDir& dir, const std::string& script,
                                   std::vector<pid_t> untouchable = {}) {
    return server::ServerProcess({"/bin/sh", "-c", "D='" + dir.path() + "'; " + script},
                                 dir.file("server.log"), std::move(untouchable));
}

// Both descendants of the script: one in a session of its own, one in the server's group.
const std::string kTwoSleepers =
    "setsid sleep 1000 & echo $! > \"$D/p1\"; sleep 1000 & echo $! > \"$D/p2\"; "
    "echo ready > \"$D/ready\"; wait";

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("terminate ends the server and every process it started, setsid or not",
          "[server_process]") {
    testing::ScratchDir dir;
    auto server = shell_server(dir, kTwoSleepers);
    REQUIRE(testing::wait_until([&] { return !testing::read_text(dir.file("ready")).empty(); }));
    const pid_t p1 = read_pid(dir.file("p1")), p2 = read_pid(dir.file("p2"));
    REQUIRE(process_exists(p1));
    REQUIRE(process_exists(p2));
    const auto start = std::chrono::steady_clock::now();
    const std::string how = server.terminate(milliseconds(20000));
    CHECK(seconds_since(start) < 10.0);  // SIGTERM was enough: no grace spent
    CHECK_THAT(how, Catch::Contains("killed by signal 15") &&
                        Catch::Contains("2 other process(es) it started ended too"));
    CHECK_FALSE(server.alive());
    CHECK_FALSE(process_exists(p1));  // reaped, not zombies
    CHECK_FALSE(process_exists(p2));
    CHECK_THAT(testing::read_text(dir.file("server.log")), Catch::Contains("=== bi-run teardown"));
}

TEST_CASE("a tree that ignores SIGTERM is killed after the grace", "[server_process]") {
    testing::ScratchDir dir;
    auto server = shell_server(dir, "trap '' TERM; " + kTwoSleepers);
    REQUIRE(testing::wait_until([&] { return !testing::read_text(dir.file("ready")).empty(); }));
    const pid_t p1 = read_pid(dir.file("p1")), p2 = read_pid(dir.file("p2"));
    const std::string how = server.terminate(milliseconds(300));
    CHECK_THAT(how, Catch::Contains("killed with SIGKILL after ignoring SIGTERM for 300 ms"));
    CHECK_FALSE(process_exists(p1));
    CHECK_FALSE(process_exists(p2));
    CHECK_FALSE(process_exists(server.pid()));
}

TEST_CASE("a server that goes on SIGTERM while a descendant ignores it: both are reported",
          "[server_process]") {
    testing::ScratchDir dir;
    auto server = shell_server(dir,
                               "(trap '' TERM; echo ready > \"$D/ready\"; exec sleep 1000) & "
                               "echo $! > \"$D/p1\"; wait");
    // "ready" comes from the subshell once it ignores SIGTERM.
    REQUIRE(testing::wait_until([&] { return !testing::read_text(dir.file("ready")).empty(); }));
    REQUIRE(testing::wait_until([&] { return read_pid(dir.file("p1")) > 0; }));
    const pid_t p1 = read_pid(dir.file("p1"));
    const std::string how = server.terminate(milliseconds(300));
    CHECK_THAT(how, Catch::StartsWith("killed by signal 15") &&
                        Catch::Contains("the rest of its tree killed with SIGKILL after ignoring "
                                        "SIGTERM for 300 ms"));
    CHECK_FALSE(process_exists(p1));
}

TEST_CASE("kill_now skips the rest of the grace", "[server_process]") {
    testing::ScratchDir dir;
    auto server = shell_server(dir, "trap '' TERM; " + kTwoSleepers);
    REQUIRE(testing::wait_until([&] { return !testing::read_text(dir.file("ready")).empty(); }));
    const pid_t p1 = read_pid(dir.file("p1"));
    std::atomic<bool> kill_now{false}, terminating{false};
    std::thread second_signal([&] {
        testing::wait_until([&] { return terminating.load(); });
        kill_now.store(true);  // the second interrupt, while the grace runs
    });
    const auto start = std::chrono::steady_clock::now();
    terminating.store(true);
    const std::string how = server.terminate(milliseconds(600000), &kill_now);
    second_signal.join();
    CHECK(seconds_since(start) < 60.0);
    CHECK_THAT(how, Catch::Contains("killed with SIGKILL at once"));
    CHECK_FALSE(process_exists(p1));
}

TEST_CASE("a descendant that keeps the output pipe open blocks neither death_report nor teardown",
          "[server_process]") {
    testing::ScratchDir dir;
    auto server =
        shell_server(dir, "setsid sleep 1000 & echo $! > \"$D/p1\"; echo 'going away'; exit 4");
    REQUIRE(testing::wait_until([&] { return !server.alive(); }));
    const auto start = std::chrono::steady_clock::now();
    const std::string report = server.death_report();
    CHECK(seconds_since(start) < 10.0);
    CHECK_THAT(report, Catch::Contains("exited with status 4") && Catch::Contains("going away"));
    const pid_t p1 = read_pid(dir.file("p1"));
    REQUIRE(process_exists(p1));  // the orphan, re-parented to us
    const std::string how = server.terminate(milliseconds(20000));
    CHECK(seconds_since(start) < 15.0);
    CHECK_THAT(how, Catch::Contains("1 other process(es) it started ended too"));
    CHECK_FALSE(process_exists(p1));
    CHECK_THAT(testing::read_text(dir.file("server.log")), Catch::Contains("going away"));
}

TEST_CASE("a binary that cannot be executed is reported, not hidden", "[server_process]") {
    testing::ScratchDir dir;
    const std::string missing = dir.file("no-such-server");
    try {
        server::ServerProcess server({missing}, dir.file("server.log"));
        // Through setpriv the exec fails in the child: it exits 127 and says why.
        REQUIRE(testing::wait_until([&] { return !server.alive(); }));
        CHECK_THAT(server.death_report(), Catch::Contains("exited with status 127") &&
                                              Catch::Contains("could not execute"));
    } catch (const Error& e) {
        CHECK_THAT(e.what(), Catch::Contains("cannot start " + missing));
    }
}

TEST_CASE("a launched process that would get an untouchable PID never starts", "[server_process]") {
    testing::ScratchDir dir;
    // The next PIDs the kernel hands out: the forked child gets one of them.
    std::vector<pid_t> next;
    const pid_t now = ::getpid();
    for (pid_t p = now + 1; p < now + 4000; ++p) next.push_back(p);
    try {
        auto server = shell_server(dir, "echo started > \"$D/started\"; sleep 1000", next);
        // PIDs wrapped around past our range: nothing to check here.
        WARN("the server got PID " << server.pid() << ", outside the range");
    } catch (const Error& e) {
        CHECK(e.category() == ErrorCategory::Guard);
        CHECK_THAT(e.what(), Catch::Contains("which --untouchable-pid names") &&
                                 Catch::Contains("nothing signalled"));
        CHECK(testing::read_text(dir.file("started")).empty());
    }
}

TEST_CASE("an orphan adopted by bi-run belongs to the tree whatever marks it shed",
          "[server_process]") {
    const pid_t self = ::getpid();
    // Synthetic /proc rows: PIDs far above any real one, so no environment is ever read.
    const pid_t server = 999'000'001, adopted = 999'000'002, spawned = 999'000'003,
                stranger = 999'000'004, adopted_child = 999'000'005;
    std::vector<server::ProcessEntry> all = {
        {server, self, server, 'S', 1},    // the launched server, its own group
        {adopted, self, adopted, 'S', 2},  // re-parented to us, own session, no marks
        {spawned, self, spawned, 'S', 3},  // something else we started (a plugin host)
        {stranger, 1, stranger, 'S', 4},   // not ours at all
        {adopted_child, adopted, adopted, 'S', 5},
    };
    server::note_spawned_child(server);
    server::note_spawned_child(spawned);
    const auto tree = server::server_tree(all, {server, server, ""});
    std::vector<pid_t> pids;
    for (const auto& e : tree) pids.push_back(e.pid);
    std::sort(pids.begin(), pids.end());
    CHECK(pids == std::vector<pid_t>{server, adopted, adopted_child});
}
