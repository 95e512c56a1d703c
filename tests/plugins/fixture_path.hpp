// Where the build put the fixture plugins: kept out of bin/ so bi-run never loads one as bundled.
#pragma once

#include <string>
#include "built_paths.hpp"

namespace bi::testing {

// lib<name>.so in BI_FIXTURE_DIR, which tests/plugins/CMakeLists.txt defines.
inline std::string fixture(const std::string& name) {
    return std::string(BI_FIXTURE_DIR) + "/lib" + name + ".so";
}

}  // namespace bi::testing
