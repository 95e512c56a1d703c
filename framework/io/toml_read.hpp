// Reading the TOML files bi-run takes (models.toml, server kinds): typed values with errors
// that name the file, the key and its table, and unknown keys refused rather than ignored.
#pragma once

#include <toml++/toml.h>

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

}  // namespace bi::io::toml_read
