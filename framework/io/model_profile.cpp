#include "model_profile.hpp"

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "core/determinism.hpp"
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

using toml_read::Row;
using toml_read::text_row;
using toml_read::texts_row;

// [defaults]: what every model gets unless its own entry says otherwise.
struct Defaults {
    std::string server_bin;
    std::vector<std::string> server_flags;
    std::string models_dir;
    std::string server_kind;
    bool cache_arm = false;
};

const std::vector<Row<Defaults>>& defaults_rows() {
    using D = Defaults;
    static const std::vector<Row<D>> rows{
        text_row("server_bin", &D::server_bin),
        texts_row("server_flags", &D::server_flags),
        text_row("models_dir", &D::models_dir),
        text_row("server_kind", &D::server_kind),
        {"cache_arm",
         [](const toml::table& t, const std::string& path, const std::string& where, D& d) {
             d.cache_arm = toml_read::bool_at(t, "cache_arm", false, path, where);
         }},
    };
    return rows;
}

// One [[models]] entry as written.
struct ModelEntry {
    std::string alias;
    std::string gguf;
    std::string server_bin;
    std::string kv;
    std::vector<std::string> flags;  // `flags`, or `server_flags` as the upstream tool spells it
    std::string server_kind;
    std::optional<bool> cache_arm;
    std::string determinism;
};

const std::vector<Row<ModelEntry>>& model_rows() {
    using M = ModelEntry;
    static const std::vector<Row<M>> rows{
        text_row("alias", &M::alias),
        text_row("gguf", &M::gguf),
        text_row("server_bin", &M::server_bin),
        text_row("kv", &M::kv),
        {"flags",
         [](const toml::table& model, const std::string& path, const std::string& where, M& m) {
             if (model.contains("flags") && model.contains("server_flags"))
                 bad(path, where + " has both flags and server_flags: give one list");
             m.flags = model.contains("server_flags")
                           ? strings_at(model, "server_flags", path, where)
                           : strings_at(model, "flags", path, where);
         }},
        {"server_flags", [](const toml::table&, const std::string&, const std::string&, M&) {}},
        text_row("server_kind", &M::server_kind),
        {"cache_arm",
         [](const toml::table& t, const std::string& path, const std::string& where, M& m) {
             if (t.contains("cache_arm"))
                 m.cache_arm = toml_read::bool_at(t, "cache_arm", false, path, where);
         }},
        {"determinism",
         [](const toml::table& t, const std::string& path, const std::string& where, M& m) {
             m.determinism = string_at(t, "determinism", path, where);
             if (!m.determinism.empty() && !core::parse_determinism(m.determinism))
                 bad(path, where + ".determinism must be " + std::string(core::kDeterminismWords) +
                               ", not '" + m.determinism + "'");
         }},
    };
    return rows;
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
    Defaults defaults;
    if (const toml::node* node = root.get("defaults")) {
        if (!node->is_table()) bad(path, "[defaults] must be a table");
        toml_read::read_rows(*node->as_table(), defaults_rows(), path, "defaults", "[defaults]",
                             defaults);
    }
    const std::string dir = models_dir.empty() ? defaults.models_dir : models_dir;

    // Every entry is read (and so checked) before the one asked for is used.
    std::vector<ModelEntry> entries;
    const toml::array* models = models_of(root, path);
    for (std::size_t i = 0; i < models->size(); ++i) {
        const toml::table* model = (*models)[i].as_table();
        const std::string where = "models[" + std::to_string(i) + "]";
        if (!model) bad(path, where + " must be a table");
        ModelEntry entry;
        toml_read::read_rows(*model, model_rows(), path, where, where, entry);
        if (entry.alias.empty()) bad(path, where + " has no alias");
        entries.push_back(std::move(entry));
    }
    std::string known;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const ModelEntry& entry = entries[i];
        known += (known.empty() ? "" : ", ") + entry.alias;
        if (entry.alias != alias) continue;
        const std::string where = "models[" + std::to_string(i) + "]";
        ModelProfile profile;
        profile.alias = entry.alias;
        profile.gguf = substitute(entry.gguf, dir, path);
        if (profile.gguf.empty()) bad(path, where + " (" + entry.alias + ") has no gguf");
        profile.server_bin = substitute(
            entry.server_bin.empty() ? defaults.server_bin : entry.server_bin, dir, path);
        profile.server_kind = entry.server_kind.empty() ? defaults.server_kind : entry.server_kind;
        profile.cache_arm = entry.cache_arm.value_or(defaults.cache_arm);
        profile.determinism = entry.determinism;
        profile.kv = entry.kv.empty() ? std::string(core::kDefaultKvLabel) : entry.kv;
        profile.server_flags = defaults.server_flags;
        profile.server_flags.insert(profile.server_flags.end(), entry.flags.begin(),
                                    entry.flags.end());
        return profile;
    }
    bad(path, "no model with alias '" + alias + "' (known: " + known + ")");
}

}  // namespace bi::io
