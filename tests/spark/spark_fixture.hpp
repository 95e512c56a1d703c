// The spark plugin as the tests see it: loaded once per process through the real loader
// (PluginSet, i.e. dlopen), never linked in, with helpers to generate rows and score answers.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json.hpp"
#include "core/work_item.hpp"
#include "plugin_host/plugins.hpp"

namespace bi::spark_test {

const plugin_host::Plugins& spark_plugins();

// Generates with generator "spark"; `params` as --generator-param pairs.
std::vector<core::WorkRow> generate(std::uint64_t seed, std::int64_t ctx,
                                    std::vector<std::pair<std::string, std::string>> params = {},
                                    const plugin_host::TokenCounter& count = {},
                                    const std::string& model = "test-model");

// One completion through a fresh "spark" scorer instance.
plugin_host::ScoreOutcome score(const std::string& family, const core::Json& expected,
                                std::string_view completion);

// The paragraphs between the notes markers, the needle paragraph among them, and the number of
// filler sentences before and after it.
struct NotesLayout {
    std::vector<std::string> paragraphs;
    int needle_index = -1;  // -1: no paragraph or more than one looked like a needle
    int needle_count = 0;   // paragraphs holding needle characters
    int sentences_before = 0;
    int sentences_after = 0;
    bool filler_clean = true;  // every other paragraph uses only letters, space and , . -
    std::string question;      // the text after the end marker
};
NotesLayout read_layout(const std::string& prompt);

std::string needle_of(const core::WorkRow& row);

}  // namespace bi::spark_test
