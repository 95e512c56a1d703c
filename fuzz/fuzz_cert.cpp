// Cert files (verify-cert, report): the bytes as a file through io::read_cert, then what
// verify-cert does with a well-formed one: the self-consistency and promotion checks.
#include "core/cert.hpp"
#include "core/cert_consistency.hpp"
#include "fuzz_input.hpp"
#include "io/cert_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static bi::fuzz::InputFile file;
    bi::fuzz::refusals_allowed([&] {
        const auto loaded = bi::io::read_cert(file.write(bi::fuzz::as_text(data, size)));
        if (!loaded.shape_problem.empty()) return;
        if (loaded.digest_intact) (void)bi::core::cert_disagreements(loaded.cert);
        (void)bi::core::check_promotable(loaded.cert, loaded.digest_intact);
    });
    return 0;
}
