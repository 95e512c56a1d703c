// --models-toml as the command line gives it; what --profile means is decided in the driver
// (driver::chosen_plugin_profile).
#pragma once

#include <cxxopts.hpp>

#include <string>

namespace bi::cli {

// --models-toml, else $BI_MODELS_TOML, else ./models.toml.
std::string models_file_path(const cxxopts::ParseResult& args);

}  // namespace bi::cli
