// Tool-call shapes, tried from the most nested wrapper inwards.
#include "tool_call.hpp"

#include "text_extract.hpp"

namespace spark {

namespace {

constexpr int kMaxNesting = 4;

std::optional<ToolCall> read_call(const Json& value, int depth) {
    if (depth > kMaxNesting || !value.IsObject()) return std::nullopt;
    if (const Json* calls = find_member(value, "tool_calls");
        calls && calls->IsArray() && !calls->Empty())
        return read_call((*calls)[0], depth + 1);
    if (const Json* function = find_member(value, "function"); function && function->IsObject())
        if (auto call = read_call(*function, depth + 1)) return call;

    const Json* name = nullptr;
    for (const char* key : {"name", "tool", "tool_name", "function"})
        if (const Json* v = find_member(value, key); v && v->IsString() && !name) name = v;
    if (!name) return std::nullopt;
    ToolCall call;
    call.name = std::string(trim(string_of(*name)));
    call.arguments = json_object();
    for (const char* key : {"arguments", "args", "parameters", "input"}) {
        const Json* args = find_member(value, key);
        if (!args) continue;
        if (args->IsObject()) {
            call.arguments = json_copy(*args);
        } else if (args->IsString()) {
            if (auto parsed = parse_json(string_of(*args)); parsed && parsed->IsObject())
                call.arguments = std::move(*parsed);
        }
        break;
    }
    return call;
}

}  // namespace

std::optional<ToolCall> as_tool_call(const Json& value) {
    return read_call(value, 0);
}

}  // namespace spark
