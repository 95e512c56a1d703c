// The plugins a run uses, each call run in one helper process (bi-plugin-host, host_process.hpp)
// that loads them with Poco::SharedLibrary, validates them and keeps them loaded for good. A
// plugin that crashes, aborts, calls exit() or hangs ends that helper, never bi-run: the call
// then throws PluginFault (plugin_fault.hpp), one line naming the plugin file, the call and the
// test id, "bi: plugin libcrash.so: score() crashed (signal 11, Segmentation fault) on test t-03",
// and every later call fails the same way.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "core/work_item.hpp"
#include "plugin_info.hpp"
#include "scorer.hpp"

namespace bi::plugin_host {

// The scorer used when none is named.
inline constexpr std::string_view kDefaultScorerId = "exact";
// How long one plugin call (load, create, score, generate) may run before its helper is killed.
inline constexpr std::chrono::seconds kDefaultPluginTimeout{30};

class PluginSet {
public:
    PluginSet();
    ~PluginSet();
    PluginSet(PluginSet&&) noexcept;
    PluginSet& operator=(PluginSet&&) noexcept;

    // Loads and validates one plugin file. Loading a file already loaded (the same canonical
    // path) does nothing; a plugin sharing ids with a bundled one replaces that bundled plugin
    // (it is listed no more); any other clash of scorer or generator ids is an error. Errors are
    // bi::Error(Plugin), one line: "bi: libfoo.so: incompatible ABI (plugin 2, host 1)"; a crash
    // or hang while loading is PluginFault.
    void load(const std::string& path);
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
    // loaded and may outlive this set. Its evaluate() throws PluginFault when the
    // plugin crashes or hangs (a failure the plugin reports is still failure_mode "scorer_error").
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
    // The per-call limit (kDefaultPluginTimeout unless set); time spent answering count_tokens
    // does not count against it.
    void set_call_timeout(std::chrono::milliseconds timeout);
    // Called every few milliseconds while a plugin call is waited on; it may throw (say
    // driver::Interrupted) to abandon the call: the helper is then killed and reaped first.
    void set_interrupt_check(std::function<void()> check);

private:
    struct State;
    void load_file(const std::string& path, bool bundled);
    std::string plugin_of_scorer(std::string_view id) const;
    std::string plugin_of_generator(std::string_view id) const;
    std::unique_ptr<State> state_;
};

}  // namespace bi::plugin_host
