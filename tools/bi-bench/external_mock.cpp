#include "external_mock.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "process_usage.hpp"
#include "server/server_process.hpp"

namespace bi::bench {

namespace {

constexpr auto kStartTimeout = std::chrono::seconds(15);
constexpr auto kPollInterval = std::chrono::milliseconds(10);
constexpr auto kStopGrace = std::chrono::seconds(5);
constexpr const char* kListeningMarker = "listening on http://127.0.0.1:";

std::string directory_of_this_executable() {
    std::vector<char> buffer(4096);
    const ssize_t n = ::readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
    if (n <= 0) return ".";
    std::string path(buffer.data(), static_cast<std::size_t>(n));
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

// A fresh, empty file for the server's output; the process appends to it.
std::string make_log_path() {
    std::string pattern = "/tmp/bi-bench-mock-XXXXXX";
    const int fd = ::mkstemp(pattern.data());
    if (fd < 0) throw Error(ErrorCategory::Io, "bi-bench: cannot create a log file in /tmp");
    ::close(fd);
    return pattern;
}

std::optional<std::uint16_t> port_from_output(const std::string& output) {
    const auto at = output.find(kListeningMarker);
    if (at == std::string::npos) return std::nullopt;
    std::size_t i = at + std::char_traits<char>::length(kListeningMarker);
    long port = 0;
    bool digits = false;
    while (i < output.size() && output[i] >= '0' && output[i] <= '9') {
        port = port * 10 + (output[i++] - '0');
        digits = true;
        if (port > 65535) return std::nullopt;
    }
    if (!digits || port == 0) return std::nullopt;
    return static_cast<std::uint16_t>(port);
}

}  // namespace

std::optional<std::string> find_mock_server_binary(const std::string& given) {
    const std::string path =
        given.empty() ? directory_of_this_executable() + "/bi-mock-server" : given;
    if (::access(path.c_str(), X_OK) == 0) return path;
    return std::nullopt;
}

ExternalMock::ExternalMock(const std::string& binary, int slots, double tick_ms, int ctx_per_slot)
    : log_path_(make_log_path()) {
    std::vector<std::string> argv = {binary,
                                     "--port",
                                     "0",
                                     "-np",
                                     std::to_string(slots),
                                     "-c",
                                     std::to_string(slots * ctx_per_slot),
                                     "--tick-ms",
                                     std::to_string(tick_ms),
                                     "--metrics"};
    try {
        process_ = std::make_unique<server::ServerProcess>(std::move(argv), log_path_);
        const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
        while (true) {
            if (auto port = port_from_output(process_->log_tail(50))) {
                port_ = *port;
                break;
            }
            if (!process_->alive())
                throw Error(ErrorCategory::Server,
                            "bi-bench: " + binary + " ended early: " + process_->death_report());
            if (std::chrono::steady_clock::now() >= deadline)
                throw Error(ErrorCategory::Server,
                            "bi-bench: " + binary + " printed no 'listening on' line in 15 s");
            std::this_thread::sleep_for(kPollInterval);
        }
    } catch (...) {
        process_.reset();
        ::unlink(log_path_.c_str());
        throw;
    }
}

ExternalMock::~ExternalMock() {
    try {
        process_->terminate(std::chrono::duration_cast<std::chrono::milliseconds>(kStopGrace));
    } catch (...) {
        // Teardown is best effort; ServerProcess's destructor tries once more.
    }
    process_.reset();
    ::unlink(log_path_.c_str());
}

pid_t ExternalMock::pid() const {
    return process_->pid();
}

std::optional<double> ExternalMock::cpu_seconds() const {
    return other_process_cpu_seconds(process_->pid());
}

}  // namespace bi::bench
