// Cert history on disk: before a verdict replaces a cell's cert, the old file is kept under
// history/ beside it (timestamped, never deleted), and the new cert lists what it replaced.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/cert.hpp"

namespace bi::driver {

// When a file exists at `cert_path`, copies it byte for byte to
// <dir>/history/<name without .json>.<stamp>.json (a free name: never overwritten) and returns
// the new cert's previous[]: the old cert's own previous[] and then the old cert itself. Returns
// nullopt when there is nothing to replace. `stamp` is the new cert's ts_utc.
// Throws bi::Error(Io) naming the file when the copy cannot be made (the cert is then not
// replaced either).
// An old cert that knew only the first MiB's hash of the same model file (bi-cert/1) is taken to
// have `replacing`'s full hash when size and head agree, so its RED stays binding: the rule errs
// toward a RED, never toward a GREEN.
std::optional<std::vector<core::PreviousCert>> archive_replaced_cert(
    const std::string& cert_path, const std::string& stamp, const core::Cert* replacing = nullptr);

// What a run says when it moved the cell's cert at `cert_path` to `replaced.file` (beside it) for
// `now`: "moved m__ctx512__N2.json (GREEN, promotable, of 2026-...) to history/...json: this
// run's configuration differs: endpoint chat → completion, logprobs 0 → 2"; "...: a rerun of the
// same configuration" when nothing differs. Reads the history file; never throws.
std::string replaced_cert_note(const std::string& cert_path, const core::PreviousCert& replaced,
                               const core::Cert& now);

}  // namespace bi::driver
