#include "server_kinds.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "core/request_field.hpp"
#include "core/text.hpp"
#include "io/server_kind_io.hpp"
#include "run_setup.hpp"
#include "server/command_output.hpp"

#ifndef BI_KIND_DIR_FROM_BINDIR
#error "BI_KIND_DIR_FROM_BINDIR must name the installed kind directory relative to bindir"
#endif

namespace bi::driver {

namespace {

constexpr std::string_view kSuffix = ".toml";

bool ends_with(const std::string& text, std::string_view suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// --server-kind-dir values, then $BI_SERVER_KIND_PATH, then the installed kind directory.
std::vector<std::string> search_dirs(const std::vector<std::string>& dirs) {
    std::vector<std::string> all = dirs;
    for (auto& dir : split_path_list(std::getenv("BI_SERVER_KIND_PATH"))) all.push_back(dir);
    if (auto installed = installed_kind_dir()) all.push_back(std::move(*installed));
    return all;
}

// A kind file in the installed directory with the bytes of a shipped kind is that kind (source
// "built-in:<file>"), so a cert's kind record is checked against what bi-run ships.
core::ServerKind as_shipped(core::ServerKind kind, const std::string& dir) {
    if (dir != installed_kind_dir()) return kind;
    for (const auto& shipped : builtin_server_kinds())
        if (shipped.name == kind.name && shipped.sha256 == kind.sha256) return shipped;
    return kind;
}

// How long a kind's probe command (`--help`, `--version`) may run.
constexpr std::chrono::seconds kProbeTimeout{10};

}  // namespace

std::optional<std::string> installed_kind_dir() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return std::nullopt;
    const auto dir = (exe.parent_path() / BI_KIND_DIR_FROM_BINDIR).lexically_normal();
    if (!std::filesystem::is_directory(dir, ec)) return std::nullopt;
    return dir.string();
}

core::ServerKind resolve_server_kind(const std::string& name_or_path,
                                     const std::vector<std::string>& dirs) {
    if (name_or_path.find('/') != std::string::npos || ends_with(name_or_path, kSuffix))
        return io::read_server_kind(name_or_path);
    for (const auto& dir : search_dirs(dirs)) {
        const auto file = std::filesystem::path(dir) / (name_or_path + std::string(kSuffix));
        std::error_code ec;
        if (std::filesystem::is_regular_file(file, ec)) {
            auto kind = io::read_server_kind(file.string());
            if (kind.name != name_or_path)
                throw Error(ErrorCategory::Input, file.string() + ": names kind '" + kind.name +
                                                      "', not '" + name_or_path + "'");
            return as_shipped(std::move(kind), dir);
        }
    }
    for (const auto& kind : builtin_server_kinds())
        if (kind.name == name_or_path) return kind;
    std::string known;
    for (const auto& name : known_server_kinds(dirs)) known += (known.empty() ? "" : ", ") + name;
    throw Error(ErrorCategory::Usage, core::field_ref(core::RequestField::ServerKind) + " " +
                                          name_or_path + ": no such server kind (known: " + known +
                                          "; or give a kind file's path)");
}

std::vector<std::string> known_server_kinds(const std::vector<std::string>& dirs) {
    std::set<std::string> names;
    for (const auto& kind : builtin_server_kinds()) names.insert(kind.name);
    for (const auto& dir : search_dirs(dirs)) {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
            const auto file = entry.path().filename().string();
            if (ends_with(file, kSuffix))
                names.insert(file.substr(0, file.size() - kSuffix.size()));
        }
    }
    return {names.begin(), names.end()};
}

DetectedKind detect_server_kind(const std::string& binary, const std::vector<std::string>& dirs) {
    const std::string file = std::filesystem::path(binary).filename().string();
    std::vector<core::ServerKind> claims;
    for (const auto& name : known_server_kinds(dirs)) {
        auto kind = resolve_server_kind(name, dirs);
        const auto& names = kind.identity.binary_names;
        if (std::find(names.begin(), names.end(), file) != names.end())
            claims.push_back(std::move(kind));
    }
    // A binary no kind claims is not run before its launch: it is llama-server's.
    if (claims.empty()) return {resolve_server_kind(kDefaultServerKind, dirs), ""};

    // Each distinct probe command runs once, bounded; a kind is the binary's when the output of
    // its command holds every one of its texts.
    std::map<std::vector<std::string>, std::optional<std::string>> outputs;
    std::vector<const core::ServerKind*> probed, unprobed;
    for (const auto& kind : claims) {
        const auto& id = kind.identity;
        if (id.probe_argv.empty()) {
            unprobed.push_back(&kind);
            continue;
        }
        auto [it, fresh] = outputs.try_emplace(id.probe_argv);
        if (fresh) {
            std::vector<std::string> argv{binary};
            argv.insert(argv.end(), id.probe_argv.begin(), id.probe_argv.end());
            it->second = server::command_output(argv, kProbeTimeout, server::ExitRule::Any);
        }
        const auto& out = it->second;
        if (out && std::all_of(id.probe_text.begin(), id.probe_text.end(), [&](const auto& text) {
                return out->find(text) != std::string::npos;
            }))
            probed.push_back(&kind);
    }
    if (probed.size() == 1)
        return {*probed.front(),
                "by the binary's " + core::join(probed.front()->identity.probe_argv)};
    if (probed.empty() && unprobed.size() == 1) return {*unprobed.front(), "by the binary's name"};
    if (probed.empty() && unprobed.empty())  // every claimant has a probe, and none answered
        return {resolve_server_kind(kDefaultServerKind, dirs), ""};
    const auto& chosen = probed.empty() ? unprobed : probed;
    std::string list;
    for (const auto* kind : chosen) list += (list.empty() ? "" : ", ") + kind->name;
    throw Error(ErrorCategory::Usage,
                core::field_ref(core::RequestField::ServerBin) + " " + binary + ": the kinds " +
                    list + " all launch a binary named " + file +
                    (probed.empty() ? "" : " and answer their probes") + "; choose one with " +
                    core::field_ref(core::RequestField::ServerKind));
}

}  // namespace bi::driver
