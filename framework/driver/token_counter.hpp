// Sizing a work-set with a running server's own tokenizer: the one counter that a cell's first
// server and `bi-run workset --tokenize` both use, with one failure policy (below).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "http/http_session.hpp"
#include "plugin_host/plugin_info.hpp"

namespace bi::driver {

// Counts through POST `path` on the server at `endpoint`, each count ending within 30 s however
// the server answers. A kind without a tokenize route (empty `path`) counts nothing: every
// count is absent and the generator estimates, which is no failure.
//
// The failure policy: the first count that fails ends the counting (every later count is absent)
// and is kept in failure(); whoever sized rows with it then refuses them (throw_if_failed), since
// rows sized by a mix of the server's counts and estimates are neither the set a live run on that
// model sends nor the estimated one.
class ServerTokenCounter {
public:
    ServerTokenCounter(const http::Endpoint& endpoint, std::string path,
                       std::size_t max_response_bytes);

    // The counter to hand the generator; valid while this object lives.
    plugin_host::TokenCounter counter();

    // Why the first failed count failed, in the server's words; empty when none failed.
    const std::string& failure() const { return failure_; }

    // bi::Error(Server) "<where>: <path> failed: <failure>" when a count failed.
    void throw_if_failed(const std::string& where) const;

private:
    std::unique_ptr<http::HttpSession> session_;
    std::string path_;
    std::string failure_;
};

}  // namespace bi::driver
