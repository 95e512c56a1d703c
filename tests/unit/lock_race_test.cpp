// Many processes taking over one stale lock at once. The file-system calls a take-over makes are
// slowed here (this executable's rename, link and unlink stand in front of the C library's for
// lock files while g_slow_lock_files is set), so that the moments between judging a lock stale
// and replacing it are wide enough for every interleaving to happen.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "io/files.hpp"
#include "lock_helpers.hpp"
#include "scratch_dir.hpp"

using namespace bi;

namespace {

bool g_slow_lock_files = false;

bool is_lock_file(const char* path) {
    const std::size_t n = std::strlen(path);
    return g_slow_lock_files && n > 5 && std::strstr(path, ".lock") != nullptr;
}

// 0 to 4 ms, different in every taker: the interleavings vary from round to round.
void pause_a_little() {
    static unsigned state = static_cast<unsigned>(::getpid()) * 2654435761u;
    state = state * 1103515245u + 12345u;
    std::this_thread::sleep_for(std::chrono::microseconds((state >> 8) % 4000));
}

template <typename F>
F next_symbol(const char* name) {
    return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

using testing::dead_pid;
using testing::unix_now;

}  // namespace

// Each takes effect, then waits: whatever another taker does next sees the changed name.
extern "C" int rename(const char* from, const char* to) {
    static const auto real = next_symbol<int (*)(const char*, const char*)>("rename");
    const int result = real(from, to);
    if (is_lock_file(from)) pause_a_little();
    return result;
}

extern "C" int link(const char* from, const char* to) {
    static const auto real = next_symbol<int (*)(const char*, const char*)>("link");
    if (is_lock_file(to)) pause_a_little();
    return real(from, to);
}

// Reading a lock file (its holder) is the moment before a taker judges it.
extern "C" ssize_t pread(int fd, void* buffer, size_t size, off_t offset) {
    static const auto real = next_symbol<ssize_t (*)(int, void*, size_t, off_t)>("pread");
    const ssize_t result = real(fd, buffer, size, offset);
    if (g_slow_lock_files) pause_a_little();
    return result;
}

extern "C" int unlink(const char* path) {
    static const auto real = next_symbol<int (*)(const char*)>("unlink");
    const int result = real(path);
    if (is_lock_file(path)) pause_a_little();
    return result;
}

TEST_CASE("many processes racing to take over one stale lock: exactly one holds it",
          "[sweep-plan][lock]") {
    testing::ScratchDir dir;
    const auto path = dir.file("raced.lock");
    const auto host = io::lock_host_name();
    constexpr int kTakers = 6;
    for (int round = 0; round < 12; ++round) {
        INFO("round " << round);
        g_slow_lock_files = true;
        dir.write("raced.lock", "host=" + host + "\npid=" + std::to_string(dead_pid()) +
                                    "\npid_start=1\nstart=" + std::to_string(unix_now()) + "\n");
        int go[2], answers[2], done[2];
        REQUIRE(::pipe(go) == 0);
        REQUIRE(::pipe(answers) == 0);
        REQUIRE(::pipe(done) == 0);
        std::vector<pid_t> takers;
        for (int i = 0; i < kTakers; ++i) {
            const pid_t child = ::fork();
            REQUIRE(child >= 0);
            if (child == 0) {
                ::close(go[1]);
                ::close(answers[0]);
                ::close(done[1]);
                char byte = 0;
                if (::read(go[0], &byte, 1) < 0) ::_exit(1);  // all start when the parent says so
                std::string holder;
                char taken = 'n';
                std::unique_ptr<io::FileLock> lock;
                try {
                    lock = io::FileLock::try_lock(path, holder);
                    taken = lock ? 'y' : 'n';
                } catch (...) {
                    taken = 'e';
                }
                if (::write(answers[1], &taken, 1) != 1) ::_exit(1);
                if (::read(done[0], &byte, 1) < 0) ::_exit(1);  // hold it until all have answered
                lock.reset();
                ::_exit(0);
            }
            takers.push_back(child);
        }
        ::close(go[0]);
        ::close(answers[1]);
        ::close(done[0]);
        ::close(go[1]);  // EOF: all start at once
        std::string said;
        char byte = 0;
        while (said.size() < kTakers && ::read(answers[0], &byte, 1) == 1) said += byte;
        ::close(done[1]);
        for (const pid_t child : takers) {
            int status = 0;
            ::waitpid(child, &status, 0);
        }
        ::close(answers[0]);
        g_slow_lock_files = false;
        CHECK(said.size() == kTakers);
        CHECK(std::count(said.begin(), said.end(), 'y') == 1);
        CHECK(std::count(said.begin(), said.end(), 'e') == 0);
        CHECK_FALSE(std::filesystem::exists(path));  // the holder released it
    }
}
