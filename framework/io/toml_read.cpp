#include "toml_read.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "files.hpp"

namespace bi::io::toml_read {

[[noreturn]] void bad(const std::string& path, const std::string& message) {
    throw Error(ErrorCategory::Input, path + ": " + message);
}

toml::table parse(const std::string& path) {
    std::string text;
    try {
        text = read_file(path);
    } catch (const Error& e) {
        throw Error(ErrorCategory::Input, e.what());  // the user named this file
    }
    return parse_text(text, path);
}

toml::table parse_text(const std::string& text, const std::string& path) {
    try {
        return toml::parse(text, path);
    } catch (const toml::parse_error& e) {
        const auto& where = e.source().begin;
        bad(path, "invalid TOML at line " + std::to_string(where.line) + ": " +
                      std::string(e.description()));
    }
}

bool bool_at(const toml::table& table, const char* key, bool fallback, const std::string& path,
             const std::string& where) {
    const toml::node* node = table.get(key);
    if (!node) return fallback;
    if (!node->is_boolean()) bad(path, where + "." + key + " must be true or false");
    return node->value<bool>().value_or(fallback);
}

std::string string_at(const toml::table& table, const char* key, const std::string& path,
                      const std::string& where) {
    const toml::node* node = table.get(key);
    if (!node) return "";
    if (!node->is_string()) bad(path, where + "." + key + " must be a string");
    return node->value<std::string>().value_or("");
}

std::vector<std::string> strings_at(const toml::table& table, const char* key,
                                    const std::string& path, const std::string& where) {
    std::vector<std::string> out;
    const toml::node* node = table.get(key);
    if (!node) return out;
    const toml::array* array = node->as_array();
    if (!array) bad(path, where + "." + key + " must be an array of strings");
    for (const auto& item : *array) {
        if (!item.is_string()) bad(path, where + "." + key + " must be an array of strings");
        out.push_back(item.value<std::string>().value_or(""));
    }
    return out;
}

void check_keys(const toml::table& table, std::initializer_list<std::string_view> known,
                const std::string& path, const std::string& where) {
    check_keys(table, std::vector<std::string_view>(known), path, where);
}

void check_keys(const toml::table& table, const std::vector<std::string_view>& known,
                const std::string& path, const std::string& where) {
    for (const auto& [key, node] : table) {
        if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
        std::string list;
        for (const auto name : known) list += (list.empty() ? "" : ", ") + std::string(name);
        bad(path, "line " + std::to_string(node.source().begin.line) + ": unknown key '" +
                      std::string(key.str()) + "' in " + where + " (known: " + list + ")");
    }
}

}  // namespace bi::io::toml_read
