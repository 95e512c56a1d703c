#include "model_profile.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "core/error.hpp"
#include "files.hpp"

namespace bi::io {

namespace {

[[noreturn]] void bad(const std::string& path, const std::string& message) {
    throw Error(ErrorCategory::Input, path + ": " + message);
}

toml::table parse(const std::string& path) {
    try {
        const std::string text = read_file(path);
        return toml::parse(text, path);
    } catch (const Error& e) {
        throw Error(ErrorCategory::Input, e.what());  // the user named this file
    } catch (const toml::parse_error& e) {
        const auto& where = e.source().begin;
        bad(path, "invalid TOML at line " + std::to_string(where.line) + ": " +
                      std::string(e.description()));
    }
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

// A key this reader would not use is refused rather than ignored: a silently dropped key (say a
// misspelt flags list) makes a run differ from what its cert says.
void check_keys(const toml::table& table, std::initializer_list<std::string_view> known,
                const std::string& path, const std::string& where) {
    for (const auto& [key, node] : table) {
        if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
        std::string list;
        for (const auto name : known) list += (list.empty() ? "" : ", ") + std::string(name);
        bad(path, "line " + std::to_string(node.source().begin.line) + ": unknown key '" +
                      std::string(key.str()) + "' in " + where + " (known: " + list + ")");
    }
}

// A model's flags: `flags`, or `server_flags` as the upstream tool spells it; not both.
std::vector<std::string> model_flags(const toml::table& model, const std::string& path,
                                     const std::string& where) {
    if (model.contains("flags") && model.contains("server_flags"))
        bad(path, where + " has both flags and server_flags: give one list");
    return model.contains("server_flags") ? strings_at(model, "server_flags", path, where)
                                          : strings_at(model, "flags", path, where);
}

const toml::array* models_of(const toml::table& root, const std::string& path) {
    const toml::node* node = root.get("models");
    if (!node) bad(path, "no [[models]] entries");
    const toml::array* models = node->as_array();
    if (!models) bad(path, "models must be an array of tables ([[models]])");
    return models;
}

std::string substitute(std::string text, const std::string& models_dir, const std::string& path) {
    static const std::string kPlaceholder = "{MODELS_DIR}";
    // The search goes on after the inserted directory, which is taken literally: a directory
    // that itself reads "{MODELS_DIR}" would otherwise be expanded forever.
    for (auto at = text.find(kPlaceholder); at != std::string::npos;
         at = text.find(kPlaceholder, at + models_dir.size())) {
        if (models_dir.empty())
            bad(path, "'" + text +
                          "' uses {MODELS_DIR}: set --models-dir, MODELS_DIR or "
                          "[defaults] models_dir");
        text.replace(at, kPlaceholder.size(), models_dir);
    }
    return text;
}

}  // namespace

ModelsFile list_models(const std::string& path) {
    const toml::table root = parse(path);
    ModelsFile file;
    file.path = path;
    for (const auto& node : *models_of(root, path))
        if (const toml::table* model = node.as_table())
            file.aliases.push_back(string_at(*model, "alias", path, "models[]"));
    return file;
}

ModelProfile load_model_profile(const std::string& path, const std::string& alias,
                                const std::string& models_dir) {
    const toml::table root = parse(path);
    check_keys(root, {"defaults", "models"}, path, "the top level");
    toml::table defaults;
    if (const toml::node* node = root.get("defaults")) {
        if (!node->is_table()) bad(path, "[defaults] must be a table");
        check_keys(*node->as_table(), {"server_bin", "server_flags", "models_dir"}, path,
                   "[defaults]");  // before the copy, which keeps no source lines
        defaults = *node->as_table();
    }
    const std::string dir =
        models_dir.empty() ? string_at(defaults, "models_dir", path, "defaults") : models_dir;

    std::string known;
    const toml::array* models = models_of(root, path);
    for (std::size_t i = 0; i < models->size(); ++i)
        if (const toml::table* model = (*models)[i].as_table())
            check_keys(*model, {"alias", "gguf", "server_bin", "kv", "flags", "server_flags"}, path,
                       "models[" + std::to_string(i) + "]");
    for (std::size_t i = 0; i < models->size(); ++i) {
        const toml::table* model = (*models)[i].as_table();
        const std::string where = "models[" + std::to_string(i) + "]";
        if (!model) bad(path, where + " must be a table");
        const std::string name = string_at(*model, "alias", path, where);
        if (name.empty()) bad(path, where + " has no alias");
        known += (known.empty() ? "" : ", ") + name;
        if (name != alias) continue;

        ModelProfile profile;
        profile.alias = name;
        profile.gguf = substitute(string_at(*model, "gguf", path, where), dir, path);
        if (profile.gguf.empty()) bad(path, where + " (" + name + ") has no gguf");
        profile.server_bin = string_at(*model, "server_bin", path, where);
        if (profile.server_bin.empty())
            profile.server_bin = string_at(defaults, "server_bin", path, "defaults");
        profile.server_bin = substitute(profile.server_bin, dir, path);
        profile.kv = string_at(*model, "kv", path, where);
        if (profile.kv.empty()) profile.kv = "f16";
        profile.server_flags = strings_at(defaults, "server_flags", path, "defaults");
        for (auto& flag : model_flags(*model, path, where))
            profile.server_flags.push_back(std::move(flag));
        return profile;
    }
    bad(path, "no model with alias '" + alias + "' (known: " + known + ")");
}

}  // namespace bi::io
