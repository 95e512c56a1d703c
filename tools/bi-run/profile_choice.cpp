// Deciding between the two meanings of --profile, before any server starts.
#include "profile_choice.hpp"

#include "driver/run_setup.hpp"

namespace bi::cli {

std::string models_file_path(const cxxopts::ParseResult& args) {
    return driver::models_file_path(args.count("models-toml")
                                        ? args["models-toml"].as<std::string>()
                                        : std::optional<std::string>());
}

}  // namespace bi::cli
