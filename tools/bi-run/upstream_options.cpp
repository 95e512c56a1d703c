#include "upstream_options.hpp"

#include <algorithm>
#include <string>

#include "core/trial.hpp"

namespace bi::cli {

namespace {

bool is_live(std::string_view value) {
    return value == "live";
}

bool is_mock(std::string_view value) {
    return value == "mock";
}

// Every field named is one bi-run compares (it compares them all, whatever is listed).
bool compared_fields(std::string_view list) {
    std::size_t start = 0;
    while (start <= list.size()) {
        const auto comma = list.find(',', start);
        const auto field =
            list.substr(start, comma == std::string_view::npos ? comma : comma - start);
        const auto& known = core::kInvariantFields;
        if (std::find(known.begin(), known.end(), field) == known.end()) return false;
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return true;
}

bool is_fixed(std::string_view value) {
    return value == "fixed";
}

bool is_zero(std::string_view value) {
    return !value.empty() && value.find_first_not_of('0') == std::string_view::npos;
}

bool never(std::string_view) {
    return false;
}

}  // namespace

OptionAlias cert_source_option(bool live_command) {
    if (live_command)
        return agreeing_option(
            "--cert-source", is_live,
            "taken; bi-run decides the source itself, and a real server's cert is live (one "
            "that says it is the mock makes a mock cert)",
            "run-live and sweep certify a real server, so the cert's source is live; rehearse on "
            "the mock with bi-run run-mock");
    return agreeing_option("--cert-source", is_mock,
                           "taken; bi-run decides the source itself, and run-mock's cert is mock",
                           "run-mock's cert is always source mock (never promotable); a live "
                           "cert comes from bi-run run-live against a real server");
}

std::vector<OptionAlias> upstream_live_options() {
    return {
        agreeing_option("--invariant-fields", compared_fields,
                        "taken; bi-run compares score, passed, extracted_answer, "
                        "expected_answer, prompt_tokens_measured and failure_mode, these included",
                        "bi-run compares exactly score, passed, extracted_answer, "
                        "expected_answer, prompt_tokens_measured and failure_mode; what a score "
                        "means is the scorer's (--scorer, a plugin)"),
        agreeing_option("--position-strategy", is_fixed,
                        "taken; the work-set's rows say where each needle is",
                        "bi-run places needles only where the work-set's rows put them; write "
                        "rows placed as you want them (--workset FILE)"),
        agreeing_option("--empty-retries", is_zero, "taken; bi-run never retries a request",
                        "bi-run never retries a request: an empty answer is evidence (it counts "
                        "against the completion floor); leave the option out"),
        agreeing_option("--swa-window", never, "",
                        "bi-run has no sliding-window-aware needle placement (upstream's "
                        "--position-strategy adaptive); leave it out, or write rows whose needles "
                        "sit inside the window (--workset FILE)"),
        agreeing_option("--gguf-gb", never, "",
                        "run-live and sweep measure the model file itself; to project a footprint "
                        "without the file use bi-run plan-n --gguf-gb GB --n-layer L "
                        "--n-head-kv H --head-dim D"),
    };
}

}  // namespace bi::cli
