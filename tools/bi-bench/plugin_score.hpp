// What running scorers in the plugin host costs: the bundled exact scorer's evaluate() in this
// process (LocalPluginSet) and through bi-plugin-host (PluginSet), per call.
#pragma once

#include "measurement.hpp"

namespace bi::bench {

Measurement measure_plugin_score(const BenchLimits& limits, bool isolated);

}  // namespace bi::bench
