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

namespace {

// The headings of a --help text ("Output options:") whose lines up to the next blank one list
// no option but -h, --help: a heading with nothing of its own under it.
std::vector<std::string> headings_without_options(const std::string& help) {
    std::vector<std::string> empty;
    std::istringstream lines(help);
    std::string line, heading;
    bool has_option = false;
    const auto close = [&] {
        if (!heading.empty() && !has_option) empty.push_back(heading);
        heading.clear();
    };
    while (std::getline(lines, line)) {
        if (line.size() > 9 && line.compare(line.size() - 9, 9, " options:") == 0) {
            close();
            heading = line;
            has_option = false;
        } else if (line.empty()) {
            close();
        } else if (line.find("--") != std::string::npos &&
                   line.find("--help") == std::string::npos) {
            has_option = true;
        }
    }
    close();
    return empty;
}

std::string help_of(const std::string& command) {
    std::vector<std::string> argv{BI_RUN_PATH};
    std::istringstream words(command);
    for (std::string word; words >> word;) argv.push_back(word);
    argv.emplace_back("--help");
    return run_command(argv).out;
}

// The --help line of `option` and the lines that continue its description, as one line.
std::string option_help(const std::string& help, const std::string& option) {
    std::istringstream lines(help);
    std::string line, text;
    bool in_option = false;
    while (std::getline(lines, line)) {
        const auto start = line.find_first_not_of(' ');
        const std::string trimmed = start == std::string::npos ? "" : line.substr(start);
        if (trimmed.rfind(option + " ", 0) == 0) {
            in_option = true;
            text = trimmed;
        } else if (in_option) {
            if (trimmed.empty() || trimmed.front() == '-') break;
            text += " " + trimmed;
        }
    }
    return text;
}

}  // namespace

TEST_CASE("help: every heading of a command's --help has options of its own under it",
          "[cli][help]") {
    const auto commands = bi::testing::listed_commands(run_command({BI_RUN_PATH, "--help"}).out);
    REQUIRE(commands.size() >= 10);
    for (const auto& command : commands) {
        INFO(command);
        const auto help = help_of(command);
        REQUIRE_THAT(help, Catch::Contains("Usage:"));
        CHECK(headings_without_options(help).empty());
        // --help is listed all the same.
        CHECK_THAT(help, Catch::Contains("-h, --help"));
    }
}

TEST_CASE("help: run-live, --model and baseline check speak of every server kind", "[cli][help]") {
    const auto usage = run_command({BI_RUN_PATH, "--help"}).out;
    CHECK_THAT(usage, !Catch::Contains("your own llama-server"));
    CHECK_THAT(usage, Catch::Contains("--server-kind"));
    const auto run_live = help_of("run-live");
    const auto model = option_help(run_live, "--model");
    INFO(model);
    CHECK_THAT(model, !Catch::Contains("The GGUF model file"));
    CHECK_THAT(model, Catch::Contains("directory") && Catch::Contains("store name"));
    const auto server_bin = option_help(run_live, "--server-bin");
    INFO(server_bin);
    CHECK_THAT(server_bin, Catch::Contains("--server-kind"));
    // A check's work rows and scorer are the baseline's: --profile there is a models.toml alias.
    const auto profile = option_help(help_of("baseline check"), "--profile");
    INFO(profile);
    CHECK_THAT(profile, !Catch::Contains("measurement profile: a plugin generator + scorer"));
    CHECK_THAT(profile, Catch::Contains("baseline's"));
}
