#include "mock_launcher.hpp"

#include "mock/mock_server.hpp"
#include "readiness.hpp"

namespace bi::driver {

namespace {

class MockHandle : public ServerHandle {
public:
    explicit MockHandle(mock::MockConfig config) : server_(std::move(config)) { server_.start(); }
    ServerAddress address() const override { return {"127.0.0.1", server_.port()}; }
    bool alive() override { return !stopped_ && !server_.crashed(); }
    std::string death_report() override {
        if (server_.crashed()) return "the mock crashed on purpose (crash-after)";
        return stopped_ ? "the mock was stopped" : "";
    }
    core::ServerLaunch describe() const override {
        const auto& c = server_.config();
        core::ServerLaunch launch;
        launch.binary = "(in-process mock)";
        launch.slots = c.slots;
        launch.n_ctx_per_slot = c.n_ctx;
        launch.divergence = std::string(mock::divergence_name(c.divergence));
        launch.tick_ms = c.tick_ms;
        return launch;
    }
    void shutdown() override {
        if (stopped_) return;
        server_.stop();
        stopped_ = true;
    }
    ~MockHandle() override { shutdown(); }

private:
    mock::MockServer server_;
    bool stopped_ = false;
};

}  // namespace

// The mock caches only what a request asks it to (cache_prompt), so `cache` changes nothing.
std::unique_ptr<ServerHandle> MockLauncher::launch(int parallel, std::int64_t ctx_total,
                                                   core::PromptCache /*cache*/) {
    mock::MockConfig config = base_;
    config.slots = parallel;
    config.n_ctx = static_cast<int>(ctx_total / parallel);
    auto handle = std::make_unique<MockHandle>(std::move(config));
    ServerHandle& h = *handle;
    wait_until_ready(
        {"127.0.0.1", h.address().port}, std::chrono::seconds(60), [&h] { return h.alive(); },
        [&h] { return h.death_report(); });
    return handle;
}

}  // namespace bi::driver
