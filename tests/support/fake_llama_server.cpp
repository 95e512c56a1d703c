#include "fake_llama_server.hpp"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/StreamCopier.h>
#include <Poco/ThreadPool.h>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "core/json.hpp"
#include "io/json_text.hpp"
#include "wait_until.hpp"

namespace bi::test {

using core::Json;

namespace {

std::int64_t word_count(const std::string& text) {
    std::istringstream in(text);
    std::string word;
    std::int64_t n = 0;
    while (in >> word) ++n;
    return n;
}

}  // namespace

struct FakeLlamaServer::State {
    FakeScript script;
    mutable std::mutex mutex;
    mutable std::condition_variable changed;
    bool shutting_down = false;
    int in_flight = 0;
    int max_in_flight = 0;
    int completion_calls = 0;
    int slots_calls = 0;
    int metrics_calls = 0;
    std::vector<std::string> bodies;
    std::set<std::string> clients;

    std::unique_ptr<Poco::ThreadPool> pool;
    std::unique_ptr<Poco::Net::HTTPServer> server;
    std::uint16_t port = 0;

    static void send(Poco::Net::HTTPServerResponse& response, int status, const std::string& type,
                     const std::string& body) {
        response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
        response.setContentType(type);
        response.setContentLength64(static_cast<Poco::Int64>(body.size()));
        response.send() << body;
    }

    std::string scripted(const std::vector<std::string>& bodies_for, int& calls) {
        std::lock_guard<std::mutex> lock(mutex);
        const int index = calls++;
        if (bodies_for.empty()) return {};
        return bodies_for[std::min<std::size_t>(static_cast<std::size_t>(index),
                                                bodies_for.size() - 1)];
    }

    // Waits as scripted; false when the server is shutting down instead.
    bool admit_completion(const std::string& body) {
        std::unique_lock<std::mutex> lock(mutex);
        const int index = completion_calls++;
        bodies.push_back(body);
        max_in_flight = std::max(max_in_flight, ++in_flight);
        changed.notify_all();
        if (index < script.hold_first)
            changed.wait_for(lock, std::chrono::seconds(20),
                             [&] { return in_flight >= script.hold_first || shutting_down; });
        if (script.hang_after >= 0 && index >= script.hang_after)
            changed.wait(lock, [&] { return shutting_down; });
        else
            changed.wait_for(lock, script.completion_delay, [&] { return shutting_down; });
        --in_flight;  // before answering, so a client's next request never counts twice
        changed.notify_all();
        return !shutting_down;
    }

    static std::string completion_answer(const std::string& uri, const Json& request) {
        const bool chat = uri == "/v1/chat/completions";
        std::string prompt;
        std::int64_t k = 0;
        if (chat) {
            prompt = request.find("messages")->as_array().back().find("content")->as_string();
            if (request.bool_or("logprobs", false)) k = request.int_or("top_logprobs", 0);
        } else {
            prompt = request.find("prompt")->as_string();
            k = request.int_or("n_probs", 0);
        }
        const std::string content = "echo:" + prompt;
        const auto prompt_tokens = word_count(prompt);
        const Json::Array ids{static_cast<std::int64_t>(prompt.size()), 1, 2};
        Json probs = Json::array();
        for (const Json& id : ids)
            probs.push_back(Json::Object{{"id", id}, {"token", "t"}, {"logprob", -0.5}});
        Json timings = Json::Object{{"prompt_n", prompt_tokens},
                                    {"cache_n", 0},
                                    {"predicted_n", 3},
                                    {"predicted_per_second", 100.0}};
        Json answer = Json::object();
        if (chat) {
            Json choice =
                Json::Object{{"finish_reason", "length"},
                             {"index", 0},
                             {"message", Json::Object{{"role", "assistant"},
                                                      {"content", content},
                                                      {"reasoning_content", "why:" + prompt}}}};
            if (k > 0) choice.set("logprobs", Json::Object{{"content", probs}});
            answer.set("choices", Json::Array{choice});
            answer.set("usage", Json::Object{{"prompt_tokens", prompt_tokens},
                                             {"completion_tokens", 3},
                                             {"total_tokens", prompt_tokens + 3}});
        } else {
            answer.set("content", content);
            answer.set("tokens", ids);
            answer.set("id_slot", 0);
            answer.set("tokens_predicted", 3);
            answer.set("tokens_evaluated", prompt_tokens);
            answer.set("stop_type", "limit");
            if (k > 0) answer.set("completion_probabilities", probs);
        }
        answer.set("timings", timings);
        return io::to_json_text(answer);
    }

    void handle(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) {
        std::string body;
        Poco::StreamCopier::copyToString(request.stream(), body);
        const std::string uri = request.getURI();
        {
            std::lock_guard<std::mutex> lock(mutex);
            clients.insert(request.clientAddress().toString());
        }
        if (uri == "/slots") {
            const std::string text = scripted(script.slots_bodies, slots_calls);
            if (text.empty()) return send(response, 501, "application/json", "{}");
            return send(response, 200, "application/json", text);
        }
        if (uri == "/metrics") {
            const std::string text = scripted(script.metrics_bodies, metrics_calls);
            if (text.empty()) return send(response, 501, "application/json", "{}");
            return send(response, 200, "text/plain; version=0.0.4", text);
        }
        if (uri == "/tokenize") {
            Json tokens = Json::array();
            const auto n =
                word_count(io::parse_json(body, "tokenize").find("content")->as_string());
            for (std::int64_t i = 0; i < n; ++i) tokens.push_back(i);
            return send(response, 200, "application/json",
                        io::to_json_text(Json::Object{{"tokens", tokens}}));
        }
        if (uri == "/v1/chat/completions" || uri == "/completion") {
            if (!admit_completion(body)) return send(response, 503, "text/plain", "stopping");
            if (script.completion_status != 200)
                return send(response, script.completion_status, "application/json",
                            script.completion_error_body);
            return send(response, 200, "application/json",
                        completion_answer(uri, io::parse_json(body, "request")));
        }
        send(response, 404, "text/plain", "not found");
    }
};

namespace {

class Handler : public Poco::Net::HTTPRequestHandler {
public:
    explicit Handler(FakeLlamaServer::State* state) : state_(state) {}
    void handleRequest(Poco::Net::HTTPServerRequest& request,
                       Poco::Net::HTTPServerResponse& response) override {
        try {
            state_->handle(request, response);
        } catch (const std::exception& e) {
            if (!response.sent()) {
                response.setStatus(Poco::Net::HTTPResponse::HTTP_BAD_REQUEST);
                response.send() << e.what();
            }
        }
    }

private:
    FakeLlamaServer::State* state_;
};

class Factory : public Poco::Net::HTTPRequestHandlerFactory {
public:
    explicit Factory(FakeLlamaServer::State* state) : state_(state) {}
    Poco::Net::HTTPRequestHandler* createRequestHandler(
        const Poco::Net::HTTPServerRequest&) override {
        return new Handler(state_);
    }

private:
    FakeLlamaServer::State* state_;
};

}  // namespace

FakeLlamaServer::FakeLlamaServer(FakeScript script, int threads)
    : state_(std::make_unique<State>()) {
    state_->script = std::move(script);
    // One connection occupies one pool thread for its lifetime, so the pool is sized above
    // every connection a test opens.
    state_->pool = std::make_unique<Poco::ThreadPool>(2, threads + 4);
    Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
    auto* params = new Poco::Net::HTTPServerParams;
    params->setMaxThreads(threads);
    params->setMaxQueued(64);
    params->setKeepAlive(true);
    state_->server = std::make_unique<Poco::Net::HTTPServer>(new Factory(state_.get()),
                                                             *state_->pool, socket, params);
    state_->server->start();
    state_->port = socket.address().port();
}

FakeLlamaServer::~FakeLlamaServer() {
    {
        std::lock_guard<std::mutex> lock(state_->mutex);
        state_->shutting_down = true;
    }
    state_->changed.notify_all();
    state_->server->stopAll(true);
    state_->pool->joinAll();
    state_->server.reset();
}

std::uint16_t FakeLlamaServer::port() const {
    return state_->port;
}

#define BI_FAKE_COUNTER(name)                            \
    int FakeLlamaServer::name() const {                  \
        std::lock_guard<std::mutex> lock(state_->mutex); \
        return state_->name;                             \
    }
BI_FAKE_COUNTER(max_in_flight)
BI_FAKE_COUNTER(in_flight)
BI_FAKE_COUNTER(completion_calls)
BI_FAKE_COUNTER(slots_calls)
BI_FAKE_COUNTER(metrics_calls)
#undef BI_FAKE_COUNTER

std::vector<std::string> FakeLlamaServer::completion_bodies() const {
    std::lock_guard<std::mutex> lock(state_->mutex);
    return state_->bodies;
}

std::set<std::string> FakeLlamaServer::client_addresses() const {
    std::lock_guard<std::mutex> lock(state_->mutex);
    return state_->clients;
}

bool FakeLlamaServer::wait_until(
    const std::function<bool(const FakeLlamaServer&)>& predicate) const {
    return bi::testing::wait_until([&] { return predicate(*this); }, std::chrono::seconds(20));
}

std::uint16_t unused_port() {
    Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
    const std::uint16_t port = socket.address().port();
    socket.close();
    return port;
}

}  // namespace bi::test
