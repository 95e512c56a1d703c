// What an installed bi-run offers (issue 25): --version with its build, parts found relative to
// bi-run wherever it is installed, completion scripts and man pages generated from the same
// option tables as --help.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "cli/command_line.hpp"
#include "cli_args.hpp"
#include "core/json.hpp"
#include "io/json_text.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::bi_run;
using testing::run_command;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> listed_commands() {
    return testing::listed_commands(run_command(bi_run({"--help"})).out);
}

// The first line of `text` holding `part` ("" when none does): a line-wise search, where a
// std::regex over a whole completion script would recurse once per character.
std::string line_with(const std::string& text, const std::string& part) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line))
        if (line.find(part) != std::string::npos) return line;
    return "";
}

// A command's words as arguments ("baseline record" is two).
std::vector<std::string> command_words(const std::string& command) {
    std::vector<std::string> words;
    std::istringstream in(command);
    for (std::string word; in >> word;) words.push_back(word);
    return words;
}

// The long options a command's --help lists ("--ctx", ...).
std::vector<std::string> help_options(const std::string& command) {
    auto words = command_words(command);
    words.push_back("--help");
    const auto help = run_command(bi_run(words)).out;
    std::vector<std::string> options;
    const std::regex option("^ +(?:-[a-zA-Z], )?(--[a-z][a-z0-9-]*)");
    std::istringstream lines(help);
    std::string line;
    std::smatch match;
    while (std::getline(lines, line))
        if (std::regex_search(line, match, option)) options.push_back(match[1]);
    return options;
}

// `text` as roff writes an option name ("\-\-server\-kind").
std::string roff(const std::string& text) {
    return std::regex_replace(text, std::regex("-"), "\\-");
}

// A copy of bi-run laid out as an install under `prefix` (bin/, the plugin and kind
// directories cmake/Layout.cmake names), so that only the installed paths can be found.
void install_copy(const std::string& prefix, bool with_host = true) {
    const auto copy = [](const std::string& from, const fs::path& to) {
        fs::create_directories(to.parent_path());
        fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    };
    copy(BI_RUN_PATH, fs::path(prefix) / "bin/bi-run");
    copy(BI_EXACT_PLUGIN, fs::path(prefix) / BI_INSTALL_PLUGINDIR / "libexact.so");
    copy(BI_SPARK_PLUGIN, fs::path(prefix) / BI_INSTALL_PLUGINDIR / "libspark.so");
    if (with_host)
        copy(BI_PLUGIN_HOST_PATH, fs::path(prefix) / BI_INSTALL_PKGLIBDIR / "bi-plugin-host");
    fs::create_directories(fs::path(prefix) / BI_INSTALL_KINDDIR);
}

}  // namespace

TEST_CASE("install: --version names the build and the libraries", "[cli][install]") {
    const auto text = run_command(bi_run({"--version"}));
    REQUIRE(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::StartsWith("bi-run " BI_VERSION "\n"));
    for (const char* field : {"commit:", "build type:", "compiler:", "plugin ABI:  1.",
                              "Poco:", "RapidJSON:   1.1.0", "OpenSSL:     OpenSSL 3."})
        CHECK_THAT(text.out, Catch::Contains(field));

    const auto json = run_command(bi_run({"--version", "--json"}));
    REQUIRE(json.exit_code == 0);
    const auto value = io::parse_json(json.out, "--version --json");
    CHECK(value.find("bi_run")->as_string() == BI_VERSION);
    for (const char* key :
         {"commit", "build_type", "compiler", "plugin_abi", "poco", "rapidjson", "openssl"})
        CHECK(value.find(key) != nullptr);
    CHECK_THAT(value.find("poco")->as_string(), Catch::Matches("1\\.[0-9]+\\.[0-9]+"));

    const auto extra = run_command(bi_run({"--version", "--yaml"}));
    CHECK(extra.exit_code == 2);
    CHECK_THAT(extra.err, Catch::Contains("takes only --json"));
}

TEST_CASE("install: the JSON summaries carry the version", "[cli][install]") {
    testing::ScratchDir dir;
    const auto r = run_command(bi_run({"run-mock", "--json", "--out-dir", dir.path()}));
    REQUIRE(r.exit_code == 0);
    const auto summary = io::parse_json(r.out, "run-mock --json");
    const auto* version = summary.find("version");
    REQUIRE(version != nullptr);
    CHECK(version->find("bi_run")->as_string() == BI_VERSION);
    CHECK(version->find("plugin_abi") != nullptr);
}

TEST_CASE("install: bi-run finds its plugins, host and kinds relative to itself",
          "[cli][install]") {
    testing::ScratchDir dir;
    const std::string prefix = dir.file("prefix");
    install_copy(prefix);
    const std::string bi = prefix + "/bin/bi-run";
    const std::string plugins = fs::weakly_canonical(fs::path(prefix) / BI_INSTALL_PLUGINDIR);

    const auto listed = run_command({bi, "plugins"});
    REQUIRE(listed.exit_code == 0);
    CHECK_THAT(listed.out, Catch::Contains(plugins + "/libexact.so"));
    CHECK_THAT(listed.out, Catch::Contains(plugins + "/libspark.so"));
    CHECK_THAT(listed.out, Catch::Contains("from: bundled, bi-run's installed plugin directory"));
    // The build tree's bi-run says its plugins are beside it.
    CHECK_THAT(run_command(bi_run({"plugins"})).out,
               Catch::Contains("from: bundled, beside bi-run"));

    const auto green = run_command({bi, "run-mock", "--out-dir", dir.file("certs")});
    CHECK(green.exit_code == 0);

    // A kind file in the installed kind directory is known by name to every user of this
    // bi-run; a copy of a shipped kind there stays the shipped kind.
    std::string vllm = testing::read_text(std::string(BI_KINDS_DIR) + "/vllm.toml");
    fs::path kinds = fs::path(prefix) / BI_INSTALL_KINDDIR;
    {
        std::ofstream(kinds / "vllm.toml") << vllm;
        std::ofstream(kinds / "site-vllm.toml")
            << std::regex_replace(vllm, std::regex("name = \"vllm\""), "name = \"site-vllm\"");
    }
    fs::create_directories(dir.file("m"));  // vLLM's model form: a directory
    const auto site =
        run_command({bi, "run-live", "--server-kind", "site-vllm", "--server-bin", "/bin/false",
                     "--model", dir.file("m"), "--dry-run", "--out-dir", dir.file("dry")});
    CHECK(site.exit_code == 0);
    CHECK_THAT(site.out + site.err, Catch::Contains((kinds / "site-vllm.toml").string()));
    const auto shipped =
        run_command({bi, "run-live", "--server-kind", "vllm", "--server-bin", "/bin/false",
                     "--model", dir.file("m"), "--dry-run", "--out-dir", dir.file("dry")});
    CHECK(shipped.exit_code == 0);
    CHECK_THAT(shipped.out + shipped.err, !Catch::Contains((kinds / "vllm.toml").string()));
    const auto unknown =
        run_command({bi, "run-live", "--server-kind", "nonesuch", "--server-bin", "/bin/false",
                     "--model", dir.file("m"), "--dry-run", "--out-dir", dir.file("dry")});
    CHECK(unknown.exit_code == 2);
    CHECK_THAT(unknown.err, Catch::Contains("site-vllm"));
}

TEST_CASE("install: a missing plugin host names both places it was looked for", "[cli][install]") {
    testing::ScratchDir dir;
    const std::string prefix = dir.file("prefix");
    install_copy(prefix, false);
    const auto r = run_command({prefix + "/bin/bi-run", "plugins"});
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains("plugin host is missing"));
    CHECK_THAT(r.err, Catch::Contains(prefix + "/bin/bi-plugin-host"));
    CHECK_THAT(r.err, Catch::Contains(std::string(BI_INSTALL_PKGLIBDIR) + "/bi-plugin-host"));
}

TEST_CASE("install: completion scripts list every command, option and kind", "[cli][install]") {
    const auto commands = listed_commands();
    REQUIRE(commands.size() >= 14);
    const auto bash = run_command(bi_run({"completion", "bash"}));
    REQUIRE(bash.exit_code == 0);
    const auto zsh = run_command(bi_run({"completion", "zsh"}));
    REQUIRE(zsh.exit_code == 0);
    CHECK_THAT(zsh.out, Catch::StartsWith("#compdef bi-run\n"));
    const auto fish = run_command(bi_run({"completion", "fish"}));
    REQUIRE(fish.exit_code == 0);
    for (const auto& command : commands) {
        INFO(command);
        // A group's command ("baseline record") is a quoted case label, and fish sees it when
        // both of its words were typed.
        const auto space = command.find(' ');
        const std::string label = space == std::string::npos ? command : "'" + command + "'";
        const std::string seen = space == std::string::npos
                                     ? command
                                     : command.substr(0, space) +
                                           "; and __fish_seen_subcommand_from " +
                                           command.substr(space + 1);
        CHECK_THAT(bash.out, Catch::Contains("        " + label + ")\n"));
        CHECK_THAT(zsh.out, Catch::Contains("        " + label + ")\n"));
        CHECK_THAT(fish.out, Catch::Contains("__fish_seen_subcommand_from " + seen + "'"));
        for (const auto& option : help_options(command)) {
            INFO(option);
            CHECK_THAT(bash.out, Catch::Contains(" " + option + " ") ||
                                     Catch::Contains("'" + option + " ") ||
                                     Catch::Contains(" " + option + "'"));
            CHECK_THAT(fish.out, Catch::Contains("-l " + option.substr(2) + " "));
        }
    }
    // Names the shell offers for a value: server kinds, the bundled plugins' scorers and
    // generators, and those of a --plugin.
    CHECK_THAT(bash.out, Catch::Contains("--server-kind) COMPREPLY=($(compgen -W '"));
    CHECK_THAT(line_with(bash.out, "--server-kind) COMPREPLY="), Catch::Contains("vllm"));
    CHECK_THAT(line_with(bash.out, "--scorer) COMPREPLY="), Catch::Contains("exact"));
    CHECK_THAT(line_with(bash.out, "--generator) COMPREPLY="), Catch::Contains("spark"));

    CHECK(run_command(bi_run({"completion", "tcsh"})).exit_code == 2);
    const auto none = run_command(bi_run({"completion"}));
    CHECK(none.exit_code == 2);
    CHECK_THAT(none.err, Catch::Contains("bash, zsh or fish"));
}

TEST_CASE(
    "install: the bash completion works in a plain bash and offers the values an option takes",
    "[cli][install]") {
    testing::ScratchDir dir;
    const auto script = dir.write("bi-run.bash", run_command(bi_run({"completion", "bash"})).out);
    dir.write("ws.json", "[]");
    // An interactive bash without bash-completion (no _init_completion, no _filedir), and one
    // with it: the same answers.
    const auto complete = [&](bool with_package, const std::vector<std::string>& words) {
        const std::string load =
            with_package ? "source /usr/share/bash-completion/bash_completion; " : "";
        std::vector<std::string> argv{
            "/usr/bin/env",
            "-i",
            "PATH=/usr/bin:/bin",
            "HOME=" + dir.path(),
            "TERM=dumb",
            "bash",
            "--norc",
            "--noprofile",
            "-i",
            "-c",
            "cd \"$HOME\"; " + load +
                "source \"$1\"; shift; "
                "COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); COMP_LINE=\"$*\"; "
                "COMP_POINT=${#COMP_LINE}; _bi_run bi-run \"${COMP_WORDS[COMP_CWORD]}\" "
                "\"${COMP_WORDS[COMP_CWORD-1]}\"; printf '%s\\n' \"${COMPREPLY[@]}\" | sort",
            "complete",
            script};
        argv.insert(argv.end(), words.begin(), words.end());
        return run_command(argv);
    };
    REQUIRE(fs::exists("/usr/share/bash-completion/bash_completion"));  // run-tests.sh installs it
    for (const bool with_package : {false, true}) {
        INFO((with_package ? "with bash-completion" : "plain bash"));
        const auto commands = complete(with_package, {"bi-run", "ru"});
        CHECK(commands.out == "run-live\nrun-mock\n");
        CHECK_THAT(commands.err, !Catch::Contains("command not found"));
        CHECK(complete(with_package, {"bi-run", "run-live", "--endpoint", ""}).out ==
              "chat\ncompletion\n");
        CHECK(complete(with_package, {"bi-run", "run-mock", "--divergence", "s"}).out ==
              "score\nstochastic\n");
        CHECK(complete(with_package, {"bi-run", "sweep", "--arrivals", ""}).out ==
              "mixed\nstaggered\ntogether\n");
        CHECK(complete(with_package, {"bi-run", "completion", ""}).out == "bash\nfish\nzsh\n");
        // A file option still offers files, in either bash.
        CHECK(complete(with_package, {"bi-run", "run-live", "--workset", "w"}).out == "ws.json\n");
        const auto options = complete(with_package, {"bi-run", "run-live", "--ser"});
        for (const char* option : {"--server-bin\n", "--server-flag\n", "--server-kind\n"})
            CHECK_THAT(options.out, Catch::Contains(option));
        CHECK(
            complete(with_package, {"bi-run", "--plugin", "x.so", "run-live", "--server-kind", "v"})
                .out == "vllm\n");
        CHECK_THAT(complete(with_package, {"bi-run", "run-mock", "--scorer", ""}).out,
                   Catch::Contains("exact\n"));
        CHECK_THAT(options.err, !Catch::Contains("command not found"));
    }
    // zsh and fish offer the same words.
    const auto zsh = run_command(bi_run({"completion", "zsh"})).out;
    CHECK_THAT(line_with(zsh, "'--endpoint=["), Catch::Contains(":value:(chat completion)'"));
    CHECK_THAT(zsh, Catch::Contains("':value:(bash zsh fish)'"));
    const auto fish = run_command(bi_run({"completion", "fish"})).out;
    CHECK_THAT(line_with(fish, "-l divergence "), Catch::Contains("-a 'none score token"));
    CHECK_THAT(fish, Catch::Contains("__fish_seen_subcommand_from completion' -a 'bash zsh fish'"));
}

TEST_CASE("install: help --man writes one page per command from its help", "[cli][install]") {
    testing::ScratchDir dir;
    const auto r = run_command(bi_run({"help", "--man", dir.file("man")}));
    REQUIRE(r.exit_code == 0);
    const auto commands = listed_commands();
    CHECK(fs::exists(dir.file("man/bi-run.1")));
    CHECK(fs::exists(dir.file("man/bi-mock-server.1")));
    // Every page cites bi-run-cert(5): it is written with them.
    CHECK_THAT(r.out, Catch::Contains(dir.file("man/bi-run-cert.5")));
    CHECK_THAT(testing::read_text(dir.file("man/bi-run-cert.5")),
               Catch::StartsWith(".TH BI-RUN-CERT 5 "));
    for (const auto& command : commands) {
        INFO(command);
        std::string page_name = command;  // "baseline record" has bi-run-baseline-record(1)
        std::replace(page_name.begin(), page_name.end(), ' ', '-');
        const auto page = testing::read_text(dir.file("man/bi-run-" + page_name + ".1"));
        REQUIRE(!page.empty());
        std::string title = "BI-RUN-" + page_name;
        for (auto& c : title) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        CHECK_THAT(page, Catch::StartsWith(".TH " + title + " 1 "));
        CHECK_THAT(page, Catch::Contains(".SH NAME\n" + roff("bi-run-" + page_name) + " \\- "));
        for (const auto& option : help_options(command)) {
            INFO(option);
            CHECK_THAT(page, Catch::Contains("\\fB" + roff(option) + "\\fR"));
        }
        // ASCII only: everything else is a groff escape.
        CHECK(std::none_of(page.begin(), page.end(),
                           [](char c) { return static_cast<unsigned char>(c) >= 0x80; }));
    }
    CHECK_THAT(testing::read_text(dir.file("man/bi-run.1")),
               Catch::Contains("\\fBbi\\-run\\-run\\-live\\fR(1)"));

    CHECK(run_command(bi_run({"help", "--man"})).exit_code == 2);
    const auto blocked = dir.write("file", "x");
    const auto unwritable = run_command(bi_run({"help", "--man", blocked + "/man"}));
    CHECK(unwritable.exit_code == 1);
    CHECK_THAT(unwritable.err, Catch::Contains(blocked + "/man: cannot be created"));
}

namespace {

// The part of `script` from `start` to the first `end` after it ("" when `start` is missing).
std::string block(const std::string& script, const std::string& start, const std::string& end) {
    const auto from = script.find(start);
    if (from == std::string::npos) return "";
    return script.substr(from, script.find(end, from) - from);
}

// Every fish line completing an option of `command` (both words seen for a group's command).
std::string fish_lines(const std::string& script, const std::string& command) {
    const auto space = command.find(' ');
    const std::string seen = space == std::string::npos
                                 ? command
                                 : command.substr(0, space) + "; and __fish_seen_subcommand_from " +
                                       command.substr(space + 1);
    std::istringstream lines(script);
    std::string line, out;
    while (std::getline(lines, line))
        if (line.find("-n '__fish_seen_subcommand_from " + seen + "' -l ") != std::string::npos)
            out += line + "\n";
    return out;
}

}  // namespace

TEST_CASE("option table: each command's options are in its help, man page, completions and kinds",
          "[cli][install][help]") {
    testing::ScratchDir dir;
    REQUIRE(run_command(bi_run({"help", "--man", dir.file("man")})).exit_code == 0);
    const auto bash = run_command(bi_run({"completion", "bash"})).out;
    const auto zsh = run_command(bi_run({"completion", "zsh"})).out;
    const auto fish = run_command(bi_run({"completion", "fish"})).out;
    for (const auto& command : listed_commands()) {
        INFO(command);
        std::string page_name = command;
        std::replace(page_name.begin(), page_name.end(), ' ', '-');
        const auto page = testing::read_text(dir.file("man/bi-run-" + page_name + ".1"));
        const std::string label =
            command.find(' ') == std::string::npos ? command : "'" + command + "'";
        const auto bash_block = block(bash, "\n        " + label + ")\n", "\n            ;;\n");
        const auto zsh_block = block(zsh, "\n        " + label + ")\n", "\n            ;;\n");
        const auto fish_block = fish_lines(fish, command);
        const auto options = help_options(command);
        REQUIRE(!options.empty());
        for (const auto& option : options) {
            INFO(option);
            const std::string name = option.substr(2);
            CHECK_THAT(page, Catch::Contains("\\fB" + roff(option) + "\\fR"));
            CHECK_THAT(bash_block, Catch::Contains(" " + option + " ") ||
                                       Catch::Contains("'" + option + " ") ||
                                       Catch::Contains(" " + option + "'"));
            CHECK_THAT(zsh_block, Catch::Contains("'" + option + "[") ||
                                      Catch::Contains("'" + option + "=[") ||
                                      Catch::Contains("'*" + option + "=["));
            CHECK_THAT(fish_block, Catch::Contains("-l " + name + " "));
            CHECK_NOTHROW(cli::value_kind("bi-run " + command, name));
        }
    }
}
