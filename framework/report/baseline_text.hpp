// What bi-run baseline record and check print (docs/baseline.md), and the line a cell prints
// about the check its arm A was part of: text for a person, one JSON line for a machine.
#pragma once

#include <string>
#include <vector>

#include "core/baseline_documents.hpp"
#include "core/json.hpp"

namespace bi::report {

// "BASELINE SAME  m  ctx 512": the status word first, as every verdict line starts with its word.
std::string check_headline(const core::BaselineCheck& check);

// The headline, every reason, both sides (when, which binary and version, which host), what
// differs between them, and the report's path; lines end in '\n'.
std::string check_text(const core::BaselineCheck& check, const std::string& path);

// The same as one JSON object on one line (no '\n').
std::string check_json(const core::BaselineCheck& check, const std::string& path,
                       const core::Json& version = core::Json());

// A recorded baseline: what ran, whether it can stand as a reference (and why not), its path.
std::string record_text(const core::SerialBaseline& baseline, const std::string& path,
                        const std::vector<std::string>& problems);
std::string record_json(const core::SerialBaseline& baseline, const std::string& path,
                        const std::vector<std::string>& problems,
                        const core::Json& version = core::Json());

// "baseline: DRIFT ONLY (scores held, ...) -> m__ctx512.baseline-check.json": a cert's summary.
std::string summary_line(const core::BaselineCheckSummary& summary);

// One line per id that moved, changed first, at most `limit` and a last line for the rest:
// "ID: changed, first differs at token_id 3 (near_tie): \" the cat\" -> \" a dog\"".
std::vector<std::string> moved_lines(const core::BaselineCheck& check, std::size_t limit);

// The first line of the binary's --version text ("version: 6133 (1a2b3c4)"), or "".
std::string version_line(const core::ServerLaunch& launch);

// "llama-server b6133 (sha256 1a2b3c4d5e6f) on host, CPU x16, GPU": one side in a line.
std::string side_line(const core::CheckSide& side);

}  // namespace bi::report
