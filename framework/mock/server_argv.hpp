// llama-server's command line, read into a MockConfig so bi-mock-server can stand in for the
// real binary. Flags the mock does not model are accepted and ignored.
#pragma once

#include <string>
#include <vector>

#include "mock_config.hpp"

namespace bi::mock {

struct ServerCommandLine {
    MockConfig config;  // defaults as llama-server's: port 8080, 4 slots, no metrics
    bool help = false;
    bool version = false;
    bool ignore_sigterm = false;  // process-level knob: stand in for a server that will not stop
    std::vector<std::string> ignored;  // flags accepted without effect, in order
};

// `args` excludes argv[0]. Throws bi::Error(Usage) with a one-line message naming the flag.
ServerCommandLine parse_llama_argv(const std::vector<std::string>& args);

std::string llama_argv_usage();

}  // namespace bi::mock
