// Which completion endpoint a run's requests go to, and the words a command line, a plan and a
// baseline check name it by. The HTTP layer maps it to a server's path (http/completion_request).
#pragma once

#include <optional>
#include <string_view>

namespace bi::core {

enum class EndpointKind {
    Chat,        // the chat endpoint (llama-server: POST /v1/chat/completions), the default
    Completion,  // the native completion endpoint (POST /completion: generated token ids)
};

// "chat" or "completion"; parse_endpoint is its inverse (nullopt for any other word).
std::string_view endpoint_name(EndpointKind endpoint);
std::optional<EndpointKind> parse_endpoint(std::string_view name);

// The words parse_endpoint reads, for a message: "chat or completion".
inline constexpr std::string_view kEndpointWords = "chat or completion";

}  // namespace bi::core
