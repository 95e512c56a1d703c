// The mock's request logic without the HTTP plumbing: routes a call to its endpoint, applies the
// fault knobs, and always answers with a reply (never an exception).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>

#include "completion_bodies.hpp"
#include "mock_config.hpp"
#include "request_parsing.hpp"
#include "scheduler.hpp"

namespace bi::mock {

struct HttpCall {
    std::string method;
    std::string target;  // path, optionally with a query string
    std::string body;
};

struct HttpReply {
    int status = 200;
    std::string content_type = "application/json; charset=utf-8";
    std::string body;
    bool drop_connection = false;  // close the socket without answering (a dead server)
    // A streamed answer: the body is empty and each call appends the next events, already framed
    // ("data: ...\n\n"), blocking until there are some; false after the last.
    std::function<bool(std::string& events)> stream;
};

HttpReply json_reply(int status, const core::Json& body);
HttpReply error_reply(int status, const std::string& message, const std::string& type);

class MockService {
public:
    // stop_listening is called once when the mock "crashes" in-process.
    MockService(MockConfig config, std::function<void()> stop_listening);
    ~MockService();
    MockService(const MockService&) = delete;
    MockService& operator=(const MockService&) = delete;

    void start();  // starts the tick thread and the loading clock
    void stop();   // fails in-flight completions and releases hung requests; idempotent

    HttpReply handle(const HttpCall& call) noexcept;

    bool crashed() const { return crashed_; }
    Scheduler& scheduler() { return scheduler_; }
    const Scheduler& scheduler() const { return scheduler_; }
    const MockConfig& config() const { return config_; }

private:
    HttpReply route(const HttpCall& call);
    HttpReply complete(Endpoint endpoint, const std::string& body);
    HttpReply stream_reply(const CompletionRequest& request, const Scheduler::Ticket& ticket,
                           const ReplyContext& context);
    HttpReply tokenize_reply(const std::string& body);
    bool loading() const;
    void crash();
    void wait_for_stop();

    const MockConfig config_;
    const std::function<void()> stop_listening_;
    const std::string build_info_;
    Scheduler scheduler_;
    std::chrono::steady_clock::time_point started_;
    std::atomic<bool> crashed_{false};
    std::atomic<std::int64_t> completions_{0};
    std::mutex stop_mutex_;
    std::condition_variable stop_signal_;
    bool stopping_ = false;
};

}  // namespace bi::mock
