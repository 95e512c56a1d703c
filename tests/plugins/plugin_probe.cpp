// Test tool: loads one plugin through the host and scores one completion with one of its
// scorers, printing the outcome as JSON. Lets script tests check an externally built plugin.
#include <iostream>

#include "core/error.hpp"
#include "io/json_text.hpp"
#include "plugin_host/plugin_set.hpp"

int main(int argc, char** argv) {
    if (argc != 5) {
        std::cerr << "usage: bi_plugin_probe PLUGIN.so SCORER EXPECTED_JSON COMPLETION\n";
        return 2;
    }
    try {
        bi::plugin_host::PluginSet plugins;
        plugins.load(argv[1]);
        bi::core::WorkItem item;
        item.test_id = "probe|1|probe|0.500000|0|fill0.00";
        item.family = "probe";
        item.prompt = "probe";
        item.expected_answer = bi::io::parse_json(argv[3], "EXPECTED_JSON");
        const auto outcome = plugins.create_scorer(argv[2])->evaluate(item, argv[4]);
        bi::core::Json out = bi::core::Json::object();
        out.set("extracted_answer", outcome.extracted_answer);
        out.set("failure_mode", std::string(outcome.failure_mode.word()));
        out.set("score", outcome.score);
        out.set("passed", outcome.passed);
        out.set("error", outcome.error);
        std::cout << bi::io::to_json_text(out) << "\n";
        return 0;
    } catch (const bi::Error& e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
}
