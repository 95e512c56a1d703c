// One call of a plugin's work-set generator: request in, validated rows out as JSON. Internal.
#pragma once

#include "core/json.hpp"
#include "loaded_plugin.hpp"
#include "plugin_info.hpp"

namespace bi::plugin_host {

// The rows as a JSON array of {prompt, family, fill, expected_answer, system?} objects, in the
// order emitted. Throws bi::Error(Plugin) when the generator fails, throws through the C++
// helper, emits an invalid row, or emits none.
core::Json call_generator(const LoadedPlugin& plugin, const GeneratorTable& generator,
                          const GenerationRequest& request, const TokenCounter& count_tokens,
                          const PluginLogger& logger);

}  // namespace bi::plugin_host
