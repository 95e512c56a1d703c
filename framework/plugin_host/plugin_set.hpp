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

#include "plugins.hpp"

namespace bi::plugin_host {

// How long one plugin call (load, create, score, generate) may run before its helper is killed.
inline constexpr std::chrono::seconds kDefaultPluginTimeout{30};

// Plugins as the interface says, with these additions: a crash or hang while loading is
// PluginFault, and so is one in a scorer instance's evaluate() (a failure the plugin reports is
// still failure_mode "scorer_error").
class PluginSet final : public Plugins {
public:
    PluginSet();
    ~PluginSet() override;
    PluginSet(PluginSet&&) noexcept;
    PluginSet& operator=(PluginSet&&) noexcept;

    void load(const std::string& path) override;
    using Plugins::load_bundled;
    void load_bundled(const std::vector<std::string>& dirs) override;

    std::vector<PluginInfo> list() const override;
    bool has_scorer(std::string_view id) const override;
    bool has_generator(std::string_view id) const override;

    std::unique_ptr<ScorerInstance> create_scorer(std::string_view id,
                                                  std::string_view config_json = {}) const override;
    core::Json generate(std::string_view generator_id, const GenerationRequest& request,
                        const TokenCounter& count_tokens = {}) const override;

    void set_logger(PluginLogger logger) override;
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
