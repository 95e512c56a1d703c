#include "live_launcher.hpp"

#include "core/error.hpp"
#include "interrupt.hpp"
#include "io/file_hash_cache.hpp"
#include "readiness.hpp"
#include "server/command_output.hpp"
#include "server/server_process.hpp"

namespace bi::driver {

namespace {

class LiveHandle : public ServerHandle {
public:
    LiveHandle(std::vector<std::string> argv, std::vector<std::string> env,
               const LiveServerConfig& config, std::string binary_sha256,
               std::optional<std::string> version_text, std::uint16_t port)
        : process_(std::move(argv), config.log_path, config.limits.untouchable_pids, env),
          env_(std::move(env)),
          grace_(config.grace),
          binary_sha256_(std::move(binary_sha256)),
          version_text_(std::move(version_text)),
          port_(port) {}
    // The error and interrupt paths end here too: the same grace, and a second signal hurries it.
    ~LiveHandle() override {
        try {
            shutdown();
        } catch (...) {
        }
    }

    ServerAddress address() const override { return {"127.0.0.1", port_}; }
    bool alive() override { return process_.alive(); }
    std::string death_report() override { return process_.death_report(); }
    core::ServerLaunch describe() const override {
        core::ServerLaunch launch;
        launch.binary = process_.argv().front();
        launch.binary_sha256 = binary_sha256_;
        launch.version_text = version_text_;
        launch.argv = process_.argv();
        if (!env_.empty()) launch.env = env_;
        launch.pid = static_cast<std::int64_t>(process_.pid());
        launch.port = static_cast<std::int64_t>(port_);
        launch.log = process_.log_path();
        launch.parent_death_signal = process_.under_parent_death_signal();
        return launch;
    }
    void shutdown() override { process_.terminate(grace_, &kill_now_flag()); }

private:
    server::ServerProcess process_;
    std::vector<std::string> env_;
    std::chrono::milliseconds grace_;
    std::string binary_sha256_;
    std::optional<std::string> version_text_;
    std::uint16_t port_;
};

// The binary's own version text (llama-server's `--version` prints its build and exits),
// trimmed; none when the kind has no version command.
std::optional<std::string> version_text_of(const std::string& binary,
                                           const std::vector<std::string>& version_argv) {
    if (version_argv.empty()) return std::nullopt;
    std::vector<std::string> argv{binary};
    argv.insert(argv.end(), version_argv.begin(), version_argv.end());
    auto text = server::command_output(argv, std::chrono::seconds(5));
    if (!text) return std::nullopt;
    while (!text->empty() && (text->back() == '\n' || text->back() == '\r')) text->pop_back();
    return text;
}

}  // namespace

std::string file_sha256(const std::string& path) {
    try {
        return io::stream_file_sha256(path);
    } catch (const Error&) {
        return "";
    }
}

LiveLauncher::LiveLauncher(LiveServerConfig config)
    : config_(std::move(config)),
      binary_sha256_(file_sha256(config_.command.binary)),
      version_text_(
          version_text_of(config_.command.binary, config_.command.kind.identity.version_argv)) {}

std::unique_ptr<ServerHandle> LiveLauncher::launch(int parallel, std::int64_t ctx_total,
                                                   core::PromptCache cache) {
    throw_if_interrupted();  // a signal at any moment before this stops the run from launching
    std::uint16_t port = 0;
    if (config_.port) {
        server::check_port(*config_.port, config_.limits);
        port = *config_.port;
    } else {
        port = server::pick_free_port(config_.limits);
    }
    auto argv = server::build_argv(config_.command, parallel, ctx_total, port, cache);
    auto env = server::build_env(config_.command, parallel, ctx_total, port);
    auto handle = std::make_unique<LiveHandle>(std::move(argv), std::move(env), config_,
                                               binary_sha256_, version_text_, port);
    LiveHandle& h = *handle;
    // On any failure the handle's destructor stops the process before the error leaves here.
    wait_until_ready(
        {"127.0.0.1", port}, config_.ready_timeout, [&h] { return h.alive(); },
        [&h] { return h.death_report(); }, config_.max_response_bytes,
        config_.command.kind.launch.ready_path);
    return handle;
}

}  // namespace bi::driver
