// The bi-mock-server binary launched the way run-live launches llama-server: port from the
// stderr line, /props says bi_mock, SIGTERM exits 0; crash-after exits 1; bad hosts exit 2.
#include <catch2/catch.hpp>

#include <Poco/Exception.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <memory>

#include "built_paths.hpp"
#include "test_client.hpp"
#include "wait_until.hpp"

using namespace bi::mock::test;
using bi::core::Json;

namespace {

// A child bi-mock-server, killed and reaped on destruction if a test failed half-way.
class ServerProcess {
public:
    explicit ServerProcess(const std::vector<std::string>& args)
        : handle_(std::make_unique<Poco::ProcessHandle>(
              Poco::Process::launch(BI_MOCK_SERVER_BIN, args, nullptr, nullptr, &stderr_))),
          lines_(stderr_) {}

    ~ServerProcess() {
        if (reaped_) return;
        ::kill(pid(), SIGKILL);
        int status = 0;
        ::waitpid(pid(), &status, 0);
    }

    pid_t pid() const { return static_cast<pid_t>(handle_->id()); }

    // The next stderr line; empty at end of stream.
    std::string line() {
        std::string text;
        std::getline(lines_, text);
        return text;
    }

    // The port from "bi-mock-server: listening on http://127.0.0.1:PORT (N slots)", or 0.
    std::uint16_t port() {
        const std::string marker = "listening on http://127.0.0.1:";
        for (std::string text = line(); !text.empty(); text = line()) {
            const auto at = text.find(marker);
            if (at != std::string::npos)
                return static_cast<std::uint16_t>(std::stoi(text.substr(at + marker.size())));
        }
        return 0;
    }

    // Exit status, or -1 when it has not exited within `seconds` (the destructor kills it).
    int wait_exit(int seconds) {
        int status = 0;
        const bool exited =
            bi::testing::wait_until([&] { return ::waitpid(pid(), &status, WNOHANG) == pid(); },
                                    std::chrono::seconds(seconds), std::chrono::milliseconds(10));
        if (!exited) return -1;
        reaped_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }

private:
    Poco::Pipe stderr_;
    std::unique_ptr<Poco::ProcessHandle> handle_;
    Poco::PipeInputStream lines_;
    bool reaped_ = false;
};

}  // namespace

TEST_CASE("bi-mock-server stands in for llama-server and stops on SIGTERM", "[mock][cli]") {
    ServerProcess server({"-m",
                          "/nonexistent/model.gguf",
                          "--host",
                          "127.0.0.1",
                          "--port",
                          "0",
                          "-c",
                          "2048",
                          "-np",
                          "2",
                          "--metrics",
                          "-t",
                          "1",
                          "-ngl",
                          "99",
                          "-fa",
                          "on",
                          "--no-mmap",
                          "--cont-batching",
                          "--tick-ms=0"});
    const auto port = server.port();
    REQUIRE(port != 0);

    Client client(port);
    const auto props = client.get("/props").json();
    CHECK(props.bool_or("bi_mock", false));
    CHECK(props.int_or("total_slots", 0) == 2);
    CHECK(props.find("default_generation_settings")->int_or("n_ctx", 0) == 1024);
    CHECK(props.string_or("model_path", "") == "/nonexistent/model.gguf");
    CHECK(client.get("/metrics").status == 200);
    CHECK(
        client.post("/completion", Json(Json::Object{{"prompt", "hi"}, {"n_predict", 4}})).status ==
        200);

    const pid_t pid = server.pid();
    REQUIRE(::kill(pid, SIGTERM) == 0);
    CHECK(server.wait_exit(20) == 0);
    errno = 0;
    CHECK(::kill(pid, 0) == -1);
    CHECK(errno == ESRCH);
}

TEST_CASE("bi-mock-server --crash-after exits with status 1", "[mock][cli]") {
    ServerProcess server({"--port", "0", "--crash-after=1", "--tick-ms=0"});
    const auto port = server.port();
    REQUIRE(port != 0);
    Client client(port, 10000);
    const Json request = Json::Object{{"prompt", "hi"}, {"n_predict", 2}};
    CHECK(client.post("/completion", request).status == 200);
    CHECK_THROWS_AS(client.post("/completion", request), Poco::Exception);
    CHECK(server.wait_exit(20) == 1);
}

TEST_CASE("bi-mock-server refuses non-loopback hosts and bad flags with status 2", "[mock][cli]") {
    ServerProcess wide({"--host", "0.0.0.0", "--port", "0"});
    CHECK_THAT(wide.line(), Catch::Contains("127.0.0.1 only"));
    CHECK(wide.wait_exit(20) == 2);

    ServerProcess bad({"--port", "0", "--divergence=sometimes"});
    CHECK_THAT(bad.line(), Catch::Contains("sometimes"));
    CHECK(bad.wait_exit(20) == 2);

    ServerProcess help({"--help"});
    CHECK(help.wait_exit(20) == 0);
}
