// Shell completion scripts generated from the commands' option tables.
#pragma once

#include <string>
#include <vector>

namespace bi::cli {

// The values the shell offers for --server-kind, --scorer and --generator.
struct CompletionNames {
    std::vector<std::string> server_kinds;
    std::vector<std::string> scorers;
    std::vector<std::string> generators;
};

// The completion script for `shell` ("bash", "zsh" or "fish"); bi::Error(Usage) for another.
std::string completion_script(const std::string& shell, const CompletionNames& names);

}  // namespace bi::cli
