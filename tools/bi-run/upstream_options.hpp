// The upstream Python tool's options that bi-run has no option of its own for: taken when their
// value is what bi-run does anyway (with a note), refused otherwise with what to use instead.
// docs/run-live.md#coming-from-the-python-tool lists them.
#pragma once

#include <vector>

#include "cli/option_aliases.hpp"

namespace bi::cli {

// --cert-source: bi-run decides the source from what it ran; `live` agrees with run-live and
// sweep (`live_command`), `mock` with run-mock.
OptionAlias cert_source_option(bool live_command);

// run-live's and sweep's: --invariant-fields, --position-strategy, --empty-retries,
// --swa-window and --gguf-gb.
std::vector<OptionAlias> upstream_live_options();

}  // namespace bi::cli
