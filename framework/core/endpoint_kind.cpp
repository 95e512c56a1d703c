#include "endpoint_kind.hpp"

namespace bi::core {

std::string_view endpoint_name(EndpointKind endpoint) {
    switch (endpoint) {
        case EndpointKind::Chat:
            return "chat";
        case EndpointKind::Completion:
            return "completion";
    }
    return "";  // unreachable: the switch names every kind (-Werror=switch)
}

std::optional<EndpointKind> parse_endpoint(std::string_view name) {
    for (const auto kind : {EndpointKind::Chat, EndpointKind::Completion})
        if (endpoint_name(kind) == name) return kind;
    return std::nullopt;
}

}  // namespace bi::core
