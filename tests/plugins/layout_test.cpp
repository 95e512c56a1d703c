// The C and C++ compilers must lay out every ABI struct identically.
#include <catch2/catch.hpp>

#include <vector>

#include "bi/plugin.h"
#include "layout_c.h"

TEST_CASE("C and C++ agree on the ABI layout", "[abi-layout]") {
    const std::vector<std::size_t> from_cpp = {BI_LAYOUT_FACTS};
    std::size_t count = 0;
    const std::size_t* from_c = bi_layout_from_c(&count);
    CHECK(std::vector<std::size_t>(from_c, from_c + count) == from_cpp);
}

TEST_CASE("BI_STRUCT_HAS sees only fields inside struct_size", "[abi-layout]") {
    bi_workset_row row{};
    row.struct_size = sizeof row;
    CHECK(BI_STRUCT_HAS(&row, bi_workset_row, expected_answer_json));
    row.struct_size = static_cast<std::uint32_t>(offsetof(bi_workset_row, fill));
    CHECK_FALSE(BI_STRUCT_HAS(&row, bi_workset_row, fill));
    CHECK(BI_STRUCT_HAS(&row, bi_workset_row, family));
}

TEST_CASE("ABI 1.1 appends to bi_score_input and leaves the 1.0 prefix in place", "[abi-layout]") {
    if (sizeof(void*) != 8) return;  // the pinned offsets are those of 64-bit targets
    // The 1.0 struct ended after failure_mode, at 104: an older plugin reads exactly that.
    CHECK(offsetof(bi_score_input, rep) == 80);
    CHECK(offsetof(bi_score_input, extracted_answer_json) == 88);
    CHECK(offsetof(bi_score_input, failure_mode) == 96);
    CHECK(offsetof(bi_score_input, reasoning) == 104);
    CHECK(offsetof(bi_score_input, reasoning_size) == 112);
    CHECK(offsetof(bi_score_input, tool_calls_json) == 120);
    CHECK(offsetof(bi_score_input, completion_tokens) == 128);
    CHECK(offsetof(bi_score_input, stop_reason) == 136);
    CHECK(sizeof(bi_score_input) == 144);

    bi_score_input in{};
    in.struct_size = 104;  // from an ABI 1.0 host
    CHECK(BI_STRUCT_HAS(&in, bi_score_input, failure_mode));
    CHECK_FALSE(BI_STRUCT_HAS(&in, bi_score_input, reasoning));
    CHECK_FALSE(BI_STRUCT_HAS(&in, bi_score_input, stop_reason));
}
