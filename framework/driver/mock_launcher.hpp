// run-mock's launcher: the continuous-batching mock, in process, one instance per arm group.
#pragma once

#include "mock/mock_config.hpp"
#include "server_handle.hpp"

namespace bi::driver {

class MockLauncher : public ServerLauncher {
public:
    explicit MockLauncher(mock::MockConfig base) : base_(std::move(base)) {}
    std::unique_ptr<ServerHandle> launch(int parallel, std::int64_t ctx_total,
                                         core::PromptCache cache) override;
    bool launches_real_binary() const override { return false; }

private:
    mock::MockConfig base_;
};

}  // namespace bi::driver
