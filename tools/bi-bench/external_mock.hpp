// The built bi-mock-server as a separate process, so client-side CPU can be measured apart from
// the server's. Launched on port 0, its port read from the "listening on" line, stopped by PID.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace bi::server {
class ServerProcess;
}

namespace bi::bench {

// `given` when not empty (it must be an executable file), else bi-mock-server beside this
// executable; nullopt when neither exists.
std::optional<std::string> find_mock_server_binary(const std::string& given);

class ExternalMock {
public:
    // Starts `binary --port 0 -np slots -c slots*ctx_per_slot --tick-ms tick_ms --metrics` and
    // waits (up to 15 s) for its port. Throws bi::Error(Server) when it dies or stays silent.
    ExternalMock(const std::string& binary, int slots, double tick_ms, int ctx_per_slot = 4096);
    ~ExternalMock();  // SIGTERM by PID, SIGKILL after a grace period; removes the log file
    ExternalMock(const ExternalMock&) = delete;
    ExternalMock& operator=(const ExternalMock&) = delete;

    std::uint16_t port() const { return port_; }
    pid_t pid() const;
    // The server's own user + system CPU seconds so far.
    std::optional<double> cpu_seconds() const;

private:
    std::string log_path_;
    std::unique_ptr<server::ServerProcess> process_;
    std::uint16_t port_ = 0;
};

}  // namespace bi::bench
