#include "model_profile.hpp"

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "core/error.hpp"
#include "core/run_request.hpp"
#include "files.hpp"
#include "toml_read.hpp"

namespace bi::io {

namespace {

using toml_read::bad;
using toml_read::check_keys;
using toml_read::parse;
using toml_read::string_at;
using toml_read::strings_at;

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
        check_keys(*node->as_table(), {"server_bin", "server_flags", "models_dir", "server_kind"},
                   path,
                   "[defaults]");  // before the copy, which keeps no source lines
        defaults = *node->as_table();
    }
    const std::string dir =
        models_dir.empty() ? string_at(defaults, "models_dir", path, "defaults") : models_dir;

    std::string known;
    const toml::array* models = models_of(root, path);
    for (std::size_t i = 0; i < models->size(); ++i)
        if (const toml::table* model = (*models)[i].as_table())
            check_keys(
                *model,
                {"alias", "gguf", "server_bin", "kv", "flags", "server_flags", "server_kind"}, path,
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
        profile.server_kind = string_at(*model, "server_kind", path, where);
        if (profile.server_kind.empty())
            profile.server_kind = string_at(defaults, "server_kind", path, "defaults");
        profile.kv = string_at(*model, "kv", path, where);
        if (profile.kv.empty()) profile.kv = core::kDefaultKvLabel;
        profile.server_flags = strings_at(defaults, "server_flags", path, "defaults");
        for (auto& flag : model_flags(*model, path, where))
            profile.server_flags.push_back(std::move(flag));
        return profile;
    }
    bad(path, "no model with alias '" + alias + "' (known: " + known + ")");
}

}  // namespace bi::io
