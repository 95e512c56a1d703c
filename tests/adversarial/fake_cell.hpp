// The command line of one small cell against tests/adversarial/fake_llama_server.py: N=4 at ctx
// 512 over the small work-set, 2 passes of C, 16 tokens, a 3 ms fake decode tick. Tests add the
// kind, the fake's own flags and their options after it.
#pragma once

#include <string>
#include <vector>
#include "built_paths.hpp"

namespace bi::testing {

// The fake's tick for a run that must show an honest batch on a surface whose streams carry no
// server clock (every surface but llama-server's): their steps are timed on arrival, and at 3 ms
// the client's wake-ups on a loaded 2-core machine now and then stray past g / (2N) = 0.375 ms
// in most steps of a pass; 10 ms steps, as a real server's tens of ms, keep clear of that noise.
inline const char* const kArrivalTimedTick = "--fake-tick-ms=10";

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
