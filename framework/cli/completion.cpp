// The completion scripts, written from the same command specs and option table --help prints,
// with the server kinds, scorers and generators this bi-run knows, so what the shell offers is
// what the commands accept.
#include <cxxopts.hpp>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "command_specs.hpp"
#include "completion.hpp"
#include "core/error.hpp"
#include "exit_codes.hpp"

namespace bi::cli {

namespace {

// What the shell offers for an option's value: a text value may be a path, so files.
enum class Offer { None, Number, File, Directory, Word };

struct Choice {
    Offer kind = Offer::None;
    std::vector<std::string> words;  // for Word
};

Choice choice_for(const OptionEntry& option, const CompletionNames& names) {
    if (!option.choices.empty()) return {Offer::Word, option.choices};
    switch (option.kind) {
        case ValueKind::Switch:
            return {};
        case ValueKind::Integer:
        case ValueKind::Count:
        case ValueKind::Number:
            return {Offer::Number, {}};
        case ValueKind::Directory:
            return {Offer::Directory, {}};
        case ValueKind::Text:
        case ValueKind::File:
            return {Offer::File, {}};
        case ValueKind::Word:
            break;
    }
    const auto& name = option.long_name;
    if (name == "server-kind") return {Offer::Word, names.server_kinds};
    if (name == "scorer") return {Offer::Word, names.scorers};
    return {Offer::Word, names.generators};
}

std::string joined(const std::vector<std::string>& words, const char* separator = " ") {
    std::string text;
    for (const auto& word : words) text += (text.empty() ? "" : separator) + word;
    return text;
}

// Text inside single quotes for sh, zsh and fish alike ('it'\''s').
std::string single_quoted(const std::string& text) {
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// A command's name as a case pattern of sh and zsh: quoted when it is two words.
std::string case_label(const std::string& name) {
    return name.find(' ') == std::string::npos ? name : single_quoted(name);
}

// `text` on one line of at most 70 characters, for a shell's menu.
std::string menu_line(const std::string& text) {
    std::string line;
    for (const char c : text) line += (c == '\n' || c == '\t') ? ' ' : c;
    if (line.size() > 70) line = line.substr(0, 67) + "...";
    return line;
}

// An option's description up to its first parenthesis (defaults and details), for a menu.
std::string short_description(const std::string& text) {
    std::string line = menu_line(text);
    const auto stop = line.find(" (");
    if (stop != std::string::npos && stop > 0) line.resize(stop);
    return line;
}

struct CommandEntries {
    const CommandSpec* command;
    std::vector<OptionEntry> options;
    std::vector<std::string> positional_words;  // what the words that are not options may be
};

std::vector<CommandEntries> all_command_options() {
    std::vector<CommandEntries> out;
    for (const auto& command : command_specs()) {
        const auto table = option_table(command);
        CommandEntries entry{&command, {}, {}};
        if (!command.positional.empty())
            entry.positional_words = option_spec(command.positional).choices;
        for (const auto& group : table.groups)
            for (const auto& option : group.options) entry.options.push_back(option);
        out.push_back(std::move(entry));
    }
    return out;
}

// The words that can come first: each command's name, a group's name once for all of its
// commands ("baseline" for "baseline record" and "baseline check").
std::vector<std::string> names_of(const std::vector<CommandEntries>& tables) {
    std::vector<std::string> names;
    names.reserve(tables.size() + 1);
    for (const auto& table : tables) {
        std::string word(table.command->name);
        word = word.substr(0, word.find(' '));
        if (std::find(names.begin(), names.end(), word) == names.end()) names.push_back(word);
    }
    return names;
}

// The groups' lines of bash's command detection: after a group's word, its command's word.
std::string bash_group_lines() {
    std::string lines;
    for (const auto& group : command_groups())
        lines += std::string("        if [[ $command == ") + group.name +
                 " ]]; then\n"
                 "            if ((i + 1 < cword)); then command+=\" ${words[i + 1]}\"; else\n"
                 "                COMPREPLY=($(compgen -W " +
                 single_quoted(joined(group_commands(group.name))) +
                 " -- \"$cur\")); return\n"
                 "            fi\n"
                 "        fi\n";
    return lines;
}

std::string bash_script(const std::vector<CommandEntries>& tables, const CompletionNames& names) {
    std::ostringstream out;
    out << "# bash completion for bi-run, written by `bi-run completion bash`. It uses the\n"
           "# bash-completion package's helpers when they are loaded, and plain bash otherwise.\n"
           "_bi_run_files() {\n"
           "    if declare -F _filedir >/dev/null; then _filedir \"$@\"; return; fi\n"
           "    local IFS=$'\\n'\n"
           "    if [[ $1 == -d ]]; then COMPREPLY=($(compgen -d -- \"$cur\"))\n"
           "    else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n"
           "}\n"
           "_bi_run() {\n"
           "    local cur prev words cword split\n"
           "    if declare -F _init_completion >/dev/null; then\n"
           "        _init_completion -s || return\n"
           "    else\n"
           "        words=(\"${COMP_WORDS[@]}\"); cword=$COMP_CWORD\n"
           "        cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
           "    fi\n"
           "    local i command=\"\"\n"
           "    for ((i = 1; i < cword; i++)); do\n"
           "        case \"${words[i]}\" in\n"
           "            --plugin | --plugin-dir) ((i++)) ;;\n"
           "            -*) ;;\n"
           "            *) command=\"${words[i]}\"; break ;;\n"
           "        esac\n"
           "    done\n"
           "    if [[ -n $command ]]; then\n"
        << bash_group_lines()
        << "    fi\n"
           "    if [[ -z $command ]]; then\n"
           "        case \"$prev\" in\n"
           "            --plugin) _bi_run_files so; return ;;\n"
           "            --plugin-dir) _bi_run_files -d; return ;;\n"
           "        esac\n"
           "        if [[ $cur == -* ]]; then\n"
           "            COMPREPLY=($(compgen -W '--plugin --plugin-dir --help --version' -- "
           "\"$cur\"))\n"
           "        else\n"
           "            COMPREPLY=($(compgen -W '";
    std::vector<std::string> command_names = names_of(tables);
    command_names.push_back("help");
    out << joined(command_names)
        << "' -- \"$cur\"))\n"
           "        fi\n"
           "        return\n"
           "    fi\n"
           "    local options=\"\" files=\"\" dirs=\"\" numbers=\"\" positionals=\"\"\n"
           "    case \"$command\" in\n";
    for (const auto& table : tables) {
        std::vector<std::string> spelled, files, dirs, numbers;
        std::map<std::string, std::vector<std::string>> words;
        for (const auto& option : table.options) {
            const std::string flag = "--" + option.long_name;
            spelled.push_back(flag);
            if (!option.short_name.empty()) spelled.push_back("-" + option.short_name);
            const auto choice = choice_for(option, names);
            if (choice.kind == Offer::File) files.push_back(flag);
            if (choice.kind == Offer::Directory) dirs.push_back(flag);
            if (choice.kind == Offer::Number) numbers.push_back(flag);
            if (choice.kind == Offer::Word) words[flag] = choice.words;
        }
        out << "        " << case_label(table.command->name) << ")\n"
            << "            options=" << single_quoted(joined(spelled)) << "\n"
            << "            files=" << single_quoted(" " + joined(files) + " ") << "\n"
            << "            dirs=" << single_quoted(" " + joined(dirs) + " ") << "\n"
            << "            numbers=" << single_quoted(" " + joined(numbers) + " ") << "\n";
        if (!table.positional_words.empty())
            out << "            positionals=" << single_quoted(joined(table.positional_words))
                << "\n";
        if (!words.empty()) {
            out << "            case \"$prev\" in\n";
            for (const auto& [flag, list] : words)
                out << "                " << flag << ") COMPREPLY=($(compgen -W "
                    << single_quoted(joined(list)) << " -- \"$cur\")); return ;;\n";
            out << "            esac\n";
        }
        out << "            ;;\n";
    }
    out << "        help) COMPREPLY=($(compgen -W " << single_quoted(joined(command_names))
        << " -- \"$cur\")); return ;;\n"
           "    esac\n"
           "    if [[ $files == *\" $prev \"* ]]; then _bi_run_files; return; fi\n"
           "    if [[ $dirs == *\" $prev \"* ]]; then _bi_run_files -d; return; fi\n"
           "    if [[ $numbers == *\" $prev \"* ]]; then return; fi\n"
           "    if [[ $cur == -* ]]; then\n"
           "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
           "        return\n"
           "    fi\n"
           "    if [[ -n $positionals ]]; then\n"
           "        COMPREPLY=($(compgen -W \"$positionals\" -- \"$cur\"))\n"
           "        return\n"
           "    fi\n"
           "    _bi_run_files\n"
           "}\n"
           "complete -F _bi_run bi-run\n";
    return out.str();
}

// zsh's _arguments specs take ':' and brackets as syntax.
std::string zsh_escaped(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

std::string zsh_script(const std::vector<CommandEntries>& tables, const CompletionNames& names) {
    std::ostringstream out;
    out << "#compdef bi-run\n"
           "# zsh completion for bi-run, written by `bi-run completion zsh`.\n"
           "_bi_run() {\n"
           "    local -a commands\n"
           "    commands=(\n";
    for (const auto& table : tables)
        if (!std::strchr(table.command->name, ' '))
            out << "        "
                << single_quoted(zsh_escaped(table.command->name) + ":" +
                                 menu_line(table.command->summary))
                << "\n";
    for (const auto& group : command_groups())
        out << "        " << single_quoted(zsh_escaped(group.name) + ":" + menu_line(group.summary))
            << "\n";
    out << "    )\n"
           "    local i=2\n"
           "    while (( i < CURRENT )) && [[ $words[i] == -* ]]; do\n"
           "        [[ $words[i] == --plugin || $words[i] == --plugin-dir ]] && (( i++ ))\n"
           "        (( i++ ))\n"
           "    done\n"
           "    if (( i >= CURRENT )); then\n"
           "        _describe -t commands 'bi-run command' commands\n"
           "        return\n"
           "    fi\n"
           "    local command=$words[i]\n";
    for (const auto& group : command_groups())
        out << "    if [[ $command == " << group.name << " ]]; then\n"
            << "        if (( i + 1 >= CURRENT )); then\n"
            << "            compadd -- " << joined(group_commands(group.name)) << "\n"
            << "            return\n"
            << "        fi\n"
            << "        command=\"$command $words[i+1]\"\n"
            << "        (( i++ ))\n"
            << "    fi\n";
    out << "    shift $(( i - 1 )) words\n"
           "    (( CURRENT -= i - 1 ))\n"
           "    case $command in\n";
    for (const auto& table : tables) {
        out << "        " << case_label(table.command->name) << ")\n"
            << "            _arguments -S \\\n";
        for (const auto& option : table.options) {
            const std::string help = "[" + zsh_escaped(short_description(option.description)) + "]";
            std::string action;
            const auto choice = choice_for(option, names);
            if (choice.kind == Offer::File) action = ":file:_files";
            if (choice.kind == Offer::Directory) action = ":directory:_files -/";
            if (choice.kind == Offer::Word) action = ":value:(" + joined(choice.words) + ")";
            if (choice.kind == Offer::Number) action = ":number: ";
            const std::string repeat = option.repeatable ? "*" : "";
            const std::string flag =
                "--" + option.long_name + (option.value_name.empty() ? "" : "=");
            out << "                " << single_quoted(repeat + flag + help + action) << " \\\n";
        }
        const std::string rest =
            table.positional_words.empty()
                ? "'*:file:_files'"
                : single_quoted(":value:(" + joined(table.positional_words) + ")");
        out << "                " << rest << "\n"
            << "            ;;\n";
    }
    out << "    esac\n"
           "}\n"
           "_bi_run \"$@\"\n";
    return out.str();
}

std::string fish_script(const std::vector<CommandEntries>& tables, const CompletionNames& names) {
    std::ostringstream out;
    std::vector<std::string> command_names = names_of(tables);
    const std::string any = joined(command_names);
    out << "# fish completion for bi-run, written by `bi-run completion fish`.\n"
           "complete -c bi-run -n 'not __fish_seen_subcommand_from "
        << any << "' -l plugin -r -F -d 'Plugin .so to load'\n"
        << "complete -c bi-run -n 'not __fish_seen_subcommand_from " << any
        << "' -l plugin-dir -r -a '(__fish_complete_directories)' -d 'Plugin directory'\n"
        << "complete -c bi-run -n 'not __fish_seen_subcommand_from " << any
        << "' -l version -d 'Print the version and build'\n";
    for (const auto& table : tables)
        if (!std::strchr(table.command->name, ' '))
            out << "complete -c bi-run -f -n 'not __fish_seen_subcommand_from " << any << "' -a "
                << table.command->name << " -d " << single_quoted(menu_line(table.command->summary))
                << "\n";
    for (const auto& group : command_groups()) {
        out << "complete -c bi-run -f -n 'not __fish_seen_subcommand_from " << any << "' -a "
            << group.name << " -d " << single_quoted(menu_line(group.summary)) << "\n";
        const std::string words = joined(group_commands(group.name));
        for (const auto& table : tables) {
            const std::string name = table.command->name;
            if (name.rfind(std::string(group.name) + " ", 0) != 0) continue;
            out << "complete -c bi-run -f -n '__fish_seen_subcommand_from " << group.name
                << "; and not __fish_seen_subcommand_from " << words << "' -a "
                << name.substr(name.find(' ') + 1) << " -d "
                << single_quoted(menu_line(table.command->summary)) << "\n";
        }
    }
    for (const auto& table : tables)
        if (!table.positional_words.empty())
            out << "complete -c bi-run -f -n '__fish_seen_subcommand_from " << table.command->name
                << "' -a " << single_quoted(joined(table.positional_words)) << "\n";
    for (const auto& table : tables)
        for (const auto& option : table.options) {
            // A group's command is seen when both of its words are.
            std::string seen = table.command->name;
            if (const auto space = seen.find(' '); space != std::string::npos)
                seen = seen.substr(0, space) + "; and __fish_seen_subcommand_from " +
                       seen.substr(space + 1);
            out << "complete -c bi-run -n '__fish_seen_subcommand_from " << seen << "' -l "
                << option.long_name;
            if (!option.short_name.empty()) out << " -s " << option.short_name;
            const auto choice = choice_for(option, names);
            if (choice.kind == Offer::File) out << " -r -F";
            if (choice.kind == Offer::Directory) out << " -r -a '(__fish_complete_directories)'";
            if (choice.kind == Offer::Word)
                out << " -r -f -a " << single_quoted(joined(choice.words));
            if (choice.kind == Offer::Number) out << " -r -f";
            out << " -d " << single_quoted(short_description(option.description)) << "\n";
        }
    return out.str();
}

}  // namespace

std::string completion_script(const std::string& shell, const CompletionNames& names) {
    const auto tables = all_command_options();
    if (shell == "bash") return bash_script(tables, names);
    if (shell == "zsh") return zsh_script(tables, names);
    if (shell == "fish") return fish_script(tables, names);
    usage_error("unknown shell '" + shell + "' (bash, zsh or fish)");
}

}  // namespace bi::cli
