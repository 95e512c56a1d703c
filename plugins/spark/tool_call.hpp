// Reading a tool call out of whatever JSON shape a model chose: {"name", "arguments"},
// {"tool", "args"}, OpenAI's {"function": {...}} or {"tool_calls": [...]}, with arguments as an
// object or as a JSON string holding one.
#pragma once

#include <optional>
#include <string>

#include "json_value.hpp"

namespace spark {

struct ToolCall {
    std::string name;
    JsonValue arguments;  // always an object
};

std::optional<ToolCall> as_tool_call(const JsonValue& value);

}  // namespace spark
