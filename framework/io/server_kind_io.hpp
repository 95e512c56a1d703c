// Server kind files (`bi-server-kind/1`, TOML): read, checked and turned into core::ServerKind.
// Every problem is bi::Error(Input) naming the file and the key; an unknown key, placeholder
// or schema is refused, never ignored.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cert.hpp"
#include "core/server_kind.hpp"

namespace bi::io {

// evidence.metrics_format's words, in kind files and in certs alike: "prometheus",
// "json-iterations".
std::string_view metrics_format_name(core::MetricsFormat format);
std::optional<core::MetricsFormat> parse_metrics_format(std::string_view word);

// A kind from the text of `path` ("built-in" for the kinds compiled into bi-run); its sha256 is
// the text's.
core::ServerKind parse_server_kind(const std::string& text, const std::string& path);

// A kind file on disk.
core::ServerKind read_server_kind(const std::string& path);

// The shipped kind files as {file name, text}, in name order (generated at build time from
// kinds/*.toml by cmake/EmbedKinds.cmake).
const std::vector<std::pair<std::string, std::string>>& builtin_kind_texts();

// Every shipped kind, read (source "built-in:<file>").
const std::vector<core::ServerKind>& builtin_server_kinds();

// The kind a run launches when none is named, and whose request and evidence a request or
// observation without a kind uses (run-mock speaks it).
inline constexpr const char* kDefaultServerKind = "llama-server";

// The shipped kind named kDefaultServerKind.
const core::ServerKind& default_server_kind();

// Why a cert's kind record cannot be what a shipped kind file says: a record naming a shipped
// file with that file's digest must carry its evidence and its slot pinning (so that a cert
// cannot be judged by weaker signals than its kind declares). "" when it agrees, or when the
// record names a file this bi-run does not ship (a user's, or another version's).
std::string builtin_kind_problem(const core::ServerKindRecord& record);

}  // namespace bi::io
