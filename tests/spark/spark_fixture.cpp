// Loading libspark.so through PluginSet, and reading a generated prompt back into its parts.
#include "spark_fixture.hpp"

#include <memory>

#include "built_paths.hpp"
#include "plugin_host/plugin_set.hpp"

namespace bi::spark_test {

namespace {

constexpr std::string_view kBegin = "=== notes ===\n";
constexpr std::string_view kEnd = "\n=== end of notes ===\n\n";

bool is_filler_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == ' ' || c == ',' || c == '.' ||
           c == '-';
}

bool has_needle_char(const std::string& paragraph) {
    return paragraph.find_first_of("0123456789\"`{}=_(") != std::string::npos;
}

int sentences_in(const std::string& paragraph) {
    int n = 0;
    for (const char c : paragraph) n += c == '.' ? 1 : 0;
    return n;
}

}  // namespace

const plugin_host::Plugins& spark_plugins() {
    static const std::unique_ptr<plugin_host::PluginSet> plugins = [] {
        auto set = std::make_unique<plugin_host::PluginSet>();
        set->load(BI_SPARK_PLUGIN);
        return set;
    }();
    return *plugins;
}

std::vector<core::WorkRow> generate(std::uint64_t seed, std::int64_t ctx,
                                    std::vector<std::pair<std::string, std::string>> params,
                                    const plugin_host::TokenCounter& count,
                                    const std::string& model) {
    plugin_host::GenerationRequest request;
    request.model_id = model;
    request.ctx = ctx;
    request.seed = seed;
    request.parameters = std::move(params);
    return spark_plugins().generate_rows("spark", request, count);
}

plugin_host::ScoreOutcome score(const std::string& family, const core::Json& expected,
                                std::string_view completion) {
    const auto scorer = spark_plugins().create_scorer("spark");
    core::WorkItem item;
    item.test_id = "m|4096|" + family + "|0.500000|0|fill0.35";
    item.prompt = "question";
    item.family = family;
    item.fill = 0.35;
    item.expected_answer = expected;
    return scorer->evaluate(item, completion);
}

NotesLayout read_layout(const std::string& prompt) {
    NotesLayout layout;
    const auto begin = prompt.find(kBegin);
    const auto end = prompt.find(kEnd);
    if (begin == std::string::npos || end == std::string::npos || end < begin) return layout;
    const std::string notes = prompt.substr(begin + kBegin.size(), end - begin - kBegin.size());
    layout.question = prompt.substr(end + kEnd.size());
    std::size_t start = 0;
    while (true) {
        const auto at = notes.find("\n\n", start);
        layout.paragraphs.push_back(
            notes.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) break;
        start = at + 2;
    }
    for (std::size_t i = 0; i < layout.paragraphs.size(); ++i) {
        const auto& paragraph = layout.paragraphs[i];
        if (has_needle_char(paragraph)) {
            ++layout.needle_count;
            layout.needle_index = static_cast<int>(i);
            continue;
        }
        for (const char c : paragraph)
            layout.filler_clean = layout.filler_clean && is_filler_char(c);
    }
    if (layout.needle_count != 1) {
        layout.needle_index = -1;
        return layout;
    }
    for (std::size_t i = 0; i < layout.paragraphs.size(); ++i) {
        if (static_cast<int>(i) < layout.needle_index)
            layout.sentences_before += sentences_in(layout.paragraphs[i]);
        if (static_cast<int>(i) > layout.needle_index)
            layout.sentences_after += sentences_in(layout.paragraphs[i]);
    }
    return layout;
}

std::string needle_of(const core::WorkRow& row) {
    const auto layout = read_layout(row.prompt);
    return layout.needle_index < 0
               ? ""
               : layout.paragraphs[static_cast<std::size_t>(layout.needle_index)];
}

}  // namespace bi::spark_test
