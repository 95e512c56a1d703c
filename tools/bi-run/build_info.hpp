// What this bi-run is: its version and commit, how it was built, and the versions of the
// libraries it runs on, for `bi-run --version` and the JSON summaries.
#pragma once

#include <string>

#include "core/json.hpp"

namespace bi::cli {

struct BuildInfo {
    std::string version;
    std::string commit;      // "" when the build did not know it
    std::string build_type;  // "RelWithDebInfo", "" for a multi-config generator
    std::string compiler;    // "GNU 12.2.0"
    std::string plugin_abi;  // "1.1": the SDK contract this bi-run loads
    std::string poco;        // the Poco library bi-run runs on
    std::string rapidjson;
    std::string openssl;        // libcrypto's own version text, at run time
    std::string openssl_built;  // the headers it was built against
};

BuildInfo build_info();

// The lines `bi-run --version` prints, the first "bi-run VERSION".
std::string version_text(const BuildInfo& info);

// The same as one JSON object.
core::Json version_json(const BuildInfo& info);

}  // namespace bi::cli
