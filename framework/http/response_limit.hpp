// The most a server may send back for one request unless --max-response-bytes says otherwise.
#pragma once

#include <cstddef>

#include "core/run_request.hpp"

namespace bi::http {

// 16 MiB: a 4096-token completion with 20 top logprobs per token is about 5 MiB of JSON.
inline constexpr std::size_t kDefaultMaxResponseBytes =
    static_cast<std::size_t>(core::kDefaultMaxResponseBytes);

}  // namespace bi::http
