// bi-mock-server: the mock llama-server as a process. Takes llama-server's command line, prints
// one "listening on" line to stderr, serves until SIGTERM/SIGINT, then exits 0.
#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "mock/mock_server.hpp"
#include "mock/server_argv.hpp"

#ifndef BI_MOCK_SERVER_VERSION
#define BI_MOCK_SERVER_VERSION "0"
#endif

namespace {

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

// Called on a handler thread when --crash-after is reached: die like a crashed server would,
// without flushing or unwinding anything.
void crash_now() {
    static const char kMessage[] = "bi-mock-server: crash-after reached, exiting with status 1\n";
    const ssize_t ignored = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    (void)ignored;
    ::_exit(kExitError);
}

sigset_t stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    return set;
}

}  // namespace

int main(int argc, char** argv) {
    bi::mock::ServerCommandLine line;
    try {
        line = bi::mock::parse_llama_argv(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const bi::Error& e) {
        std::cerr << e.what() << "\n";
        return kExitUsage;
    }
    if (line.help) {
        std::cout << bi::mock::llama_argv_usage();
        return 0;
    }
    if (line.version) {
        std::cout << "version: bi-mock-" << BI_MOCK_SERVER_VERSION << "\n";
        return 0;
    }

    // Block the stop signals before any thread starts so every thread inherits the mask and
    // only sigwait below receives them.
    const sigset_t signals = stop_signals();
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    signal(SIGPIPE, SIG_IGN);

    line.config.on_crash = crash_now;
    try {
        bi::mock::MockServer server(line.config);
        const auto port = server.start();
        std::cerr << "bi-mock-server: listening on http://127.0.0.1:" << port << " ("
                  << line.config.slots << " slots)" << std::endl;
        if (!line.ignored.empty()) {
            std::cerr << "bi-mock-server: ignored flags:";
            for (const auto& flag : line.ignored) std::cerr << " " << flag;
            std::cerr << std::endl;
        }
        int received = 0;
        while (true) {
            if (sigwait(&signals, &received) != 0) continue;
            if (received == SIGTERM && line.ignore_sigterm) {
                std::cerr << "bi-mock-server: ignoring SIGTERM (--ignore-sigterm)" << std::endl;
                continue;
            }
            break;
        }
        server.stop();
        std::cerr << "bi-mock-server: stopped (signal " << received << ")" << std::endl;
        return 0;
    } catch (const bi::Error& e) {
        std::cerr << e.what() << "\n";
        return e.category() == bi::ErrorCategory::Usage ? kExitUsage : kExitError;
    } catch (const std::exception& e) {
        std::cerr << "bi-mock-server: " << e.what() << "\n";
        return kExitError;
    }
}
