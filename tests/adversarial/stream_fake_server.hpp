// tests/adversarial/fake_llama_server.py started in the test's own process tree on a free port
// (--port 0, read back from its "listening on" line), with the given --fake-* flags; ended with
// its whole tree when the object goes. For the client tests that talk to it directly, with the
// request a shipped kind sends it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "http/completion_request.hpp"
#include "http/http_session.hpp"
#include "scratch_dir.hpp"
#include "server/server_process.hpp"

namespace bi::testing {

class StreamFakeServer {
public:
    // Throws std::runtime_error when the fake does not start listening within 20 s.
    explicit StreamFakeServer(const std::vector<std::string>& flags);
    ~StreamFakeServer();
    StreamFakeServer(const StreamFakeServer&) = delete;
    StreamFakeServer& operator=(const StreamFakeServer&) = delete;

    http::Endpoint endpoint() const { return {"127.0.0.1", port_}; }
    std::string log() const;

private:
    ScratchDir dir_;
    std::unique_ptr<server::ServerProcess> process_;
    std::uint16_t port_ = 0;
};

// The request a run through the shipped kind `kind` sends (its dialect, model "m"), for
// `n_predict` tokens with top-`logprobs` logprobs (0: none).
http::RequestOptions kind_request(const std::string& kind, http::EndpointKind endpoint,
                                  int n_predict, int logprobs = 0);

}  // namespace bi::testing
