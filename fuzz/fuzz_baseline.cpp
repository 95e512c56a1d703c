// Baseline files and check reports (baseline check, run-live --baseline, report): the bytes as a
// file through io::read_baseline and io::read_check, then what a check does with a well-formed
// baseline: its side, compared with itself, and the document rendered back.
#include "core/baseline_comparison.hpp"
#include "core/baseline_documents.hpp"
#include "fuzz_input.hpp"
#include "io/baseline_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static bi::fuzz::InputFile file;
    const auto bytes = bi::fuzz::as_text(data, size);
    bi::fuzz::refusals_allowed([&] {
        const auto loaded = bi::io::read_baseline(file.write(bytes));
        if (!loaded.value) return;
        const auto side = bi::core::baseline_side(*loaded.value);
        (void)bi::core::compare_with_baseline(side, side);
        const auto check = bi::core::build_check(*loaded.value, {}, *loaded.value);
        (void)bi::io::render_check(check, nullptr);
        (void)bi::io::render_baseline(*loaded.value, nullptr);
    });
    bi::fuzz::refusals_allowed([&] {
        const auto loaded = bi::io::read_check(file.write(bytes));
        if (loaded.value) (void)bi::io::render_check(*loaded.value, nullptr);
    });
    return 0;
}
