#include "run_setup.hpp"

#include "core/error.hpp"

namespace bi::driver {

RunSetup prepare_run(const core::RunRequest& request, const Invocation& invocation,
                     bool allow_lists, ProfileScope profile_scope, std::ostream& notes) {
    RunSetup setup;
    check_request(request, allow_lists, setup.plan);
    load_scoring(request, invocation, profile_scope, setup, notes);
    return setup;
}

// The items a cell will send, when the work-set can be sized without a server (its tokenizer is
// not needed to count rows); nullopt when the generator needs it. No server runs yet, so the
// generator is given no token counter at all: it estimates, as `bi-run workset` does, instead of
// asking a counter that can only fail.
std::optional<std::size_t> work_set_size(const RunSetup& setup) {
    try {
        const auto rows = setup.rows(plugin_host::TokenCounter{}, setup.plan.options.model_alias,
                                     setup.plan.ctxs.front());
        return rows.size() * static_cast<std::size_t>(setup.plan.options.reps);
    } catch (const Error&) {
        return std::nullopt;
    }
}

}  // namespace bi::driver
