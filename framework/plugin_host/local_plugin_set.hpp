// The plugins loaded into this very process with Poco::SharedLibrary, validated at load time and
// kept loaded for good. Only the plugin host (bi-plugin-host) and the in-process benchmark use it:
// everything else goes through PluginSet, which runs plugins in that helper process.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "core/work_item.hpp"
#include "plugin_info.hpp"
#include "plugin_set.hpp"
#include "scorer.hpp"

namespace bi::plugin_host {

class LocalPluginSet {
public:
    LocalPluginSet();
    ~LocalPluginSet();
    LocalPluginSet(LocalPluginSet&&) noexcept;
    LocalPluginSet& operator=(LocalPluginSet&&) noexcept;

    // Loads and validates one plugin file. Loading a file already loaded (the same canonical
    // path) does nothing; a plugin sharing ids with a bundled one replaces that bundled plugin
    // (it is listed no more); any other clash of scorer or generator ids is an error. Errors are
    // bi::Error(Plugin), one line: "bi: libfoo.so: incompatible ABI (plugin 2, host 1)".
    void load(const std::string& path);
    // load() for a plugin shipped with bi-run (listed as bundled).
    void load_bundled_file(const std::string& path);
    // Loads the plugins shipped with bi-run from bundled_plugin_dirs() (or `dirs`): libexact.so
    // must be there; the other bundled plugins load when present.
    void load_bundled();
    void load_bundled(const std::vector<std::string>& dirs);

    std::vector<PluginInfo> list() const;  // in load order
    bool has_scorer(std::string_view id) const;
    bool has_generator(std::string_view id) const;

    // A per-run instance of scorer `id` ("" means kDefaultScorerId). `config_json` is handed to
    // the scorer's create ("" means "{}"). An unknown id or invalid config JSON is
    // bi::Error(Usage); a failing create is bi::Error(Plugin). The instance keeps its plugin
    // loaded and may outlive this set.
    std::unique_ptr<ScorerInstance> create_scorer(std::string_view id,
                                                  std::string_view config_json = {}) const;

    // Runs generator `generator_id` and returns its rows as a JSON array of
    // {prompt, family, fill, expected_answer, system?}. `count_tokens` may be empty (no server):
    // the plugin then sees count_tokens == NULL and estimates.
    core::Json generate(std::string_view generator_id, const GenerationRequest& request,
                        const TokenCounter& count_tokens = {}) const;
    // generate() read through io::rows_from_json, so rows obey the work-set file rules.
    std::vector<core::WorkRow> generate_rows(std::string_view generator_id,
                                             const GenerationRequest& request,
                                             const TokenCounter& count_tokens = {}) const;

    // Where plugins' log lines go; by default stderr, "bi: plugin NAME: message", debug dropped.
    void set_logger(PluginLogger logger);

private:
    struct State;
    void load_file(const std::string& path, bool bundled);
    std::unique_ptr<State> state_;
};

}  // namespace bi::plugin_host
