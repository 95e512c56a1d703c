#include "plugin_set.hpp"

#include <iostream>
#include <mutex>
#include <utility>

#include "bi/plugin.h"
#include "bundled_plugins.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "host_messages.hpp"
#include "host_process.hpp"
#include "io/json_text.hpp"
#include "plugin_fault.hpp"

namespace bi::plugin_host {

namespace {

using Clock = std::chrono::steady_clock;

// More rows than any work-set needs: a generator that goes on is stopped.
constexpr std::size_t kMaxGeneratedRows = 1000000;

void log_to_stderr(int level, std::string_view plugin_name, std::string_view message) {
    if (level < BI_LOG_INFO) return;
    std::cerr << "bi: plugin " << plugin_name << ": "
              << (level >= BI_LOG_ERROR     ? "error: "
                  : level >= BI_LOG_WARNING ? "warning: "
                                            : "")
              << message << "\n";
}

// Which plugin call a message is about: "bi: plugin PATH: score() ... on test ID".
struct CallSite {
    std::string plugin;
    std::string call;
    std::string test_id;

    std::string describe(const std::string& what) const {
        return "bi: plugin " + plugin + ": " + call + "() " + what +
               (test_id.empty() ? "" : " on test " + test_id);
    }
};

// "30", "0.3", "1.25": the timeout as the user typed it, near enough.
std::string seconds_text(std::chrono::milliseconds timeout) {
    return core::format_general(static_cast<double>(timeout.count()) / 1000.0);
}

}  // namespace

// The helper and what is needed to talk to it; shared by the set and the scorers it made, so a
// scorer may outlive its set. Calls are serialised: one request is in flight at a time.
class HostConnection {
public:
    std::chrono::milliseconds timeout = kDefaultPluginTimeout;
    std::function<void()> interrupt_check;
    PluginLogger logger = log_to_stderr;

    ~HostConnection() {
        if (process_) process_->shut_down(std::chrono::milliseconds(500));
    }

    bool broken() const { return !broken_.empty(); }

    // Sends `request` and returns the helper's successful reply. A failure the plugin or the
    // loader reported is rethrown with its own category; a dead, hung or garbled helper becomes
    // PluginFault described at `site`, and the helper is killed and reaped.
    core::Json call(const core::Json& request, const CallSite& site,
                    const TokenCounter* count_tokens = nullptr,
                    const std::function<void(core::Json)>* on_row = nullptr) {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (broken())
            throw PluginFault(
                site.describe("cannot run: the plugin host ended after an earlier "
                              "failure (" +
                              broken_ + ")"));
        if (!process_) process_ = std::make_unique<HostProcess>(plugin_host_executable());
        core::Json reply;
        try {
            reply = exchange(request, count_tokens, on_row);
        } catch (const HostFailure& failure) {
            process_->kill_and_reap();
            const std::string what = failure.what();
            broken_ = site.describe(what == "timed out"
                                        ? "did not return within " + seconds_text(timeout) +
                                              " s (--plugin-timeout)"
                                        : what);
            throw PluginFault(broken_);
        } catch (...) {
            process_->kill_and_reap();
            broken_ = site.call + "() was abandoned";
            throw;
        }
        if (reply.bool_or("ok", false)) return reply;
        const auto category = static_cast<ErrorCategory>(
            reply.int_or("category", static_cast<int>(ErrorCategory::Internal)));
        const std::string message = reply.string_or("message", "(no message)");
        if (reply.bool_or("fault", false)) throw PluginFault(site.describe(message));
        throw Error(category, message);
    }

private:
    core::Json exchange(const core::Json& request, const TokenCounter* count_tokens,
                        const std::function<void(core::Json)>* on_row) {
        auto deadline = Clock::now() + timeout;
        process_->send(io::to_json_text(request), deadline, interrupt_check);
        for (;;) {
            const std::string text = process_->receive(deadline, interrupt_check);
            core::Json frame;
            try {
                frame = io::parse_json(text, "plugin host message");
            } catch (const Error& e) {
                throw HostFailure(std::string("sent a malformed message (") + e.what() + ")");
            }
            const std::string type = frame.string_or("t", "");
            if (type == kFrameReply) return frame;
            if (type == kFrameLog) {
                if (logger)
                    logger(static_cast<int>(frame.int_or("level", BI_LOG_INFO)),
                           frame.string_or("plugin", "?"), frame.string_or("message", ""));
            } else if (type == kFrameCountTokens && count_tokens && *count_tokens) {
                const auto started = Clock::now();
                std::optional<std::int64_t> count;
                try {
                    count = (*count_tokens)(frame.string_or("text", ""));
                } catch (...) {
                    count.reset();  // as the in-process bridge does: "unavailable"
                }
                deadline += Clock::now() - started;
                core::Json answer = core::Json::object();
                answer.set("count", count ? core::Json(*count) : core::Json());
                process_->send(io::to_json_text(answer), deadline, interrupt_check);
            } else if (type == kFrameRow && on_row) {
                const core::Json* row = frame.find("row");
                if (!row) throw HostFailure("sent a malformed message (a row frame without row)");
                (*on_row)(*row);
            } else {
                throw HostFailure("sent a malformed message (unexpected frame '" + type + "')");
            }
        }
    }

    std::mutex mutex_;
    std::unique_ptr<HostProcess> process_;
    std::string broken_;
};

namespace {

// A scorer instance living in the helper, addressed by its handle there.
class IsolatedScorer final : public ScorerInstance {
public:
    IsolatedScorer(std::shared_ptr<HostConnection> host, std::int64_t handle,
                   std::string plugin_path)
        : host_(std::move(host)), handle_(handle), plugin_path_(std::move(plugin_path)) {}

    ~IsolatedScorer() override {
        if (host_->broken()) return;
        try {
            host_->call(core::Json::Object{{"op", "destroy"}, {"instance", handle_}},
                        {plugin_path_, "destroy", ""});
        } catch (const PluginFault& e) {
            std::cerr << e.what() << "\n";  // the plugin failed in destroy(): worth a line
        } catch (...) {
            // An interrupt abandoned the call (the helper is killed); the run reports that itself.
        }
    }

    using ScorerInstance::evaluate;
    ScoreOutcome evaluate(const core::WorkItem& item, const Generation& generation) override {
        const core::Json reply =
            host_->call(core::Json::Object{{"op", "evaluate"},
                                           {"instance", handle_},
                                           {"item", encode_item(item)},
                                           {"generation", encode_generation(generation)}},
                        {plugin_path_, "score", item.test_id});
        const core::Json* outcome = reply.find("outcome");
        if (!outcome)
            throw PluginFault(CallSite{plugin_path_, "score", item.test_id}.describe(
                "got no outcome from the plugin host"));
        return decode_outcome(*outcome);
    }

private:
    std::shared_ptr<HostConnection> host_;
    std::int64_t handle_;
    std::string plugin_path_;
};

}  // namespace

struct PluginSet::State {
    std::shared_ptr<HostConnection> host = std::make_shared<HostConnection>();
    std::vector<PluginInfo> plugins;  // as the helper last listed them
};

PluginSet::PluginSet() : state_(std::make_unique<State>()) {}
PluginSet::~PluginSet() = default;
PluginSet::PluginSet(PluginSet&&) noexcept = default;
PluginSet& PluginSet::operator=(PluginSet&&) noexcept = default;

void PluginSet::load(const std::string& path) {
    load_file(path, false);
}

void PluginSet::load_bundled(const std::vector<std::string>& dirs) {
    for (const auto& file : bundled_plugin_files(dirs)) load_file(file, true);
}

void PluginSet::load_file(const std::string& path, bool bundled) {
    const core::Json reply =
        state_->host->call(core::Json::Object{{"op", "load"}, {"path", path}, {"bundled", bundled}},
                           {path, "load", ""});
    state_->plugins = decode_infos(*reply.find("plugins"));
}

std::vector<PluginInfo> PluginSet::list() const {
    return state_->plugins;
}

std::string PluginSet::plugin_of_scorer(std::string_view id) const {
    for (const auto& plugin : state_->plugins)
        for (const auto& scorer : plugin.scorers)
            if (scorer.id == id) return plugin.path;
    return {};
}

std::string PluginSet::plugin_of_generator(std::string_view id) const {
    for (const auto& plugin : state_->plugins)
        for (const auto& generator : plugin.generators)
            if (generator.id == id) return plugin.path;
    return {};
}

bool PluginSet::has_scorer(std::string_view id) const {
    return !plugin_of_scorer(id).empty();
}

bool PluginSet::has_generator(std::string_view id) const {
    return !plugin_of_generator(id).empty();
}

std::unique_ptr<ScorerInstance> PluginSet::create_scorer(std::string_view id,
                                                         std::string_view config_json) const {
    const std::string_view wanted = id.empty() ? kDefaultScorerId : id;
    const std::string plugin = plugin_of_scorer(wanted);
    const core::Json reply =
        state_->host->call(core::Json::Object{{"op", "create"},
                                              {"scorer", std::string(wanted)},
                                              {"config", std::string(config_json)}},
                           {plugin.empty() ? "host" : plugin, "create", ""});
    return std::make_unique<IsolatedScorer>(state_->host, reply.int_or("instance", -1), plugin);
}

core::Json PluginSet::generate(std::string_view generator_id, const GenerationRequest& request,
                               const TokenCounter& count_tokens) const {
    const std::string plugin = plugin_of_generator(generator_id);
    const CallSite site{plugin.empty() ? "host" : plugin, "generate", ""};
    core::Json rows = core::Json::array();
    const std::function<void(core::Json)> on_row = [&rows](core::Json row) {
        if (rows.size() >= kMaxGeneratedRows)
            throw HostFailure("emitted more than " + std::to_string(kMaxGeneratedRows) + " rows");
        rows.push_back(std::move(row));
    };
    const core::Json reply =
        state_->host->call(core::Json::Object{{"op", "generate"},
                                              {"generator", std::string(generator_id)},
                                              {"request", encode_request(request)},
                                              {"count_tokens", static_cast<bool>(count_tokens)}},
                           site, &count_tokens, &on_row);
    if (reply.int_or("rows", -1) != static_cast<std::int64_t>(rows.size()))
        throw PluginFault(site.describe("lost rows on the way"));
    return rows;
}

void PluginSet::set_logger(PluginLogger logger) {
    state_->host->logger = std::move(logger);
}

void PluginSet::set_call_timeout(std::chrono::milliseconds timeout) {
    state_->host->timeout = timeout;
}

void PluginSet::set_interrupt_check(std::function<void()> check) {
    state_->host->interrupt_check = std::move(check);
}

}  // namespace bi::plugin_host
