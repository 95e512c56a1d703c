// The man pages (roff), generated from the commands' help text and option tables.
#pragma once

#include <string>
#include <vector>

namespace bi::cli {

// Writes bi-run.1, bi-run-COMMAND.1 for every command, bi-mock-server.1 and bi-run-cert.5 (the
// pages cite it) into `dir` (created when missing); `usage_text` is what `bi-run --help` prints and
// `version` bi-run's version. Returns the files written; bi::Error(Io) naming the file and the
// system's reason when one cannot be written.
std::vector<std::string> write_man_pages(const std::string& dir, const std::string& usage_text,
                                         const std::string& version);

}  // namespace bi::cli
