// One golden file per command's --help (tests/cli/help/*.txt), so option drift shows in review.
// BI_UPDATE_GOLDEN=1 rewrites them from the binary: BI_UPDATE_GOLDEN=1 ctest -R help-golden
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "cli_args.hpp"
#include "io/files.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using bi::testing::run_command;

namespace {

bool updating() {
    const char* update = std::getenv("BI_UPDATE_GOLDEN");
    return update && std::string(update) == "1";
}

void check_golden(const std::string& name, std::string text) {
    // The version changes with every release; the golden files do not.
    text =
        std::regex_replace(text, std::regex(std::string("bi-run ") + BI_VERSION), "bi-run VERSION");
    const std::string path = std::string(BI_HELP_GOLDEN_DIR) + "/" + name + ".txt";
    if (updating()) {
        bi::io::write_file_atomically(path, text);
        WARN("wrote " << path);
        return;
    }
    INFO("golden " << path << " (BI_UPDATE_GOLDEN=1 rewrites it)");
    CHECK(bi::testing::read_text(path) == text);
}

}  // namespace

TEST_CASE("help-golden: bi-run --help and every command's --help", "[cli][help]") {
    const auto usage = run_command({BI_RUN_PATH, "--help"});
    REQUIRE(usage.exit_code == 0);
    check_golden("bi-run", usage.out);
    // Every listed command, so a new command without a golden file fails here.
    const auto commands = bi::testing::listed_commands(usage.out);
    REQUIRE(commands.size() >= 10);
    for (const auto& command : commands) {
        DYNAMIC_SECTION(command) {
            // A group's command is two words: "baseline record" is baseline-record.txt.
            std::vector<std::string> argv{BI_RUN_PATH};
            std::istringstream words(command);
            for (std::string word; words >> word;) argv.push_back(word);
            argv.emplace_back("--help");
            const auto help = run_command(argv);
            CHECK(help.exit_code == 0);
            CHECK(help.err.empty());
            std::string name = command;
            std::replace(name.begin(), name.end(), ' ', '-');
            check_golden(name, help.out);
        }
    }
    // A group's own help lists its commands.
    const auto group = run_command({BI_RUN_PATH, "baseline", "--help"});
    CHECK(group.exit_code == 0);
    check_golden("baseline", group.out);
}
