// What a person (or an adversary) types reaches bi-run whole or is refused in one line that names
// the option or the file: exit 2, no cert, no --out-dir, an existing cert untouched.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "io/files.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::run_command;

namespace {

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

testing::CommandResult run_mock(const testing::ScratchDir& dir, std::vector<std::string> extra) {
    std::vector<std::string> argv = {BI_RUN_PATH, "run-mock", "--out-dir", dir.file("out"),
                                     "--quiet"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv);
}

}  // namespace

TEST_CASE("a value that is not a number names its option", "[cli][hostile-input]") {
    testing::ScratchDir dir;
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--passes", "abc"}, "bi-run run-mock: --passes: 'abc' is not an integer"},
        {{"--passes=nan"}, "bi-run run-mock: --passes: 'nan' is not an integer"},
        {{"--req-timeout", "inf"}, "bi-run run-mock: --req-timeout: 'inf' is not a number"},
        {{"--seed", "-1"}, "bi-run run-mock: --seed: '-1' is not a whole number (0 or more)"},
        {{"--ctx", "1e12"}, "bi-run run-mock: --ctx 1e12: expected a whole number"},
        {{"--divergence-p", "2"}, "bi-run run-mock: --divergence-p must be between 0 and 1"},
        {{"--tick-ms", "-1"}, "bi-run run-mock: --tick-ms must be between 0 and 60000"},
        {{"--loading-seconds", "1e300"}, "--loading-seconds must be between 0 and 3600"},
        {{"--bogus"}, "bi-run run-mock: unknown option --bogus (see bi-run run-mock --help)"},
        {{"stray"}, "bi-run run-mock: unexpected argument 'stray'"},
    };
    for (const auto& [extra, message] : cases) {
        const auto r = run_mock(dir, extra);
        INFO(extra.front() << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(message));
        CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
        CHECK_FALSE(exists(dir.file("out")));
    }
}

TEST_CASE("the work-set must be a UTF-8 file or stream, and a FIFO nobody writes does not block",
          "[cli][hostile-input]") {
    testing::ScratchDir dir;
    const std::string fifo = dir.file("ws.fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const std::string bad_utf8 =
        dir.write("ws.json", "[{\"prompt\": \"q\", \"family\": \"caf\xC3\"}]");
    const std::vector<std::pair<std::string, std::string>> cases = {
        // A FIFO is read as a stream; with no writer its read deadline ends the wait.
        {fifo, "cannot read " + fifo + ": no end within 1 s (BI_INPUT_STREAM_SECONDS)"},
        {dir.path(), "cannot read " + dir.path() + ": it is a directory"},
        {"/dev/zero", "cannot read /dev/zero: it is a character device"},
        {bad_utf8, bad_utf8 + ": rows[0]: invalid UTF-8 at byte offset 31"},
    };
    ::setenv("BI_INPUT_STREAM_SECONDS", "1", 1);  // inherited by bi-run
    for (const auto& [path, message] : cases) {
        const auto r = run_mock(dir, {"--workset", path});
        INFO(path << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("--workset: " + message));
        CHECK_FALSE(exists(dir.file("out")));
    }
    ::unsetenv("BI_INPUT_STREAM_SECONDS");
}

TEST_CASE("verify-cert refuses what is not a regular file, without reading it",
          "[cli][hostile-input]") {
    testing::ScratchDir dir;
    const std::string fifo = dir.file("cert.fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    for (const std::string& path : {fifo, std::string("/dev/zero"), dir.path()}) {
        const auto r = run_command({BI_RUN_PATH, "verify-cert", path});
        INFO(path << ": " << r.err);
        CHECK(r.exit_code != 0);
        CHECK_THAT(r.out, Catch::Contains(path + ": INVALID"));
        CHECK_THAT(r.err, Catch::Contains("only regular files are read"));
    }
}

TEST_CASE("a misspelt work-set key is reported, naming the row and the likely key",
          "[cli][hostile-input]") {
    testing::ScratchDir dir;
    const std::string ws = dir.write(
        "ws.json", R"([{"prompt": "What is 2+2?", "famly": "math"}, {"prompt": "Name a colour"}])");
    const auto r = run_mock(dir, {"--workset", ws});
    INFO(r.err);
    CHECK_THAT(r.err,
               Catch::Contains("bi-run: warning: " + ws +
                               ": rows[0]: unknown key 'famly' ignored (did you mean 'family'?)"));
    // A warning, not a refusal: the run went on to its verdict and cert.
    CHECK((r.exit_code == 0 || r.exit_code == 3));
    CHECK(exists(dir.file("out/bi-mock__ctx2048__N4.json")));
}

TEST_CASE("a second run of the same cell into the same directory is refused",
          "[cli][hostile-input]") {
    testing::ScratchDir dir;
    const auto first = run_mock(dir, {});
    REQUIRE((first.exit_code == 0 || first.exit_code == 3));  // a verdict, so a cert
    const std::string cert = dir.file("out/bi-mock__ctx2048__N4.json");
    const std::string before = testing::read_text(cert);
    REQUIRE_FALSE(before.empty());
    // Another run holds the cell: this process stands in for it.
    std::string holder;
    const auto lock = io::FileLock::try_lock(cert + ".lock", holder);
    REQUIRE(lock);
    const auto second = run_mock(dir, {});
    INFO(second.err);
    CHECK(second.exit_code == 2);
    CHECK_THAT(second.err, Catch::Contains(cert + " is being written by another bi-run (pid " +
                                           std::to_string(::getpid()) + ")"));
    CHECK(testing::read_text(cert) == before);
}

TEST_CASE("a write that fails names the system's reason and leaves no partial file",
          "[cli][hostile-input]") {
    testing::ScratchDir dir;
    const int first = run_mock(dir, {}).exit_code;
    REQUIRE((first == 0 || first == 3));  // a verdict, so a cert
    const std::string cert = dir.file("out/bi-mock__ctx2048__N4.json");
    const std::string before = testing::read_text(cert);
    // The second run keeps the first cert in history/ before replacing it; a file-size limit
    // of 4 KiB (a full disk, as the kernel reports it to one process) fails that write.
    const auto r = run_command({"/bin/sh", "-c", "trap '' XFSZ; ulimit -f 8; exec \"$@\"", "sh",
                                BI_RUN_PATH, "run-mock", "--out-dir", dir.file("out"), "--quiet"});
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("File too large"));
    CHECK_THAT(r.err, Catch::Contains(dir.file("out/history/bi-mock__ctx2048__N4.")));
    CHECK(testing::read_text(cert) == before);  // nothing lost
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.file("out")))
        CHECK(entry.path().string().find(".tmp.") == std::string::npos);
    if (std::filesystem::exists(dir.file("out/history")))
        CHECK(std::filesystem::is_empty(dir.file("out/history")));
}

TEST_CASE("a cert path that is a directory is refused before anything runs",
          "[cli][hostile-input]") {
    testing::ScratchDir dir;
    const std::string cert = dir.file("out/bi-mock__ctx2048__N4.json");
    REQUIRE(::mkdir(dir.file("out").c_str(), 0755) == 0);
    REQUIRE(::mkdir(cert.c_str(), 0755) == 0);
    const auto r = run_mock(dir, {});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(cert + " is a directory"));
}

TEST_CASE("a generator parameter the plugin refuses stops the run before any server",
          "[cli][hostile-input]") {
    testing::ScratchDir dir;
    const auto r = run_mock(dir, {"--plugin", BI_SPARK_PLUGIN, "--profile", "spark",
                                  "--generator-param", "families=ZZ9"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--generator spark: "));
    CHECK_THAT(r.err, Catch::Contains("unknown family 'ZZ9'"));
    CHECK_FALSE(exists(dir.file("out")));
}

TEST_CASE("a failed selftest leaves nothing in the temp directory unless --keep",
          "[cli][hostile-input]") {
    testing::ScratchDir tmp;
    const auto selftest = [&](bool keep) {
        std::vector<std::string> argv = {"/usr/bin/env", "TMPDIR=" + tmp.path(), BI_RUN_PATH,
                                         "selftest",     "--server-bin",         "/bin/false",
                                         "--quiet"};
        if (keep) argv.push_back("--keep");
        return run_command(argv);
    };
    const auto entries = [&] {
        std::vector<std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator(tmp.path()))
            names.push_back(entry.path().filename().string());
        return names;
    };
    const auto failed = selftest(false);
    INFO(failed.err);
    CHECK(failed.exit_code == 1);
    CHECK_THAT(failed.err, Catch::Contains("exited before it was ready"));
    CHECK(entries().empty());

    const auto kept = selftest(true);
    CHECK(kept.exit_code == 1);
    const auto names = entries();
    REQUIRE(names.size() == 1);
    CHECK(names.front().rfind("bi-selftest-", 0) == 0);
    // The log stays for reading; the 16 MB synthetic model does not.
    CHECK(exists(tmp.file(names.front() + "/selftest.server.log")));
    CHECK_FALSE(exists(tmp.file(names.front() + "/bi-selftest-f32.gguf")));
}

TEST_CASE("an argument that is not UTF-8 is refused before anything else", "[cli][hostile-input]") {
    testing::ScratchDir dir;
    const auto r = run_mock(dir, {"--model-alias", "caf\xC3"});
    CHECK(r.exit_code == 2);
    CHECK(r.err == "bi-run: argument 6 is not valid UTF-8 (byte 3)\n");
    CHECK_FALSE(exists(dir.file("out")));
}
