#include "provenance.hpp"

#include <cstdlib>
#include <vector>

#include "bi/version.hpp"
#include "core/error.hpp"
#include "core/utf8.hpp"
#include "io/file_hash_cache.hpp"

namespace bi::cli {

namespace {

std::vector<std::string>& command_line() {
    static std::vector<std::string> argv;
    return argv;
}

}  // namespace

void remember_command_line(int argc, char** argv) {
    command_line().assign(argv, argv + argc);
}

core::ProvenanceRecord provenance_record(const plugin_host::Plugins& plugins) {
    core::ProvenanceRecord record;
    record.version = BI_VERSION_STRING;
    if (std::string(BI_GIT_COMMIT).size() > 0) record.commit = std::string(BI_GIT_COMMIT);
    for (const auto& arg : command_line()) record.argv.push_back(core::replace_invalid_utf8(arg));
    for (const auto& info : plugins.list()) {
        core::PluginRecord plugin{info.name, info.version, info.path, std::nullopt};
        try {
            plugin.sha256 = io::stream_file_sha256(info.path);
        } catch (const Error&) {
            // a plugin file that cannot be read again stays recorded, without its hash
        }
        record.plugins.push_back(std::move(plugin));
    }
    return record;
}

std::shared_ptr<const io::SigningKey> signing_key_option(const std::string& flag_value) {
    if (!flag_value.empty()) return io::SigningKey::load(flag_value, "--sign-key");
    const char* env = std::getenv("BI_SIGN_KEY");
    if (env && *env) return io::SigningKey::load(env, "$BI_SIGN_KEY");
    return nullptr;
}

}  // namespace bi::cli
