// The configuration-relevant half of a cell's cert, from the options alone: what a run would
// record before it runs. The written cert is built on top of it (CellRunner::run_cell) and a
// resumed sweep compares an existing cert against it, so both agree by construction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cell_runner.hpp"
#include "core/cert.hpp"

namespace bi::driver {

// The run record's labels and request settings (everything the options decide; the runner adds
// the work-set size once it is known).
core::RunRecord configured_run_record(const RunOptions& options);

// The cell, source, model file, run record and the N-slot server's binary hash; the rest of the
// context (servers' argv, host, timings, ts) is left for the run to fill.
core::CertContext configuration_context(const RunOptions& options, std::int64_t ctx, int parallel,
                                        core::Source source,
                                        const std::optional<std::string>& binary_sha256);

// Whether the cert at `path` already answers this cell: it verifies (digest intact, a well-formed
// cert), names no configuration key it does not know, and has the configuration id this run's
// cert would have, its recorded N-slot binary hash included (a mock's configuration leaves the
// binary out). `reason` says why not, or describes the match.
struct ExistingCert {
    bool reusable = false;
    std::string reason;
};
ExistingCert check_existing_cert(const std::string& path, const RunOptions& options,
                                 std::int64_t ctx, int parallel, const std::string& binary_sha256);

}  // namespace bi::driver
