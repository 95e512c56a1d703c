#include "plugins.hpp"

#include "bundled_plugins.hpp"
#include "io/workset.hpp"

namespace bi::plugin_host {

void Plugins::load_bundled() {
    load_bundled(bundled_plugin_dirs());
}

std::vector<core::WorkRow> Plugins::generate_rows(std::string_view generator_id,
                                                  const GenerationRequest& request,
                                                  const TokenCounter& count_tokens) const {
    return io::rows_from_json(generate(generator_id, request, count_tokens),
                              "generator '" + std::string(generator_id) + "'");
}

}  // namespace bi::plugin_host
