#include "workset.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "files.hpp"
#include "json_text.hpp"

namespace bi::io {

namespace {

constexpr const char* kDefaultFamily = "default";

class RowReader {
public:
    RowReader(std::string_view what, std::size_t index, const core::Json& row)
        : prefix_(std::string(what) + ": rows[" + std::to_string(index) + "]"), row_(row) {}

    [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
        throw Error(ErrorCategory::Input,
                    prefix_ + (field.empty() ? "" : "." + field) + ": " + problem);
    }

    // The one key of `names` present in the row (nullptr if none); two present is an error.
    const core::Json* pick(std::initializer_list<const char*> names, std::string& used) const {
        const core::Json* found = nullptr;
        for (const char* name : names) {
            const core::Json* value = row_.find(name);
            if (!value) continue;
            if (found) fail(name, "also given as '" + used + "'; use one of them");
            found = value;
            used = name;
        }
        return found;
    }

    std::string string_field(std::initializer_list<const char*> names, bool required,
                             const std::string& fallback) const {
        std::string used = *names.begin();
        const core::Json* value = pick(names, used);
        if (!value) {
            if (required) fail(used, "missing (give one of: " + alternatives(names) + ")");
            return fallback;
        }
        if (!value->is_string())
            fail(used, std::string("expected a string, got ") + core::type_name(value->type()));
        return value->as_string();
    }

private:
    static std::string alternatives(std::initializer_list<const char*> names) {
        std::string out;
        for (const char* name : names) out += (out.empty() ? "" : ", ") + std::string(name);
        return out;
    }

    std::string prefix_;
    const core::Json& row_;
};

constexpr std::string_view kKnownKeys[] = {"prompt", "item",       "prompt_text",     "family",
                                           "fill",   "fill_ratio", "expected_answer", "system"};

// Levenshtein distance, for "did you mean"; keys are short.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] =
                std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::string unknown_key_warning(std::string_view what, std::size_t index, const std::string& key) {
    std::string warning = std::string(what) + ": rows[" + std::to_string(index) +
                          "]: unknown key '" + key + "' ignored";
    std::string_view closest;
    std::size_t best = 3;  // suggest only within two edits
    for (const auto known : kKnownKeys)
        if (const auto d = edit_distance(key, known); d < best) best = d, closest = known;
    if (!closest.empty()) warning += " (did you mean '" + std::string(closest) + "'?)";
    return warning;
}

core::WorkRow read_row(std::string_view what, std::size_t index, const core::Json& row) {
    RowReader reader(what, index, row);
    // A bare string is a prompt with no expected answer, as the upstream reader takes it.
    if (row.is_string()) {
        core::WorkRow out;
        out.prompt = row.as_string();
        if (out.prompt.empty()) reader.fail("", "must not be an empty string");
        out.family = std::string(kDefaultFamily);
        return out;
    }
    if (!row.is_object())
        reader.fail(
            "", std::string("expected an object or a string, got ") + core::type_name(row.type()));

    core::WorkRow out;
    out.prompt = reader.string_field({"prompt", "item", "prompt_text"}, true, "");
    if (out.prompt.empty()) reader.fail("prompt", "must not be empty");
    out.family = reader.string_field({"family"}, false, kDefaultFamily);
    if (out.family.empty()) reader.fail("family", "must not be empty");
    out.system = reader.string_field({"system"}, false, "");

    std::string fill_name = "fill";
    if (const core::Json* fill = reader.pick({"fill", "fill_ratio"}, fill_name)) {
        if (!fill->is_number())
            reader.fail(fill_name,
                        std::string("expected a number, got ") + core::type_name(fill->type()));
        out.fill = fill->as_double();
        if (!(out.fill >= 0.0 && out.fill <= 1.0))
            reader.fail(fill_name, "must be between 0 and 1, got " + to_json_text(*fill));
    }
    if (const core::Json* expected = row.find("expected_answer")) out.expected_answer = *expected;
    return out;
}

}  // namespace

std::vector<core::WorkRow> rows_from_json(const core::Json& doc, std::string_view what,
                                          std::vector<std::string>* warnings) {
    if (!doc.is_array())
        throw Error(ErrorCategory::Input, std::string(what) +
                                              ": a work-set is a JSON array of rows, got " +
                                              core::type_name(doc.type()));
    const auto& array = doc.as_array();
    if (array.empty())
        throw Error(ErrorCategory::Input, std::string(what) + ": the work-set is empty");
    std::vector<core::WorkRow> rows;
    rows.reserve(array.size());
    std::set<std::string> warned;
    for (std::size_t i = 0; i < array.size(); ++i) {
        rows.push_back(read_row(what, i, array[i]));
        if (!warnings || !array[i].is_object()) continue;
        for (const auto& [key, value] : array[i].as_object()) {
            const bool known = std::find(std::begin(kKnownKeys), std::end(kKnownKeys), key) !=
                               std::end(kKnownKeys);
            if (!known && warned.insert(key).second)
                warnings->push_back(unknown_key_warning(what, i, key));
        }
    }
    return rows;
}

std::vector<core::WorkRow> load_workset_file(const std::string& path,
                                             std::vector<std::string>* warnings) {
    return parse_workset_text(read_file_or_stream(path), path == "-" ? "standard input" : path,
                              warnings);
}

std::vector<core::WorkRow> parse_workset_text(const std::string& text, const std::string& path,
                                              std::vector<std::string>* warnings) {
    if (const auto bad = core::first_invalid_utf8(text)) {
        const auto row = top_level_element_at(text, *bad);
        throw Error(ErrorCategory::Input,
                    path + (row ? ": rows[" + std::to_string(*row) + "]" : std::string()) +
                        ": invalid UTF-8 at byte offset " + std::to_string(*bad));
    }
    return rows_from_json(parse_json(text, path), path, warnings);
}

core::Json rows_to_json(const std::vector<core::WorkRow>& rows) {
    core::Json out = core::Json::array();
    for (const auto& row : rows) {
        core::Json object = core::Json::object();
        object.set("prompt", row.prompt);
        object.set("family", row.family);
        object.set("fill", row.fill);
        object.set("expected_answer", row.expected_answer);
        if (!row.system.empty()) object.set("system", row.system);
        out.push_back(std::move(object));
    }
    return out;
}

std::string workset_to_json_text(const std::vector<core::WorkRow>& rows) {
    return to_json_text(rows_to_json(rows), true) + "\n";
}

}  // namespace bi::io
