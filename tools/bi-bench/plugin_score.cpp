#include "plugin_score.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "plugin_host/local_plugin_set.hpp"
#include "plugin_host/plugin_set.hpp"
#include "process_usage.hpp"

namespace bi::bench {

namespace {

using Clock = std::chrono::steady_clock;

std::vector<core::WorkItem> score_items(int count) {
    std::vector<core::WorkItem> items;
    for (int i = 0; i < count; ++i) {
        core::WorkItem item;
        item.test_id = "bench|" + std::to_string(i);
        item.family = "recall";
        item.prompt = "What is the code of item " + std::to_string(i) + "? Reply with it.";
        item.expected_answer = std::to_string(i % 97);
        items.push_back(std::move(item));
    }
    return items;
}

double seconds_to_score(const plugin_host::Plugins& plugins,
                        const std::vector<core::WorkItem>& items) {
    const auto scorer = plugins.create_scorer("");
    const std::string answer = "  42  ";
    scorer->evaluate(items.front(), answer);  // the first call may start the helper
    const auto start = Clock::now();
    for (const auto& item : items) scorer->evaluate(item, answer);
    return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

Measurement measure_plugin_score(const BenchLimits& limits, bool isolated) {
    const double load = load_average()[0];
    const auto items = score_items(limits.trials);
    double seconds = 0.0;
    {
        std::unique_ptr<plugin_host::Plugins> plugins;
        if (isolated)
            plugins = std::make_unique<plugin_host::PluginSet>();
        else
            plugins = std::make_unique<plugin_host::LocalPluginSet>();
        plugins->load_bundled();
        seconds = seconds_to_score(*plugins, items);
    }
    Measurement m;
    m.key = isolated ? "plugin_score_isolated" : "plugin_score_in_process";
    m.title = isolated ? "exact scorer evaluate(), in bi-plugin-host"
                       : "exact scorer evaluate(), in process";
    m.value = seconds * 1e6 / static_cast<double>(items.size());
    m.unit = "us/score";
    m.setup = std::to_string(items.size()) + " evaluations, one scorer instance, short answers";
    m.load_1m = load;
    m.add("seconds", seconds, "s");
    return m;
}

}  // namespace bi::bench
