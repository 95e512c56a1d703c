#include "build_info.hpp"

#include <Poco/Environment.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>
#include <rapidjson/rapidjson.h>

#include <string>

#include "bi/plugin.h"
#include "bi/version.hpp"

namespace bi::cli {

namespace {

std::string dotted(unsigned major, unsigned minor, unsigned patch) {
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace

BuildInfo build_info() {
    BuildInfo info;
    info.version = BI_VERSION_STRING;
    info.commit = BI_GIT_COMMIT;
    info.build_type = BI_BUILD_TYPE;
    info.compiler = BI_COMPILER;
    info.plugin_abi =
        std::to_string(BI_PLUGIN_ABI_MAJOR) + "." + std::to_string(BI_PLUGIN_ABI_MINOR);
    // Poco's version word is 0xMMmmpprr (major, minor, patch, release).
    const unsigned poco = Poco::Environment::libraryVersion();
    info.poco = dotted(poco >> 24, (poco >> 16) & 0xff, (poco >> 8) & 0xff);
    info.rapidjson = RAPIDJSON_VERSION_STRING;
    info.openssl = OpenSSL_version(OPENSSL_VERSION);
    info.openssl_built = OPENSSL_VERSION_TEXT;
    return info;
}

std::string version_text(const BuildInfo& info) {
    std::string text = "bi-run " + info.version + "\n";
    const auto line = [&](const char* name, const std::string& value) {
        if (!value.empty()) text += std::string(name) + value + "\n";
    };
    line("commit:      ", info.commit.empty() ? std::string("unknown") : info.commit);
    line("build type:  ", info.build_type.empty() ? std::string("unknown") : info.build_type);
    line("compiler:    ", info.compiler);
    line("plugin ABI:  ", info.plugin_abi);
    line("Poco:        ", info.poco);
    line("RapidJSON:   ", info.rapidjson);
    line("OpenSSL:     ", info.openssl + (info.openssl == info.openssl_built
                                              ? std::string()
                                              : " (built against " + info.openssl_built + ")"));
    return text;
}

core::Json version_json(const BuildInfo& info) {
    const auto optional = [](const std::string& value) {
        return value.empty() ? core::Json() : core::Json(value);
    };
    return core::Json::Object{
        {"bi_run", info.version},
        {"commit", optional(info.commit)},
        {"build_type", optional(info.build_type)},
        {"compiler", info.compiler},
        {"plugin_abi", info.plugin_abi},
        {"poco", info.poco},
        {"rapidjson", info.rapidjson},
        {"openssl", info.openssl},
    };
}

}  // namespace bi::cli
