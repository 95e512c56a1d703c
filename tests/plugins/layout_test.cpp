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
