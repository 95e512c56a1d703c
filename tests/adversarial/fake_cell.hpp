// The command line of one small cell against tests/adversarial/fake_llama_server.py: N=4 at ctx
// 512 over the small work-set, 2 passes of C, 16 tokens, a 3 ms fake decode tick. Tests add the
// kind, the fake's own flags and their options after it.
#pragma once

#include <string>
#include <vector>
#include "built_paths.hpp"

namespace bi::testing {

inline std::vector<std::string> fake_cell_argv(const std::string& model,
                                               const std::string& out_dir) {
    return {BI_RUN_PATH,     "run-live",
            "--server-bin",  BI_FAKE_SERVER,
            "--model",       model,
            "--model-alias", "m",
            "--out-dir",     out_dir,
            "--workset",     BI_SMALL_WORKSET,
            "--ctx",         "512",
            "--parallel",    "4",
            "--passes",      "2",
            "--n-predict",   "16",
            "--quiet",       "--server-flag=--fake-tick-ms=3"};
}

}  // namespace bi::testing
