#include "stream_fake_server.hpp"

#include <algorithm>
#include <stdexcept>

#include "io/server_kind_io.hpp"
#include "wait_until.hpp"

namespace bi::testing {

namespace {

// The port in the fake's "fake llama-server listening on HOST:PORT" line; 0 before it.
std::uint16_t listening_port(const std::string& log) {
    const std::string marker = "listening on 127.0.0.1:";
    const auto at = log.find(marker);
    if (at == std::string::npos) return 0;
    const auto digits = log.substr(at + marker.size(), 5);
    const auto end = log.find('\n', at);
    if (end == std::string::npos) return 0;  // the line is not complete yet
    return static_cast<std::uint16_t>(std::stoul(digits));
}

}  // namespace

StreamFakeServer::StreamFakeServer(const std::vector<std::string>& flags) {
    std::vector<std::string> argv{BI_FAKE_SERVER, "-m", "/models/m.gguf", "--host", "127.0.0.1",
                                  "--port",       "0",  "--parallel",     "4",      "--metrics",
                                  "--slots"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    process_ = std::make_unique<server::ServerProcess>(argv, dir_.file("fake.log"));
    wait_until([&] {
        port_ = listening_port(log());
        return port_ != 0 || !process_->alive();
    });
    if (port_ == 0) throw std::runtime_error("the fake did not start listening:\n" + log());
}

StreamFakeServer::~StreamFakeServer() {
    process_->terminate(std::chrono::seconds(5));
}

std::string StreamFakeServer::log() const {
    return read_text(dir_.file("fake.log"));
}

http::RequestOptions kind_request(const std::string& kind, http::EndpointKind endpoint,
                                  int n_predict, int logprobs) {
    const auto& shipped = io::builtin_server_kinds();
    const auto found = std::find_if(shipped.begin(), shipped.end(),
                                    [&](const core::ServerKind& k) { return k.name == kind; });
    if (found == shipped.end()) throw std::runtime_error("no shipped kind " + kind);
    http::RequestOptions options;
    options.dialect = found->request;
    options.endpoint = endpoint;
    options.n_predict = n_predict;
    options.logprobs = logprobs;
    options.model = "m";
    return options;
}

}  // namespace bi::testing
