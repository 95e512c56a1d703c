// The plugin host's messages as JSON values: what PluginSet sends the helper and what comes back.
// One encode/decode pair per value type, shared by both ends so they cannot drift apart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/work_item.hpp"
#include "plugin_info.hpp"
#include "scorer.hpp"

namespace bi::plugin_host {

// Every frame the helper sends carries "t": a reply to the request, or, while a call runs, a log
// line, a count_tokens question (answered with {"count": N|null}) or one generated row.
inline constexpr const char* kFrameReply = "reply";
inline constexpr const char* kFrameLog = "log";
inline constexpr const char* kFrameCountTokens = "count_tokens";
inline constexpr const char* kFrameRow = "row";

// A Generation whose text it owns, as the helper rebuilds it.
struct OwnedGeneration {
    std::string content;
    std::string reasoning;
    core::Json tool_calls;
    std::optional<std::int64_t> completion_tokens;
    std::string stop_reason;
    Generation view() const;
};

core::Json encode_item(const core::WorkItem& item);
core::WorkItem decode_item(const core::Json& json);
core::Json encode_generation(const Generation& generation);
OwnedGeneration decode_generation(const core::Json& json);
core::Json encode_outcome(const ScoreOutcome& outcome);
ScoreOutcome decode_outcome(const core::Json& json);
core::Json encode_request(const GenerationRequest& request);
GenerationRequest decode_request(const core::Json& json);
core::Json encode_infos(const std::vector<PluginInfo>& infos);
std::vector<PluginInfo> decode_infos(const core::Json& json);

}  // namespace bi::plugin_host
