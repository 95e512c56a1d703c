// Reading a tool call out of whatever JSON shape a model chose: {"name", "arguments"},
// {"tool", "args"}, OpenAI's {"function": {...}} or {"tool_calls": [...]}, with arguments as an
// object or as a JSON string holding one.
#pragma once

#include <optional>
#include <string>

#include "json.hpp"

namespace spark {

struct ToolCall {
    std::string name;
    Json arguments;  // always an object
};

std::optional<ToolCall> as_tool_call(const Json& value);

}  // namespace spark
