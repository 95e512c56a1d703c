// Which server kind a run launches: a kind file named by path, a kind file NAME.toml in the
// user's kind directories, or one of the kinds bi-run ships (kinds/*.toml, compiled in). A user
// adds a kind by writing its file; nothing is rebuilt.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/server_kind.hpp"
#include "io/server_kind_io.hpp"

namespace bi::driver {

// The kind a run launches when none is named.
using io::kDefaultServerKind;

// Every shipped kind, read (source "built-in:<file>").
using io::builtin_server_kinds;

struct DetectedKind {
    core::ServerKind kind;
    std::string how;  // "by the binary's name", "by the binary's --help", "" (the default)
};

// The kind for a run that names none, among the shipped kinds and the NAME.toml files in
// `dirs` and $BI_SERVER_KIND_PATH: of the kinds whose identity.binary_names hold the binary's
// file name, a kind with a probe whose command prints all its texts wins; when no probe
// answers, the one claimant without a probe is taken; no claimant: llama-server.
// bi::Error(Usage) naming them when several kinds remain.
DetectedKind detect_server_kind(const std::string& binary, const std::vector<std::string>& dirs);

// The installed kind directory relative to bi-run (<prefix>/share/bi-run/kinds), when it exists.
// Kind files there are known to every user of this bi-run; the package puts the shipped kinds'
// files there, and those stay the shipped kinds (source "built-in:<file>").
std::optional<std::string> installed_kind_dir();

// `name_or_path`: a value holding '/' or ending in ".toml" is a kind file; a bare name is
// NAME.toml in `dirs` (--server-kind-dir, in order), then in $BI_SERVER_KIND_PATH
// (':'-separated), then in installed_kind_dir(), then a shipped kind of that name. A user's file of
// a shipped kind's name shadows it. bi::Error(Usage) listing every kind it can find when none
// matches; a kind file that cannot be read is bi::Error(Input) naming the file and key.
core::ServerKind resolve_server_kind(const std::string& name_or_path,
                                     const std::vector<std::string>& dirs);

// The names resolve_server_kind() would find for a bare name, each once, sorted.
std::vector<std::string> known_server_kinds(const std::vector<std::string>& dirs);

}  // namespace bi::driver
