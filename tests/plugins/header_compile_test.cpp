// Compiled by CTest as strict C++17 and C++20: both SDK headers must stand alone in C++.
#include <bi/plugin.h>
#include <bi/plugin.hpp>

namespace {

class Probe final : public bi::sdk::Scorer {
public:
    std::string extract_answer(const bi::sdk::ScoreInput&) override { return "null"; }
    std::string classify_failure_mode(const bi::sdk::ScoreInput&) override { return "ok"; }
    bi::sdk::Score score(const bi::sdk::ScoreInput&) override { return {}; }
};

bi::sdk::PluginDefinition define_plugin() {
    return bi::sdk::PluginDefinition("probe", "0").add_scorer<Probe>("probe");
}

}  // namespace

BI_SDK_EXPORT_PLUGIN(define_plugin)
