#include "token_counter.hpp"

#include "core/error.hpp"
#include "http/completion_client.hpp"

namespace bi::driver {

namespace {
constexpr std::chrono::seconds kCountTimeout{30};
}  // namespace

ServerTokenCounter::ServerTokenCounter(const http::Endpoint& endpoint, std::string path,
                                       std::size_t max_response_bytes)
    : session_(std::make_unique<http::HttpSession>(endpoint, kCountTimeout, max_response_bytes)),
      path_(std::move(path)) {}

plugin_host::TokenCounter ServerTokenCounter::counter() {
    return [this](std::string_view text) -> std::optional<std::int64_t> {
        if (path_.empty() || !failure_.empty()) return std::nullopt;
        const auto outcome = http::tokenize(*session_, text, path_);
        if (outcome.ok()) return outcome.count;
        failure_ = outcome.failure->message;
        return std::nullopt;
    };
}

void ServerTokenCounter::throw_if_failed(const std::string& where) const {
    if (!failure_.empty())
        throw Error(ErrorCategory::Server, where + ": " + path_ + " failed: " + failure_);
}

}  // namespace bi::driver
