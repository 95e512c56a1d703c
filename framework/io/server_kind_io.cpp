#include "server_kind_io.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/sha256.hpp"
#include "files.hpp"
#include "toml_read.hpp"

namespace bi::io {

namespace {

using toml_read::bad;

bool is_name(const std::string& text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-';
    });
}

void check_template(const std::string& text, const std::string& path, const std::string& where) {
    if (const auto unknown = core::unknown_placeholder(text); !unknown.empty()) {
        std::string known;
        for (const auto name : core::kLaunchPlaceholders)
            known += (known.empty() ? "{" : ", {") + std::string(name) + "}";
        bad(path, where + ": unknown placeholder " + unknown + " in '" + text +
                      "' (known: " + known + ")");
    }
}

core::KindLaunch read_launch(const toml::table& root, const std::string& path) {
    const toml::node* node = root.get("launch");
    if (!node || !node->is_table()) bad(path, "no [launch] table");
    const toml::table& t = *node->as_table();
    toml_read::check_keys(t, {"argv", "managed_flags"}, path, "[launch]");
    core::KindLaunch launch;
    launch.argv = toml_read::strings_at(t, "argv", path, "launch");
    if (launch.argv.empty()) bad(path, "launch.argv must list the server's arguments");
    for (const auto& token : launch.argv) check_template(token, path, "launch.argv");
    launch.managed_flags = toml_read::strings_at(t, "managed_flags", path, "launch");
    // The model, where the server listens and how many requests it computes at once are what a
    // cell is; a kind that cannot be told them cannot be run.
    std::string all;
    for (const auto& token : launch.argv) all += token + "\n";
    for (const char* needed : {"{model}", "{port}", "{n}"})
        if (all.find(needed) == std::string::npos)
            bad(path, std::string("launch.argv never uses ") + needed);
    return launch;
}

}  // namespace

core::ServerKind parse_server_kind(const std::string& text, const std::string& path) {
    const toml::table root = toml_read::parse_text(text, path);
    toml_read::check_keys(root, {"schema", "name", "description", "launch"}, path, "the file");
    const std::string schema = toml_read::string_at(root, "schema", path, "the file");
    if (schema != core::kServerKindSchema)
        bad(path, "schema '" + schema + "' is not " + std::string(core::kServerKindSchema));
    core::ServerKind kind;
    kind.name = toml_read::string_at(root, "name", path, "the file");
    if (!is_name(kind.name))
        bad(path, "name '" + kind.name + "' must be letters, digits, '.', '_' or '-'");
    kind.description = toml_read::string_at(root, "description", path, "the file");
    kind.launch = read_launch(root, path);
    kind.source = path;
    kind.sha256 = core::sha256_hex(text);
    return kind;
}

core::ServerKind read_server_kind(const std::string& path) {
    std::string text;
    try {
        text = read_file(path);
    } catch (const Error& e) {
        throw Error(ErrorCategory::Input, e.what());
    }
    return parse_server_kind(text, path);
}

}  // namespace bi::io
