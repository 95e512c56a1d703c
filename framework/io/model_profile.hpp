// models.toml: named models for run-live and sweep ([defaults] + [[models]]), so a cell can be
// named by its alias instead of a long command line.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace bi::io {

struct ModelProfile {
    std::string alias;
    std::string gguf;                       // {MODELS_DIR} already substituted
    std::string server_bin;                 // the model's own, else [defaults]
    std::string kv;                         // KV cache label, default core::kDefaultKvLabel
    std::string server_kind;                // the model's own, else [defaults]; "" when neither
    std::vector<std::string> server_flags;  // [defaults] server_flags, then the model's flags
                                            // (`flags`, or upstream's `server_flags`)
    bool cache_arm = false;                 // `cache_arm`, the model's own, else [defaults]
    std::string determinism;                // `determinism` (off, on, both); "": not given
};

struct ModelsFile {
    std::string path;
    std::vector<std::string> aliases;  // in file order
};

// Reads `path` and returns the profile for `alias`. `models_dir` replaces {MODELS_DIR} (when
// empty: [defaults] models_dir, else an error if the placeholder is used). Errors are
// bi::Error(Input) naming the file and key; an unknown alias lists the known ones, and a key the
// reader does not know is refused with its table and line, never ignored.
ModelProfile load_model_profile(const std::string& path, const std::string& alias,
                                const std::string& models_dir);

// The aliases a file defines (for messages and listings).
ModelsFile list_models(const std::string& path);

}  // namespace bi::io
