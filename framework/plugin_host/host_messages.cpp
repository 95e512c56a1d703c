#include "host_messages.hpp"

#include <utility>

namespace bi::plugin_host {

namespace {

const core::Json& member(const core::Json& json, std::string_view key) {
    static const core::Json kNull;
    const core::Json* found = json.find(key);
    return found ? *found : kNull;
}

std::string text(const core::Json& json, std::string_view key) {
    return member(json, key).as_string();
}

core::Json encode_components(const std::vector<ComponentInfo>& components) {
    core::Json out = core::Json::array();
    for (const auto& c : components)
        out.push_back(core::Json::Object{{"id", c.id}, {"description", c.description}});
    return out;
}

std::vector<ComponentInfo> decode_components(const core::Json& json) {
    std::vector<ComponentInfo> out;
    for (const auto& c : json.as_array()) out.push_back({text(c, "id"), text(c, "description")});
    return out;
}

}  // namespace

Generation OwnedGeneration::view() const {
    Generation generation;
    generation.content = content;
    generation.reasoning = reasoning;
    generation.tool_calls = tool_calls;
    generation.completion_tokens = completion_tokens;
    generation.stop_reason = stop_reason;
    return generation;
}

core::Json encode_item(const core::WorkItem& item) {
    return core::Json::Object{{"test_id", item.test_id},
                              {"prompt", item.prompt},
                              {"system", item.system},
                              {"family", item.family},
                              {"fill", item.fill},
                              {"expected_answer", item.expected_answer},
                              {"seed", static_cast<std::int64_t>(item.seed)},
                              {"rep", item.rep}};
}

core::WorkItem decode_item(const core::Json& json) {
    core::WorkItem item;
    item.test_id = text(json, "test_id");
    item.prompt = text(json, "prompt");
    item.system = text(json, "system");
    item.family = text(json, "family");
    item.fill = member(json, "fill").as_double();
    item.expected_answer = member(json, "expected_answer");
    item.seed = static_cast<std::uint64_t>(member(json, "seed").as_int());
    item.rep = static_cast<int>(member(json, "rep").as_int());
    return item;
}

core::Json encode_generation(const Generation& generation) {
    return core::Json::Object{
        {"content", generation.content},
        {"reasoning", generation.reasoning},
        {"tool_calls", generation.tool_calls},
        {"completion_tokens",
         generation.completion_tokens ? core::Json(*generation.completion_tokens) : core::Json()},
        {"stop_reason", generation.stop_reason}};
}

OwnedGeneration decode_generation(const core::Json& json) {
    OwnedGeneration generation;
    generation.content = text(json, "content");
    generation.reasoning = text(json, "reasoning");
    generation.tool_calls = member(json, "tool_calls");
    if (const auto& tokens = member(json, "completion_tokens"); !tokens.is_null())
        generation.completion_tokens = tokens.as_int();
    generation.stop_reason = text(json, "stop_reason");
    return generation;
}

core::Json encode_outcome(const ScoreOutcome& outcome) {
    return core::Json::Object{{"extracted_answer", outcome.extracted_answer},
                              {"failure_mode", std::string(outcome.failure_mode.word())},
                              {"score", outcome.score},
                              {"passed", outcome.passed},
                              {"error", outcome.error}};
}

ScoreOutcome decode_outcome(const core::Json& json) {
    ScoreOutcome outcome;
    outcome.extracted_answer = member(json, "extracted_answer");
    outcome.failure_mode = core::FailureLabel::from_word(text(json, "failure_mode"));
    outcome.score = member(json, "score").as_double();
    outcome.passed = member(json, "passed").as_bool();
    outcome.error = text(json, "error");
    return outcome;
}

core::Json encode_request(const GenerationRequest& request) {
    core::Json parameters = core::Json::array();
    for (const auto& [key, value] : request.parameters)
        parameters.push_back(core::Json::Array{key, value});
    return core::Json::Object{{"model_id", request.model_id},
                              {"ctx", request.ctx},
                              {"seed", static_cast<std::int64_t>(request.seed)},
                              {"parameters", std::move(parameters)}};
}

GenerationRequest decode_request(const core::Json& json) {
    GenerationRequest request;
    request.model_id = text(json, "model_id");
    request.ctx = member(json, "ctx").as_int();
    request.seed = static_cast<std::uint64_t>(member(json, "seed").as_int());
    for (const auto& pair : member(json, "parameters").as_array())
        request.parameters.emplace_back(pair.as_array().at(0).as_string(),
                                        pair.as_array().at(1).as_string());
    return request;
}

core::Json encode_infos(const std::vector<PluginInfo>& infos) {
    core::Json out = core::Json::array();
    for (const auto& info : infos)
        out.push_back(core::Json::Object{{"path", info.path},
                                         {"name", info.name},
                                         {"version", info.version},
                                         {"description", info.description},
                                         {"abi_major", info.abi_major},
                                         {"abi_minor", info.abi_minor},
                                         {"bundled", info.bundled},
                                         {"scorers", encode_components(info.scorers)},
                                         {"generators", encode_components(info.generators)}});
    return out;
}

std::vector<PluginInfo> decode_infos(const core::Json& json) {
    std::vector<PluginInfo> out;
    for (const auto& entry : json.as_array()) {
        PluginInfo info;
        info.path = text(entry, "path");
        info.name = text(entry, "name");
        info.version = text(entry, "version");
        info.description = text(entry, "description");
        info.abi_major = static_cast<std::uint32_t>(member(entry, "abi_major").as_int());
        info.abi_minor = static_cast<std::uint32_t>(member(entry, "abi_minor").as_int());
        info.bundled = member(entry, "bundled").as_bool();
        info.scorers = decode_components(member(entry, "scorers"));
        info.generators = decode_components(member(entry, "generators"));
        out.push_back(std::move(info));
    }
    return out;
}

}  // namespace bi::plugin_host
