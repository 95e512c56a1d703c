// Reading the TOML files bi-run takes (models.toml, server kinds): typed values with errors
// that name the file, the key and its table, and unknown keys refused rather than ignored.
#pragma once

#include <toml++/toml.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace bi::io::toml_read {

// bi::Error(Input) "PATH: message".
[[noreturn]] void bad(const std::string& path, const std::string& message);

// The file's table; bi::Error(Input) naming it when it cannot be read or is not TOML (with the
// line).
toml::table parse(const std::string& path);

// The same for text already read from `path`.
toml::table parse_text(const std::string& text, const std::string& path);

// table[key] as a string ("" when absent); bi::Error(Input) naming `where`.key otherwise.
std::string string_at(const toml::table& table, const char* key, const std::string& path,
                      const std::string& where);

// table[key] as an array of strings (empty when absent).
std::vector<std::string> strings_at(const toml::table& table, const char* key,
                                    const std::string& path, const std::string& where);

// bi::Error(Input) for a key of `table` not in `known`, with its line and the known keys: a
// silently dropped key (say a misspelt flags list) makes a run differ from what its cert says.
void check_keys(const toml::table& table, std::initializer_list<std::string_view> known,
                const std::string& path, const std::string& where);
void check_keys(const toml::table& table, const std::vector<std::string_view>& known,
                const std::string& path, const std::string& where);

// The boolean at `key`; `fallback` when absent; anything but true or false is refused.
bool bool_at(const toml::table& table, const char* key, bool fallback, const std::string& path,
             const std::string& where);

// One key of a TOML table and how its value is read into an S: a table's rows are both the keys
// a file may use there and the reading of each, so a new key is one row.
template <typename S>
struct Row {
    const char* key;
    std::function<void(const toml::table& table, const std::string& path, const std::string& where,
                       S& out)>
        read;
};

// Refuses a key no row names (`keys_where` names the table: "[request]", "models[2]"), then
// reads every row in order; `where` prefixes the keys in messages ("request.chat_path").
template <typename S>
void read_rows(const toml::table& table, const std::vector<Row<S>>& rows, const std::string& path,
               const std::string& where, const std::string& keys_where, S& out) {
    std::vector<std::string_view> keys;
    keys.reserve(rows.size());
    for (const auto& row : rows) keys.emplace_back(row.key);
    check_keys(table, keys, path, keys_where);
    for (const auto& row : rows) row.read(table, path, where, out);
}

// A string member ("" when absent).
template <typename S>
Row<S> text_row(const char* key, std::string S::*member) {
    return {key,
            [key, member](const toml::table& t, const std::string& path, const std::string& where,
                          S& out) { out.*member = string_at(t, key, path, where); }};
}

// A list-of-strings member (empty when absent).
template <typename S>
Row<S> texts_row(const char* key, std::vector<std::string> S::*member) {
    return {key,
            [key, member](const toml::table& t, const std::string& path, const std::string& where,
                          S& out) { out.*member = strings_at(t, key, path, where); }};
}

}  // namespace bi::io::toml_read
