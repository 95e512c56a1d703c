// run-live's lifecycle and guards, with stand-in servers: the right exit code, no cert, and no
// process left behind, in every failure path.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "built_paths.hpp"
#include "core/cert.hpp"
#include "core/cert_consistency.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "processes.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"
#include "wait_until.hpp"

using namespace bi;
using testing::run_command;
namespace fs = std::filesystem;

extern char** environ;

namespace {

using bi::testing::process_exists;
using bi::testing::read_pid;

// A model file is only read for its size and header; any file will do for stand-ins.
std::string fake_model(const testing::ScratchDir& dir) {
    const auto path = dir.file("model.gguf");
    io::write_file_atomically(path, "not really a model");
    return path;
}

std::vector<std::string> live_argv(const testing::ScratchDir& dir, const std::string& server,
                                   std::vector<std::string> extra) {
    std::vector<std::string> argv{BI_RUN_PATH,     "run-live",
                                  "--server-bin",  server,
                                  "--model",       fake_model(dir),
                                  "--model-alias", "m",
                                  "--out-dir",     dir.file("out"),
                                  "--workset",     BI_SMALL_WORKSET,
                                  "--n-predict",   "40",
                                  "--passes",      "2",
                                  "--ctx",         "512",
                                  "--quiet"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
}

std::string cert_path(const testing::ScratchDir& dir) {
    return dir.file("out/" + core::cert_file_name("m", 512, 4));
}

// The port in bi-mock-server's "listening on http://127.0.0.1:PORT" log line; 0 until it is there.
std::uint16_t listening_port(const std::string& log) {
    const std::string marker = "listening on http://127.0.0.1:";
    const std::string text = testing::read_text(log);
    const auto at = text.find(marker);
    if (at == std::string::npos) return 0;
    return static_cast<std::uint16_t>(std::atoi(text.c_str() + at + marker.size()));
}

// llamacpp:requests_processing from the server's /metrics; -1 when it does not answer.
int requests_processing(std::uint16_t port) {
    try {
        Poco::Net::HTTPClientSession session("127.0.0.1", port);
        session.setTimeout(Poco::Timespan(2, 0));
        Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, "/metrics",
                                       Poco::Net::HTTPMessage::HTTP_1_1);
        session.sendRequest(request);
        Poco::Net::HTTPResponse response;
        std::string text;
        Poco::StreamCopier::copyToString(session.receiveResponse(response), text);
        const std::string metric = "\nllamacpp:requests_processing ";
        const auto at = text.find(metric);
        return at == std::string::npos ? -1 : std::atoi(text.c_str() + at + metric.size());
    } catch (const Poco::Exception&) {
        return -1;
    }
}

std::vector<pid_t> server_pids(const core::Json& cert) {
    std::vector<pid_t> pids;
    for (const char* which : {"A", "N"})
        pids.push_back(static_cast<pid_t>(cert.find("server")->find(which)->find("pid")->as_int()));
    return pids;
}

}  // namespace

TEST_CASE("run-live against bi-mock-server: a cert with source mock, no server left",
          "[lifecycle]") {
    testing::ScratchDir dir;
    auto r = run_command(live_argv(dir, BI_MOCK_SERVER_PATH, {}));
    INFO(r.err);
    CHECK(r.exit_code == 3);
    auto loaded = io::read_cert(cert_path(dir));
    CHECK(loaded.digest_intact);
    CHECK(loaded.document.find("source")->as_string() == "mock");
    CHECK(loaded.document.find("status")->as_string() == "green");
    CHECK(core::cert_disagreements(loaded.cert).empty());
    CHECK(run_command({BI_RUN_PATH, "verify-cert", cert_path(dir)}).exit_code == 3);
    loaded.cert.source = core::Source::Live;  // the mock's own /props still say bi_mock
    CHECK_THAT(core::cert_disagreements(loaded.cert).front(),
               Catch::StartsWith("source is live but server.props says bi_mock"));
    const auto& argv_n = loaded.document.find("server")->find("N")->find("argv")->as_array();
    CHECK(std::find(argv_n.begin(), argv_n.end(), core::Json("--parallel")) != argv_n.end());
    for (pid_t pid : server_pids(loaded.document)) CHECK_FALSE(process_exists(pid));
    CHECK(fs::exists(dir.file("out/m__ctx512.server.log")));
}

TEST_CASE("run-live: a --server-flag with a comma is one argv token in the launch and the cert",
          "[lifecycle]") {
    testing::ScratchDir dir;
    auto r = run_command(
        live_argv(dir, BI_MOCK_SERVER_PATH, {"--server-flag=--tensor-split", "--server-flag=3,1"}));
    INFO(r.err);
    CHECK(r.exit_code == 3);
    auto loaded = io::read_cert(cert_path(dir));
    CHECK(loaded.digest_intact);
    for (const char* which : {"A", "N"}) {
        const auto& argv = loaded.document.find("server")->find(which)->find("argv")->as_array();
        auto at = std::find(argv.begin(), argv.end(), core::Json("--tensor-split"));
        REQUIRE(at != argv.end());
        REQUIRE(at + 1 != argv.end());
        CHECK(*(at + 1) == core::Json("3,1"));
        CHECK(argv.back() == core::Json("3,1"));
    }
    CHECK(loaded.document.find("run")->find("server_flags")->as_array() ==
          core::Json::Array{"--tensor-split", "3,1"});
    CHECK(core::cert_disagreements(loaded.cert).empty());
}

TEST_CASE("run-live: a server that exits at start -> exit 1, no cert", "[lifecycle]") {
    testing::ScratchDir dir;
    auto r = run_command(live_argv(
        dir, BI_STAND_IN_PATH,
        {"--server-flag=--stand-in=exit", "--server-flag=--pid-file=" + dir.file("pid")}));
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("exited before it was ready") &&
                          Catch::Contains("exited with status 3") &&
                          Catch::Contains("failed to load model"));
    CHECK_FALSE(fs::exists(cert_path(dir)));
    CHECK_FALSE(process_exists(read_pid(dir.file("pid"))));
}

TEST_CASE("run-live: a server that hangs before ready -> exit 1, no cert, killed", "[lifecycle]") {
    testing::ScratchDir dir;
    auto r = run_command(
        live_argv(dir, BI_STAND_IN_PATH,
                  {"--server-flag=--stand-in=hang", "--server-flag=--pid-file=" + dir.file("pid"),
                   "--ready-timeout", "1"}));
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("not ready after"));
    CHECK_FALSE(fs::exists(cert_path(dir)));
    const pid_t pid = read_pid(dir.file("pid"));
    CHECK(pid > 0);
    CHECK_FALSE(process_exists(pid));
}

TEST_CASE("run-live: a server that dies mid-arm -> exit 1, old cert untouched", "[lifecycle]") {
    testing::ScratchDir dir;
    fs::create_directories(dir.file("out"));
    io::write_file_atomically(cert_path(dir), "an older cert\n");
    auto r = run_command(live_argv(dir, BI_MOCK_SERVER_PATH, {"--server-flag=--crash-after=5"}));
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("died during arm A"));
    CHECK_THAT(r.err, Catch::Contains("exited with status"));
    CHECK(io::read_file(cert_path(dir)) == "an older cert\n");
}

TEST_CASE("run-live: a server that ignores SIGTERM is killed after the grace", "[lifecycle]") {
    testing::ScratchDir dir;
    auto r = run_command(live_argv(dir, BI_MOCK_SERVER_PATH,
                                   {"--server-flag=--ignore-sigterm", "--shutdown-grace", "0.5"}));
    INFO(r.err);
    CHECK(r.exit_code == 3);
    auto loaded = io::read_cert(cert_path(dir));
    for (pid_t pid : server_pids(loaded.document)) CHECK_FALSE(process_exists(pid));
    CHECK_THAT(io::read_file(dir.file("out/m__ctx512.server.log")),
               Catch::Contains("ignoring SIGTERM"));
}

TEST_CASE("run-live: a signal mid-run tears the server down and exits 128 + signal",
          "[lifecycle]") {
    const auto [signal_number, expected] = GENERATE(
        std::make_pair(SIGINT, 130), std::make_pair(SIGTERM, 143), std::make_pair(SIGHUP, 129));
    INFO("signal " << signal_number);
    testing::ScratchDir dir;
    // A slow mock (100 ms per token) keeps arm A busy long enough to interrupt it.
    auto argv = live_argv(dir, BI_MOCK_SERVER_PATH, {"--server-flag=--tick-ms=100"});
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid_t driver = 0;
    REQUIRE(::posix_spawn(&driver, args[0], nullptr, nullptr, args.data(), environ) == 0);
    const auto log = dir.file("out/m__ctx512.server.log");
    // Interrupt only once arm A really has a request in flight on the server the log names.
    std::uint16_t port = 0;
    CHECK(testing::wait_until([&] { return (port = listening_port(log)) != 0; }));
    CHECK(testing::wait_until([&] { return requests_processing(port) > 0; }));
    ::kill(driver, signal_number);
    int status = 0;
    REQUIRE(::waitpid(driver, &status, 0) == driver);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == expected);
    CHECK_FALSE(fs::exists(cert_path(dir)));
    // The server's own log says it was stopped by SIGTERM from the driver.
    CHECK_THAT(io::read_file(log), Catch::Contains("stopped"));
}

TEST_CASE("run-live guards refuse with exit 2 and write nothing", "[lifecycle][guards]") {
    testing::ScratchDir dir;
    const std::string model = fake_model(dir);
    auto base = [&](std::vector<std::string> extra) {
        std::vector<std::string> argv{BI_RUN_PATH, "run-live", "--out-dir", dir.file("out"),
                                      "--quiet"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        return run_command(argv);
    };
    SECTION("missing binary") {
        auto r = base({"--server-bin", dir.file("nope"), "--model", model});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("server binary") && Catch::Contains("not found"));
    }
    SECTION("missing model") {
        auto r = base({"--server-bin", BI_MOCK_SERVER_PATH, "--model", dir.file("none.gguf")});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("none.gguf: not found"));
    }
    SECTION("reserved port") {
        auto r = base({"--server-bin", BI_MOCK_SERVER_PATH, "--model", model, "--port", "45123",
                       "--reserved-port", "45123"});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("--port 45123 is reserved"));
    }
    SECTION("busy port") {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        REQUIRE(::listen(fd, 1) == 0);
        socklen_t size = sizeof a;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size);
        const auto port = std::to_string(ntohs(a.sin_port));
        auto r = base({"--server-bin", BI_MOCK_SERVER_PATH, "--model", model, "--port", port});
        ::close(fd);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("is busy"));
    }
    SECTION("footprint over the cap") {
        auto r = base(
            {"--server-bin", BI_MOCK_SERVER_PATH, "--model", model, "--max-footprint-gb", "0.01"});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("exceeds --max-footprint-gb"));
    }
    SECTION("a managed flag") {
        auto r =
            base({"--server-bin", BI_MOCK_SERVER_PATH, "--model", model, "--server-flag=--port=9"});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("bi-run sets --port itself"));
    }
    SECTION("bad profile") {
        io::write_file_atomically(dir.file("models.toml"),
                                  "[[models]]\nalias = \"a\"\ngguf = \"x.gguf\"\n");
        auto r = base({"--profile", "zzz", "--models-toml", dir.file("models.toml")});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("no model with alias 'zzz' (known: a)"));
    }
    // Nothing was written by any refused run: no cert, no log.
    CHECK((!fs::exists(dir.file("out")) || fs::is_empty(dir.file("out"))));
}

TEST_CASE("run-live --dry-run prints the plan and launches nothing", "[lifecycle]") {
    testing::ScratchDir dir;
    auto r = run_command(live_argv(dir, BI_MOCK_SERVER_PATH, {"--dry-run", "--parallel", "2"}));
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("--parallel 2") && Catch::Contains("footprint") &&
                          Catch::Contains("m__ctx512__N2.json"));
    CHECK_FALSE(fs::exists(dir.file("out")));  // nothing written, not even the directory
}

TEST_CASE("run-live with a profile from models.toml", "[lifecycle]") {
    testing::ScratchDir dir;
    const std::string model = fake_model(dir);
    io::write_file_atomically(
        dir.file("models.toml"),
        "[defaults]\nserver_bin = \"" + std::string(BI_MOCK_SERVER_PATH) +
            "\"\nserver_flags = [\"--tick-ms=1\"]\n\n[[models]]\nalias = \"tiny\"\n"
            "gguf = \"{MODELS_DIR}/model.gguf\"\nkv = \"q8_0\"\n");
    auto r = run_command({BI_RUN_PATH,     "run-live",
                          "--profile",     "tiny",
                          "--models-toml", dir.file("models.toml"),
                          "--models-dir",  dir.path(),
                          "--out-dir",     dir.file("out"),
                          "--workset",     BI_SMALL_WORKSET,
                          "--n-predict",   "4",
                          "--passes",      "1",
                          "--ctx",         "256",
                          "--parallel",    "2",
                          "--quiet"});
    INFO(r.err);
    CHECK(r.exit_code == 3);
    auto loaded = io::read_cert(dir.file("out/tiny__ctx256__N2.json"));
    CHECK(loaded.document.find("kv_label")->as_string() == "q8_0");
    CHECK(loaded.document.find("model_file")->find("path")->as_string() == model);
}

TEST_CASE("sweep: one cert per cell and a summary", "[lifecycle]") {
    testing::ScratchDir dir;
    auto r = run_command({BI_RUN_PATH,     "sweep",
                          "--server-bin",  BI_MOCK_SERVER_PATH,
                          "--model",       fake_model(dir),
                          "--model-alias", "m",
                          "--out-dir",     dir.file("out"),
                          "--workset",     BI_SMALL_WORKSET,
                          "--n-predict",   "4",
                          "--passes",      "1",
                          "--ctx",         "256,512",
                          "--parallel",    "2,4",
                          "--quiet"});
    INFO(r.err);
    CHECK(r.exit_code == 3);
    for (const char* name :
         {"m__ctx256__N2.json", "m__ctx256__N4.json", "m__ctx512__N2.json", "m__ctx512__N4.json"})
        CHECK(fs::exists(dir.file(std::string("out/") + name)));
    CHECK_THAT(r.out, Catch::Contains("summary"));
    // One A baseline per ctx: two 1-slot launches in all, plus one per (ctx, N).
    const std::string log256 = io::read_file(dir.file("out/m__ctx256.server.log"));
    CHECK_THAT(log256, Catch::Contains("--parallel 1"));
    std::size_t launches = 0;
    for (auto at = log256.find("=== bi-run launch"); at != std::string::npos;
         at = log256.find("=== bi-run launch", at + 1))
        ++launches;
    CHECK(launches == 3);
}

TEST_CASE("plan-n prints a footprint row per N", "[lifecycle]") {
    testing::ScratchDir dir;
    auto r = run_command(
        {BI_RUN_PATH, "plan-n", "--model", fake_model(dir), "--ctx", "4096", "--max-n", "3"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("ctx_total") && Catch::Contains("12288"));
}

TEST_CASE("selftest against the mock as a stand-in binary reports source mock", "[lifecycle]") {
    testing::ScratchDir dir;
    auto r = run_command({BI_RUN_PATH, "selftest", "--server-bin", BI_MOCK_SERVER_PATH, "--out-dir",
                          dir.path(), "--passes", "1", "--n-predict", "8",
                          "--server-flag=--tick-ms=1", "--quiet"});
    INFO(r.err);
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.out, Catch::Contains("serial runs reproduce themselves: yes") &&
                          Catch::Contains("[source mock]") &&
                          Catch::Contains("0 of 32 prompts changed tokens"));
    auto loaded = io::read_cert(dir.file(core::cert_file_name("bi-selftest-f32", 1024, 4)));
    CHECK(loaded.document.find("source")->as_string() == "mock");
    CHECK(core::cert_disagreements(loaded.cert).empty());
    CHECK_FALSE(fs::exists(dir.file("bi-selftest-f32.gguf")));  // the model is removed after
}

TEST_CASE("selftest refuses bad usage with exit 2", "[lifecycle]") {
    auto r = run_command({BI_RUN_PATH, "selftest"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--server-bin is required"));
    r = run_command(
        {BI_RUN_PATH, "selftest", "--server-bin", BI_MOCK_SERVER_PATH, "--parallel", "1"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("at least 2"));
}
