// What the cert records about bi-run itself: its version, the commit it was built from, its
// command line and the plugin files it loaded (each with its sha256).
#pragma once

#include <memory>
#include <string>

#include "cli/command_line.hpp"
#include "core/cert.hpp"
#include "driver/run_setup.hpp"
#include "plugin_host/plugin_set.hpp"
#include "trust/signing.hpp"

namespace bi::cli {

// This bi-run: its version, the commit it was built from and its command line.
driver::Invocation invocation(const CommandLine& line);

// The --sign-key file, or $BI_SIGN_KEY when the flag is absent; null when neither is given.
// Throws bi::Error(Usage) naming the flag or variable when the key cannot be used.
std::shared_ptr<const trust::SigningKey> signing_key_option(const std::string& flag_value);

}  // namespace bi::cli
