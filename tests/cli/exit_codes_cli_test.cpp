// bi-run's exit-code table (framework/cli/exit_codes.hpp) against what says which code means what:
// the top-level --help, each command's help and the exit-code tables in README.md and
// docs/design.md §11.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "cli/command_specs.hpp"
#include "cli/exit_codes.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using bi::cli::kExitCodes;

namespace {

struct DocRow {
    std::vector<int> codes;
    std::string meaning;
};

// The rows of the first "| code | meaning |" table after `heading` (or in the whole file).
std::vector<DocRow> exit_code_table(const std::string& text, const std::string& heading) {
    std::istringstream lines(text.substr(heading.empty() ? 0 : text.find(heading)));
    std::vector<DocRow> rows;
    bool in_table = false;
    for (std::string line; std::getline(lines, line);) {
        if (line == "| code | meaning |") {
            in_table = true;
            continue;
        }
        if (!in_table || line.rfind("|---", 0) == 0) continue;
        if (line.empty() || line[0] != '|') break;
        const auto split = line.find('|', 1);
        DocRow row;
        std::istringstream codes(line.substr(1, split - 1));
        for (std::string word; codes >> word;)
            if (word != "/") row.codes.push_back(std::stoi(word));
        row.meaning = line.substr(split + 1);
        rows.push_back(row);
    }
    return rows;
}

void check_table(const std::vector<DocRow>& rows) {
    std::vector<int> listed;
    for (const auto& row : rows) {
        for (const int code : row.codes) {
            listed.push_back(code);
            for (const auto& entry : kExitCodes) {
                if (entry.code != code) continue;
                INFO("code " << code << ": " << row.meaning);
                CHECK(row.meaning.find(entry.meaning) != std::string::npos);
                CHECK(row.meaning.find(entry.signal) != std::string::npos);
            }
        }
    }
    std::vector<int> table;
    table.reserve(kExitCodes.size());
    for (const auto& entry : kExitCodes) table.push_back(entry.code);
    CHECK(listed == table);
}

}  // namespace

TEST_CASE("exit codes: the table has each code once and --help exits with kExitHelp",
          "[cli][exit]") {
    for (std::size_t i = 0; i < kExitCodes.size(); ++i)
        for (std::size_t j = i + 1; j < kExitCodes.size(); ++j)
            CHECK(kExitCodes[i].code != kExitCodes[j].code);
    for (const auto& entry : kExitCodes)
        if (!entry.signal.empty()) CHECK(bi::cli::exit_for_signal(entry.code - 128) == entry.code);
    CHECK(bi::testing::run_command({BI_RUN_PATH, "--help"}).exit_code == bi::cli::kExitHelp);
    CHECK(bi::testing::run_command({BI_RUN_PATH, "run-live", "--help"}).exit_code ==
          bi::cli::kExitHelp);
}

TEST_CASE("exit codes: bi-run --help lists every code with its meaning", "[cli][exit]") {
    const auto help = bi::testing::run_command({BI_RUN_PATH, "--help"});
    REQUIRE(help.exit_code == 0);
    const auto at = help.out.find("exit status: ");
    REQUIRE(at != std::string::npos);
    std::string paragraph = help.out.substr(at);
    for (auto& c : paragraph)
        if (c == '\n') c = ' ';
    std::string signal_codes, signals;
    for (const auto& entry : kExitCodes) {
        if (entry.signal.empty()) {
            const std::string listed =
                std::to_string(entry.code) + " " + std::string(entry.meaning);
            INFO(listed);
            CHECK(paragraph.find(listed) != std::string::npos);
            continue;
        }
        signal_codes += (signal_codes.empty() ? "" : "/") + std::to_string(entry.code);
        signals += (signals.empty() ? "" : "/") + std::string(entry.signal);
    }
    CHECK(paragraph.find(signal_codes + " interrupted by " + signals) != std::string::npos);
}

TEST_CASE("exit codes: README.md and docs/design.md list the table", "[cli][exit][docs]") {
    SECTION("README.md") {
        check_table(exit_code_table(bi::testing::read_text(BI_SOURCE_DIR "/README.md"), ""));
    }
    SECTION("docs/design.md §11") {
        check_table(exit_code_table(bi::testing::read_text(BI_SOURCE_DIR "/docs/design.md"),
                                    "## §11 Exit codes"));
    }
}

namespace {

// The codes an "Exit status" paragraph names, in order: the number (or numbers joined by '/')
// after its ':' and after each ", ".
std::vector<int> codes_named(const std::string& description) {
    std::string paragraph = description.substr(description.find("Exit status"));
    for (auto& c : paragraph)
        if (c == '\n') c = ' ';
    std::vector<int> codes;
    for (std::size_t at = 0; at < paragraph.size(); ++at) {
        const bool after_mark = at >= 2 && (paragraph.compare(at - 2, 2, ": ") == 0 ||
                                            paragraph.compare(at - 2, 2, ", ") == 0);
        if (!after_mark || !std::isdigit(static_cast<unsigned char>(paragraph[at]))) continue;
        std::size_t end = at;
        while (end < paragraph.size() &&
               (std::isdigit(static_cast<unsigned char>(paragraph[end])) || paragraph[end] == '/'))
            ++end;
        std::istringstream numbers(paragraph.substr(at, end - at));
        for (std::string number; std::getline(numbers, number, '/');)
            codes.push_back(std::stoi(number));
        at = end;
    }
    return codes;
}

}  // namespace

TEST_CASE("exit codes: each command's help names exactly the codes its spec lists", "[cli][exit]") {
    for (const auto& spec : bi::cli::command_specs()) {
        INFO(spec.name);
        REQUIRE(spec.description.find("Exit status") != std::string::npos);
        CHECK(codes_named(spec.description) == spec.exit_codes);
        for (const int code : spec.exit_codes) {
            INFO("code " << code);
            CHECK(std::any_of(kExitCodes.begin(), kExitCodes.end(),
                              [code](const auto& entry) { return entry.code == code; }));
        }
        // --help prints the same description.
        std::vector<std::string> argv{BI_RUN_PATH};
        std::istringstream words{std::string(spec.name)};
        for (std::string word; words >> word;) argv.push_back(word);
        argv.push_back("--help");
        const auto help = bi::testing::run_command(argv);
        CHECK(help.exit_code == bi::cli::kExitHelp);
        CHECK(help.out.rfind(spec.description, 0) == 0);
    }
    // The parser can fail: a paragraph naming another code does not match.
    CHECK(codes_named("Exit status: 0 written, 2 usage error.") == std::vector<int>{0, 2});
    CHECK(codes_named("Exit status: 0 ok, 129/130/143 interrupted.") ==
          std::vector<int>{0, 129, 130, 143});
}
