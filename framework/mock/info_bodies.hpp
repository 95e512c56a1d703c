// Bodies of the informational routes (/health, /props, /v1/models, /slots, /metrics) and
// llama-server's error envelope.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "mock_config.hpp"
#include "scheduler.hpp"

namespace bi::mock {

// {"error": {"code": status, "message": ..., "type": ...}}
core::Json error_body(int status, const std::string& message, const std::string& type);

core::Json health_body();
core::Json props_body(const MockConfig& config, const std::string& build_info);
core::Json models_body(const MockConfig& config, std::int64_t created);
core::Json slots_body(const std::vector<SlotView>& slots);

// Prometheus text with llama-server's metric names, HELP and TYPE lines, in its order.
std::string metrics_text(const SchedulerStats& stats);

}  // namespace bi::mock
