// Work-set files (--workset): the bytes as a file through io::load_workset_file, then the rows
// written back out, which must load again unchanged (workset.hpp's contract).
#include <cstdlib>

#include "fuzz_input.hpp"
#include "io/workset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static bi::fuzz::InputFile file;
    bi::fuzz::refusals_allowed([&] {
        const auto rows = bi::io::load_workset_file(file.write(bi::fuzz::as_text(data, size)));
        const std::string text = bi::io::workset_to_json_text(rows);
        const auto again = bi::io::load_workset_file(file.write(text));
        if (bi::io::workset_to_json_text(again) != text) {
            std::fprintf(stderr, "fuzz: a work-set did not load back unchanged:\n%s\n",
                         text.c_str());
            std::abort();
        }
    });
    return 0;
}
