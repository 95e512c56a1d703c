// Tool-call shapes, tried from the most nested wrapper inwards.
#include "tool_call.hpp"

#include "text_extract.hpp"

namespace spark {

namespace {

constexpr int kMaxNesting = 4;

std::optional<ToolCall> read_call(const JsonValue& value, int depth) {
    if (depth > kMaxNesting || !value.is_object()) return std::nullopt;
    if (const JsonValue* calls = value.find("tool_calls");
        calls && calls->is_array() && !calls->as_array().empty())
        return read_call(calls->as_array().front(), depth + 1);
    if (const JsonValue* function = value.find("function"); function && function->is_object())
        if (auto call = read_call(*function, depth + 1)) return call;

    const JsonValue* name = nullptr;
    for (const char* key : {"name", "tool", "tool_name", "function"})
        if (const JsonValue* v = value.find(key); v && v->is_string() && !name) name = v;
    if (!name) return std::nullopt;
    ToolCall call;
    call.name = std::string(trim(name->as_string()));
    call.arguments = JsonValue::object();
    for (const char* key : {"arguments", "args", "parameters", "input"}) {
        const JsonValue* args = value.find(key);
        if (!args) continue;
        if (args->is_object()) {
            call.arguments = *args;
        } else if (args->is_string()) {
            if (auto parsed = parse_json(args->as_string()); parsed && parsed->is_object())
                call.arguments = *parsed;
        }
        break;
    }
    return call;
}

}  // namespace

std::optional<ToolCall> as_tool_call(const JsonValue& value) {
    return read_call(value, 0);
}

}  // namespace spark
