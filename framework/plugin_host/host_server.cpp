#include "host_server.hpp"

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "host_channel.hpp"
#include "host_messages.hpp"
#include "io/json_text.hpp"
#include "local_plugin_set.hpp"
#include "plugin_fault.hpp"

namespace bi::plugin_host {

namespace {

// A log line longer than this is cut: it is one line of a log, not a data channel.
constexpr std::size_t kMaxLogBytes = 4096;

struct GoneError : std::runtime_error {
    GoneError() : std::runtime_error("the peer closed the channel") {}
};

class Server {
public:
    explicit Server(int fd) : fd_(fd) {
        plugins_.set_logger([this](int level, std::string_view plugin, std::string_view message) {
            send(core::Json::Object{{"t", kFrameLog},
                                    {"level", level},
                                    {"plugin", std::string(plugin)},
                                    {"message", std::string(message.substr(0, kMaxLogBytes))}});
        });
    }

    int run() {
        try {
            while (auto request = read_frame_blocking(fd_)) send(answer(*request));
        } catch (const GoneError&) {
        }
        return 0;
    }

private:
    void send(const core::Json& frame) {
        if (!write_frame_blocking(fd_, io::to_json_text(frame))) throw GoneError();
    }

    // The reply, bounded: one over the frame limit is replaced by a fault naming its size.
    core::Json answer(const std::string& text) {
        core::Json reply;
        try {
            reply = handle(io::parse_json(text, "plugin host request"));
            reply.set("ok", true);
        } catch (const GoneError&) {
            throw;
        } catch (const PluginFault& e) {
            reply = fault(e.what());
        } catch (const Error& e) {
            reply = failure(e.category(), e.what());
        } catch (const std::exception& e) {
            reply = failure(ErrorCategory::Internal, std::string("bi: plugin host: ") + e.what());
        }
        reply.set("t", kFrameReply);
        const std::size_t size = io::to_json_text(reply).size();
        if (size > kMaxFrameBytes)
            return fault("returned " + std::to_string(size) + " bytes (limit " +
                         std::to_string(kMaxFrameBytes) + ")");
        return reply;
    }

    // A fault of the plugin ("returned 20971632 bytes ..."): the client names the plugin and call.
    static core::Json fault(const std::string& what) {
        core::Json reply = failure(ErrorCategory::Internal, what);
        reply.set("fault", true);
        return reply;
    }

    static core::Json failure(ErrorCategory category, const std::string& message) {
        return core::Json::Object{{"t", kFrameReply},
                                  {"ok", false},
                                  {"category", static_cast<int>(category)},
                                  {"message", message}};
    }

    core::Json handle(const core::Json& request) {
        const std::string op = request.string_or("op", "");
        if (op == "load") {
            const std::string path = request.string_or("path", "");
            if (request.bool_or("bundled", false))
                plugins_.load_bundled_file(path);
            else
                plugins_.load(path);
            return core::Json::Object{{"plugins", encode_infos(plugins_.list())}};
        }
        if (op == "create") {
            auto scorer = plugins_.create_scorer(request.string_or("scorer", ""),
                                                 request.string_or("config", ""));
            const std::int64_t handle = next_handle_++;
            scorers_.emplace(handle, std::move(scorer));
            return core::Json::Object{{"instance", handle}};
        }
        if (op == "evaluate") {
            const auto found = scorers_.find(request.int_or("instance", -1));
            if (found == scorers_.end())
                throw Error(ErrorCategory::Internal, "bi: plugin host: no such scorer instance");
            const core::WorkItem item = decode_item(*request.find("item"));
            const OwnedGeneration generation = decode_generation(*request.find("generation"));
            return core::Json::Object{
                {"outcome", encode_outcome(found->second->evaluate(item, generation.view()))}};
        }
        if (op == "destroy") {
            scorers_.erase(request.int_or("instance", -1));
            return core::Json::object();
        }
        if (op == "generate") return generate(request);
        throw Error(ErrorCategory::Internal, "bi: plugin host: unknown request '" + op + "'");
    }

    // Rows go out one frame each as the generator returns; the reply then says how many.
    core::Json generate(const core::Json& request) {
        TokenCounter count;
        if (request.bool_or("count_tokens", false))
            count = [this](std::string_view text) -> std::optional<std::int64_t> {
                send(core::Json::Object{{"t", kFrameCountTokens}, {"text", std::string(text)}});
                const auto answer = read_frame_blocking(fd_);
                if (!answer) throw GoneError();
                const core::Json parsed = io::parse_json(*answer, "count_tokens answer");
                const core::Json* value = parsed.find("count");
                if (!value || value->is_null()) return std::nullopt;
                return value->as_int();
            };
        const core::Json rows = plugins_.generate(request.string_or("generator", ""),
                                                  decode_request(*request.find("request")), count);
        for (const auto& row : rows.as_array()) {
            core::Json frame = core::Json::Object{{"t", kFrameRow}, {"row", row}};
            if (io::to_json_text(frame).size() > kMaxFrameBytes)
                throw PluginFault("emitted a row over " + std::to_string(kMaxFrameBytes) +
                                  " bytes");
            send(frame);
        }
        return core::Json::Object{{"rows", rows.size()}};
    }

    int fd_;
    LocalPluginSet plugins_;
    std::map<std::int64_t, std::unique_ptr<ScorerInstance>> scorers_;
    std::int64_t next_handle_ = 1;
};

}  // namespace

int serve_plugin_host(int fd) {
    return Server(fd).run();
}

}  // namespace bi::plugin_host
