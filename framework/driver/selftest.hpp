// A selftest: a tiny random-weight GGUF model written on the spot and one small cell (exact-match
// scoring, /completion with logprobs) run against the user's own server binary, so the harness
// and the gate are proven on that binary in about a minute, with no download and no GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "cell_runner.hpp"
#include "core/run_request.hpp"
#include "run_setup.hpp"

namespace bi::driver {

struct SelftestRequest {
    // The server binary, its extra flags, the guards, --port and --ready-timeout; the model and
    // the models file are not used (the model is synthesised).
    core::TargetRequest target;
    std::int64_t parallel = 4;
    std::int64_t passes = 3;
    std::int64_t n_predict = 64;
    std::int64_t ctx = 1024;             // per slot; the synthetic model is tiny
    std::string dtype = "f32";           // the model's matrices: f32 or f16
    std::optional<std::string> out_dir;  // absent: a new temp directory
    bool keep = false;                   // keep that temp directory even when no cert was written
    bool quiet = false;
    std::uint64_t max_response_bytes = core::kDefaultMaxResponseBytes;
    core::Seconds plugin_timeout{30.0};
};

struct SelftestResult {
    CellOutcome outcome;
    std::size_t n_prompts = 0;
};

// Checks the request (bi::Error(Usage) naming the field), writes the model, runs the cell and
// removes the model again. A temp directory made here is removed unless a cert was written or
// `keep` is set; a directory the user named keeps everything but the model file.
SelftestResult run_selftest(const SelftestRequest& request, const Invocation& invocation,
                            std::ostream& notes);

}  // namespace bi::driver
