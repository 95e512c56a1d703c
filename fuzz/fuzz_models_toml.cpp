// models.toml (--models-toml, --profile): the bytes as a file through io::list_models, then
// io::load_model_profile for the first aliases it names (and one it does not), with and without
// a models directory for {MODELS_DIR}.
#include <algorithm>

#include "fuzz_input.hpp"
#include "io/model_profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static bi::fuzz::InputFile file;
    const std::string& path = file.write(bi::fuzz::as_text(data, size));
    std::vector<std::string> aliases;
    bi::fuzz::refusals_allowed([&] { aliases = bi::io::list_models(path).aliases; });
    aliases.resize(std::min<std::size_t>(aliases.size(), 3));
    aliases.emplace_back("no-such-alias");
    for (const auto& alias : aliases)
        for (const char* dir : {"", "/models"})
            bi::fuzz::refusals_allowed([&] { (void)bi::io::load_model_profile(path, alias, dir); });
    return 0;
}
