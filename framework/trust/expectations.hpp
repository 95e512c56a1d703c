// The deployment a reader is about to switch on, as the command line or a file states it: each
// `KEY=VALUE` checked against core::expectation_keys() before any cert is read.
#pragma once

#include <string>
#include <vector>

#include "core/deployment.hpp"

namespace bi::trust {

// "KEY=VALUE"; bi::Error(Usage) naming `where` (the option) and the text when the key is missing
// or unknown (the message lists the known keys).
core::Expectation parse_expectation(const std::string& text, const std::string& where);

// A JSON object of the same keys: strings or integers, or lists of them for repeatable keys.
// bi::Error(Usage) naming --expect-deployment and the file for anything else.
std::vector<core::Expectation> read_deployment_file(const std::string& path);

}  // namespace bi::trust
