// bi-run help --man DIR: the man pages, written from the same text and option tables as --help
// (each command's options()), so the manual cannot drift from the commands.
#include "manpages.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cert_manpage.hpp"
#include "command_line.hpp"
#include "command_specs.hpp"
#include "core/error.hpp"
#include "exit_codes.hpp"
#include "mock/server_argv.hpp"

namespace bi::cli {

namespace {

namespace fs = std::filesystem;

// Roff text: backslashes escaped, every character outside ASCII as a groff \[uXXXX] escape (so
// the page renders the same in any locale), a line that would start with a control character
// guarded.
std::string roff_text(const std::string& text) {
    std::string out;
    std::size_t i = 0;
    bool line_start = true;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (line_start && (c == '.' || c == '\'')) out += "\\&";
        line_start = c == '\n';
        if (c == '\\') {
            out += "\\e";
            ++i;
        } else if (c == '-') {
            out += "\\-";
            ++i;
        } else if (c < 0x80) {
            out += static_cast<char>(c);
            ++i;
        } else {
            // Our own text, well-formed UTF-8: a lead byte and its continuation bytes.
            const int length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
            unsigned code_point = c & (0x3Fu >> (length - 1));
            for (int k = 1; k < length && i + k < text.size(); ++k)
                code_point = (code_point << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3Fu);
            char escape[16];
            std::snprintf(escape, sizeof escape, "\\[u%04X]", code_point);
            out += escape;
            i += static_cast<std::size_t>(length);
        }
    }
    return out;
}

std::string upper(std::string text) {
    for (auto& c : text)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return text;
}

// Paragraphs of --help text: a blank line starts a new one; an indented line (an example) is
// kept as it stands.
std::string roff_paragraphs(const std::string& text) {
    std::string out;
    std::istringstream lines(text);
    std::string line;
    bool literal = false;
    while (std::getline(lines, line)) {
        if (line.empty()) {
            if (literal) out += ".fi\n";
            literal = false;
            out += ".PP\n";
            continue;
        }
        const bool indented = line.front() == ' ';
        if (indented && !literal) out += ".nf\n";
        if (!indented && literal) out += ".fi\n";
        literal = indented;
        out += roff_text(line) + "\n";
    }
    if (literal) out += ".fi\n";
    return out;
}

std::string header(const std::string& name, int section, const std::string& summary,
                   const std::string& version) {
    return ".TH " + upper(name) + " " + std::to_string(section) + " \"\" \"bi-run " + version +
           "\" \"bi-run manual\"\n"
           // Option names and paths read best unhyphenated and left-aligned.
           ".nh\n.ad l\n.SH NAME\n" +
           roff_text(name) + " \\- " + roff_text(summary) + "\n";
}

std::string option_item(const OptionEntry& option) {
    std::string item = ".TP\n";
    if (!option.short_name.empty()) item += "\\fB\\-" + roff_text(option.short_name) + "\\fR, ";
    item += "\\fB\\-\\-" + roff_text(option.long_name) + "\\fR";
    if (!option.value_name.empty()) item += " \\fI" + roff_text(option.value_name) + "\\fR";
    item += "\n" + roff_text(option.description);
    if (!option.default_value.empty())
        item += " (default: " + roff_text(option.default_value) + ")";
    if (option.repeatable && option.description.find("repeatable") == std::string::npos)
        item += " Repeatable.";
    return item + "\n";
}

// One exit status as the exit-code table words it: ".TP\n130\ninterrupted by SIGINT".
std::string exit_item(int code) {
    for (const auto& entry : kExitCodes)
        if (entry.code == code) {
            std::string meaning(entry.meaning);
            if (!entry.signal.empty()) meaning += " " + std::string(entry.signal);
            return ".TP\n" + std::to_string(code) + "\n" + roff_text(meaning) + "\n";
        }
    throw Error(ErrorCategory::Internal,
                "bi: exit status " + std::to_string(code) + " is not in the exit-code table");
}

const char* const kSeeAlso = ".SH SEE ALSO\n\\fBbi\\-run\\fR(1), \\fBbi\\-run\\-cert\\fR(5)\n";

std::string command_page(const CommandSpec& command, const OptionTable& table,
                         const std::string& version) {
    const std::string name = "bi-run-" + one_word(command);
    std::string page = header(name, 1, command.summary, version);
    page += ".SH SYNOPSIS\n\\fBbi\\-run " + roff_text(std::string(command.name)) + "\\fR " +
            roff_text(table.usage) + "\n";
    page += ".SH DESCRIPTION\n" + roff_paragraphs(table.description);
    page += ".SH OPTIONS\n";
    for (const auto& group : table.groups) {
        if (group.options.empty()) continue;
        if (!group.name.empty()) page += ".SS \"" + roff_text(group.name) + "\"\n";
        for (const auto& option : group.options) page += option_item(option);
    }
    return page + kSeeAlso;
}

std::string main_page(const std::string& usage_text, const std::string& version) {
    std::string page = header("bi-run", 1,
                              "does batching change your LLM server's answers? One cert per "
                              "(model, ctx, N)",
                              version);
    page +=
        ".SH SYNOPSIS\n\\fBbi\\-run\\fR [\\fB\\-\\-plugin\\fR \\fIFILE\\fR]... "
        "[\\fB\\-\\-plugin\\-dir\\fR \\fIDIR\\fR]... \\fICOMMAND\\fR [\\fIoptions\\fR]\n.br\n"
        "\\fBbi\\-run\\fR \\fB\\-\\-version\\fR [\\fB\\-\\-json\\fR]\n"
        ".SH DESCRIPTION\n"
        "Continuous batching merges concurrent requests into one forward pass, and batched "
        "kernels reduce in another order, so even at temperature 0 a server's answers can change "
        "when it serves N requests at once.\n"
        "For one cell (model, ctx, N), \\fBbi\\-run\\fR runs a work-set serially on a one-slot "
        "server (arm A, twice), serially on an N-slot server (arm B) and N at a time on it "
        "(arm C), scores every completion with a plugin scorer, compares exactly and writes one "
        "JSON cert (see \\fBbi\\-run\\-cert\\fR(5)).\n"
        ".SH COMMANDS\n";
    for (const auto& command : command_specs())
        page += ".TP\n\\fB" + roff_text(std::string(command.name)) + "\\fR\n" +
                roff_text(std::string(command.summary)) + "; see \\fBbi\\-run\\-" +
                roff_text(one_word(command)) + "\\fR(1).\n";
    page += ".SH USAGE\n" + roff_paragraphs(usage_text);
    page +=
        ".SH ENVIRONMENT\n"
        ".TP\n\\fBBI_PLUGIN_PATH\\fR\nDirectories (':'-separated) searched for a bare "
        "\\fB\\-\\-plugin\\fR name.\n"
        ".TP\n\\fBBI_SERVER_KIND_PATH\\fR\nDirectories (':'-separated) searched for a "
        "\\fB\\-\\-server\\-kind\\fR NAME.toml.\n"
        ".TP\n\\fBBI_MODELS_TOML\\fR\nThe models file read for \\fB\\-\\-profile\\fR aliases "
        "(default ./models.toml).\n"
        ".TP\n\\fBBI_PLUGIN_HOST\\fR\nThe plugin host executable, instead of the one installed "
        "with bi-run.\n"
        ".SH FILES\n"
        "Paths are relative to the directory holding \\fBbi\\-run\\fR, so a build tree, a "
        "prefix and /usr all work.\n"
        ".TP\n\\fI../lib/<multiarch>/bi\\-run/plugins/\\fR\nThe bundled plugins (libexact.so, "
        "libspark.so).\n"
        ".TP\n\\fI../lib/<multiarch>/bi\\-run/bi\\-plugin\\-host\\fR\nThe helper process plugins "
        "run in.\n"
        ".TP\n\\fI../share/bi\\-run/kinds/\\fR\nServer kind files (NAME.toml) known to every "
        "user; the shipped kinds are also built into bi-run.\n"
        ".SH EXIT STATUS\n";
    for (const auto& entry : kExitCodes) page += exit_item(entry.code);
    page +=
        ".PP\nEach command's page says what it returns.\n"
        ".SH SEE ALSO\n\\fBbi\\-run\\-cert\\fR(5), \\fBbi\\-mock\\-server\\fR(1)\n";
    return page;
}

std::string mock_server_page(const std::string& version) {
    std::string page =
        header("bi-mock-server", 1,
               "a mock llama-server with continuous batching, for tests and demos", version);
    page +=
        ".SH SYNOPSIS\n\\fBbi\\-mock\\-server\\fR [\\fIllama-server flags\\fR] [\\fImock "
        "knobs\\fR]\n"
        ".SH DESCRIPTION\n"
        "Serves llama-server's HTTP API from a simulator: it never loads a model, and its "
        "knobs make batched answers diverge the ways real kernels do. "
        "\\fBbi\\-run run\\-mock\\fR runs it in process; this binary is the same server as a "
        "process, for tests of the launch path.\n.PP\n.nf\n" +
        roff_text(mock::llama_argv_usage()) + ".fi\n" + kSeeAlso;
    return page;
}

void write_page(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out)
        throw Error(ErrorCategory::Io,
                    file.string() + ": cannot be written: " + std::strerror(errno));
}

}  // namespace

std::vector<std::string> write_man_pages(const std::string& dir, const std::string& usage_text,
                                         const std::string& version) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw Error(ErrorCategory::Io, dir + ": cannot be created: " + ec.message());
    std::vector<std::pair<std::string, std::string>> pages;
    pages.emplace_back("bi-run.1", main_page(usage_text, version));
    for (const auto& command : command_specs())
        pages.emplace_back("bi-run-" + one_word(command) + ".1",
                           command_page(command, option_table(command), version));
    pages.emplace_back("bi-mock-server.1", mock_server_page(version));
    pages.emplace_back("bi-run-cert.5", cert_man_page());
    std::vector<std::string> written;
    for (const auto& [name, text] : pages) {
        write_page(fs::path(dir) / name, text);
        written.push_back((fs::path(dir) / name).string());
    }
    return written;
}

}  // namespace bi::cli
