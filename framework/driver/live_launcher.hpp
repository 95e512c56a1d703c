// run-live's launcher: one real server process per arm group, on 127.0.0.1, PID-scoped.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "http/response_limit.hpp"
#include "server/argv.hpp"
#include "server/guards.hpp"
#include "server_handle.hpp"

namespace bi::driver {

struct LiveServerConfig {
    server::ServerCommand command;
    server::GuardLimits limits;
    std::optional<std::uint16_t> port;  // absent: a free port per launch
    std::string log_path;               // appended to by every launch
    std::chrono::milliseconds ready_timeout = std::chrono::minutes(10);  // the whole wait
    std::size_t max_response_bytes = http::kDefaultMaxResponseBytes;     // of each /health answer
    std::chrono::milliseconds grace = std::chrono::seconds(10);
};

class LiveLauncher : public ServerLauncher {
public:
    explicit LiveLauncher(LiveServerConfig config);
    std::unique_ptr<ServerHandle> launch(int parallel, std::int64_t ctx_total,
                                         core::PromptCache cache) override;
    bool launches_real_binary() const override { return true; }

private:
    LiveServerConfig config_;
    std::string binary_sha256_;
    std::optional<std::string> version_text_;
};

// sha256 of a whole file, streamed; empty when unreadable.
std::string file_sha256(const std::string& path);

}  // namespace bi::driver
