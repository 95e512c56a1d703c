// The upstream Python tool's command lines as its users type them (its own options, its profile
// form, its switches), and the rough edges around them: errors that name what was typed, help
// that lists only what a command takes, output files whose directory does not exist yet.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "io/files.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::run_command;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> bi_run(std::vector<std::string> args) {
    args.insert(args.begin(), BI_RUN_PATH);
    return args;
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// run-live --dry-run against the bundled mock server, on a model file that is not a GGUF.
std::vector<std::string> dry_run(const testing::ScratchDir& dir) {
    if (!fs::exists(dir.file("m.gguf")))
        io::write_file_atomically(dir.file("m.gguf"), "not really a model");
    return bi_run({"run-live", "--dry-run", "--server-bin", BI_MOCK_SERVER_PATH, "--model",
                   dir.file("m.gguf"), "--out-dir", dir.file("out")});
}

bool one_line(const std::string& text) {
    return !text.empty() && text.find('\n') == text.size() - 1;
}

}  // namespace

TEST_CASE("an option given by its alias is named as it was typed", "[cli][aliases][errors]") {
    testing::ScratchDir dir;
    auto r = run_command(bi_run({"run-mock", "--gate-passes", "0", "--out-dir", dir.path()}));
    CHECK(r.exit_code == 2);
    CHECK(r.err == "bi-run run-mock: --gate-passes must be at least 1\n");
    r = run_command(bi_run({"run-mock", "--gate-passes", "abc", "--out-dir", dir.path()}));
    CHECK_THAT(r.err, Catch::StartsWith("bi-run run-mock: --gate-passes: 'abc' is not an integer"));
    r = run_command(bi_run({"selftest", "--server-bin", BI_MOCK_SERVER_PATH, "--gate-passes", "0",
                            "--out-dir", dir.path()}));
    CHECK_THAT(r.err, Catch::Contains("--gate-passes must be at least 1"));
    r = run_command(dry_run(dir) +
                    std::vector<std::string>{"--experiment-port", "7", "--untouchable-port", "7"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--experiment-port 7 is reserved"));
    r = run_command(dry_run(dir) + std::vector<std::string>{"--kv", "q9_9"});
    CHECK(one_line(r.err));
    CHECK_THAT(r.err, Catch::Contains("--kv ") && !Catch::Contains("--kv-label"));
    // Typed by its own name, the option keeps it; so do the names it only contains.
    r = run_command(bi_run({"run-mock", "--passes", "0", "--out-dir", dir.path()}));
    CHECK(r.err == "bi-run run-mock: --passes must be at least 1\n");
    r = run_command(bi_run({"run-mock", "--gate-passes", "2", "--target-rate", "0.1",
                            "--max-passes", "0", "--out-dir", dir.path()}));
    CHECK_THAT(r.err, Catch::Contains("--max-passes") || Catch::Contains("--gate-passes"));
    CHECK_THAT(r.err, !Catch::Contains("--max-gate-passes"));
}
