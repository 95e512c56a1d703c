#include "descriptor_check.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <set>

#include "plugin_errors.hpp"

namespace bi::plugin_host {

namespace {

// The ABI 1.0 size of each struct: the end of its last 1.0 field. A later minor may be larger.
constexpr std::uint32_t kDescriptorHeaderSize =
    offsetof(bi_plugin_descriptor, abi_minor) + sizeof(std::uint32_t);
constexpr std::uint32_t kDescriptorMinSize =
    offsetof(bi_plugin_descriptor, generator_count) + sizeof(std::uint32_t);
constexpr std::uint32_t kScorerMinSize = offsetof(bi_scorer, score) + sizeof(bi_scorer::score);
constexpr std::uint32_t kGeneratorMinSize =
    offsetof(bi_generator, generate) + sizeof(bi_generator::generate);

void check_size(const LoadedPlugin& plugin, std::uint32_t size, std::uint32_t minimum,
                const std::string& what) {
    if (size < minimum || size > kMaxStructSize)
        throw plugin_error(plugin.path, "bad struct_size " + std::to_string(size) + " in " + what +
                                            " (expected " + std::to_string(minimum) + ".." +
                                            std::to_string(kMaxStructSize) + ")");
}

// A copy of the plugin's struct, zero beyond its struct_size: "zero means absent".
template <typename T>
T normalised_copy(const T* source) {
    T copy{};
    std::memcpy(&copy, source, std::min<std::size_t>(source->struct_size, sizeof(T)));
    copy.struct_size = sizeof(T);
    return copy;
}

std::string text_or_empty(const char* text) {
    return text ? text : "";
}

void require_function(const LoadedPlugin& plugin, const std::string& what, bool present,
                      const char* name) {
    if (!present)
        throw plugin_error(plugin.path, what + ": required function " + name + " is NULL");
}

void check_count(const LoadedPlugin& plugin, std::uint32_t count, const char* what) {
    if (count > kMaxTableEntries)
        throw plugin_error(plugin.path, std::string(what) + " " + std::to_string(count) +
                                            " is implausible (at most " +
                                            std::to_string(kMaxTableEntries) + ")");
}

void read_scorers(const bi_plugin_descriptor& d, LoadedPlugin& plugin) {
    check_count(plugin, d.scorer_count, "scorer_count");
    if (d.scorer_count > 0 && !d.scorers)
        throw plugin_error(plugin.path, "scorer table is NULL but scorer_count is " +
                                            std::to_string(d.scorer_count));
    std::set<std::string> seen;
    for (std::uint32_t i = 0; i < d.scorer_count; ++i) {
        const std::string where = "scorer #" + std::to_string(i);
        const bi_scorer* original = d.scorers[i];
        if (!original) throw plugin_error(plugin.path, where + " is NULL");
        check_size(plugin, original->struct_size, kScorerMinSize, where);
        ScorerTable entry;
        entry.original = original;
        entry.table = normalised_copy(original);
        entry.id = text_or_empty(entry.table.id);
        if (entry.id.empty()) throw plugin_error(plugin.path, where + " has an empty id");
        if (!seen.insert(entry.id).second)
            throw plugin_error(plugin.path, "duplicate scorer id '" + entry.id + "'");
        const std::string what = "scorer '" + entry.id + "'";
        require_function(plugin, what, entry.table.extract_answer, "extract_answer");
        require_function(plugin, what, entry.table.classify_failure_mode, "classify_failure_mode");
        require_function(plugin, what, entry.table.score, "score");
        if (!entry.table.create != !entry.table.destroy)
            throw plugin_error(plugin.path,
                               what + ": create and destroy must both be set or both be NULL");
        entry.description = text_or_empty(entry.table.description);
        plugin.scorers.push_back(std::move(entry));
    }
}

void read_generators(const bi_plugin_descriptor& d, LoadedPlugin& plugin) {
    check_count(plugin, d.generator_count, "generator_count");
    if (d.generator_count > 0 && !d.generators)
        throw plugin_error(plugin.path, "generator table is NULL but generator_count is " +
                                            std::to_string(d.generator_count));
    std::set<std::string> seen;
    for (std::uint32_t i = 0; i < d.generator_count; ++i) {
        const std::string where = "generator #" + std::to_string(i);
        const bi_generator* original = d.generators[i];
        if (!original) throw plugin_error(plugin.path, where + " is NULL");
        check_size(plugin, original->struct_size, kGeneratorMinSize, where);
        GeneratorTable entry;
        entry.original = original;
        entry.table = normalised_copy(original);
        entry.id = text_or_empty(entry.table.id);
        if (entry.id.empty()) throw plugin_error(plugin.path, where + " has an empty id");
        if (!seen.insert(entry.id).second)
            throw plugin_error(plugin.path, "duplicate generator id '" + entry.id + "'");
        require_function(plugin, "generator '" + entry.id + "'", entry.table.generate, "generate");
        entry.description = text_or_empty(entry.table.description);
        plugin.generators.push_back(std::move(entry));
    }
}

}  // namespace

void read_descriptor(const bi_plugin_descriptor* descriptor, LoadedPlugin& plugin) {
    // struct_size, abi_major and abi_minor lead in every ABI, so the ABI check comes first:
    // a plugin of another major gets "incompatible ABI", not a size complaint.
    if (descriptor->struct_size < kDescriptorHeaderSize)
        check_size(plugin, descriptor->struct_size, kDescriptorMinSize, "the plugin descriptor");
    if (descriptor->abi_major != BI_PLUGIN_ABI_MAJOR)
        throw plugin_error(plugin.path, "incompatible ABI (plugin " +
                                            std::to_string(descriptor->abi_major) + ", host " +
                                            std::to_string(BI_PLUGIN_ABI_MAJOR) + ")");
    check_size(plugin, descriptor->struct_size, kDescriptorMinSize, "the plugin descriptor");
    const bi_plugin_descriptor d = normalised_copy(descriptor);
    plugin.abi_major = d.abi_major;
    plugin.abi_minor = d.abi_minor;
    plugin.name = text_or_empty(d.name);
    plugin.version = text_or_empty(d.version);
    plugin.description = text_or_empty(d.description);
    if (plugin.name.empty()) throw plugin_error(plugin.path, "the plugin name is empty");
    if (plugin.version.empty()) throw plugin_error(plugin.path, "the plugin version is empty");
    read_scorers(d, plugin);
    read_generators(d, plugin);
    if (plugin.scorers.empty() && plugin.generators.empty())
        throw plugin_error(plugin.path, "the plugin offers no scorers and no generators");
}

}  // namespace bi::plugin_host
