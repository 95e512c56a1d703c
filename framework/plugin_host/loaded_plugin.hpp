// One loaded, validated plugin library as the host keeps it: the library handle and
// size-normalised copies of the plugin's tables. Internal to plugin_host.
#pragma once

#include <Poco/SharedLibrary.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bi/plugin.h"

namespace bi::plugin_host {

struct ScorerTable {
    const bi_scorer* original = nullptr;  // passed back to the plugin as `self`
    bi_scorer table{};                    // a zero-padded copy: fields past struct_size are NULL
    std::string id;
    std::string description;
};

struct GeneratorTable {
    const bi_generator* original = nullptr;
    bi_generator table{};
    std::string id;
    std::string description;
};

struct LoadedPlugin {
    std::string path;            // as the user gave it; every message names it
    std::string canonical_path;  // loading the same file twice is a no-op
    bool bundled = false;
    // Never unloaded: Poco's destructor leaves the library mapped, so code and descriptor stay
    // valid for the whole process even after the last ScorerInstance is gone.
    std::unique_ptr<Poco::SharedLibrary> library;
    std::string name;
    std::string version;
    std::string description;
    std::uint32_t abi_major = 0;
    std::uint32_t abi_minor = 0;
    std::vector<ScorerTable> scorers;
    std::vector<GeneratorTable> generators;
};

}  // namespace bi::plugin_host
