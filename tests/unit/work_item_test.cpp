// Expansion of work rows into items: test_id format, seeds from test_ids, determinism.
#include <catch2/catch.hpp>

#include <clocale>

#include "core/error.hpp"
#include "core/sha256.hpp"
#include "core/work_item.hpp"

using bi::core::expand_work_rows;
using bi::core::WorkRow;

namespace {

std::vector<WorkRow> sample_rows() {
    WorkRow a;
    a.prompt = "first";
    a.family = "A2";
    a.fill = 0.35;
    a.expected_answer = "x";
    WorkRow b;
    b.prompt = "second";
    b.system = "sys";
    b.family = "E1";
    b.fill = 0.1;
    b.expected_answer = 7;
    WorkRow c;
    c.prompt = "third";
    c.family = "A2";
    c.fill = 0.975;
    return {a, b, c};
}

// Everything an item carries, as one string, to compare expansions byte for byte.
std::string dump(const std::vector<bi::core::WorkItem>& items) {
    std::string out;
    for (const auto& item : items)
        out += item.test_id + "\n" + item.prompt + "\n" + item.system + "\n" + item.family + "\n" +
               std::to_string(item.seed) + "\n" + std::to_string(item.rep) + "\n";
    return out;
}

}  // namespace

TEST_CASE("test_ids follow model|ctx|family|position|rep|fill", "[work_item]") {
    const auto items = expand_work_rows(sample_rows(), "llama-7b", 4096, 2);
    REQUIRE(items.size() == 6);
    CHECK(items[0].test_id == "llama-7b|4096|A2|0.250000|0|fill0.35");
    CHECK(items[1].test_id == "llama-7b|4096|E1|0.500000|0|fill0.10");
    CHECK(items[2].test_id == "llama-7b|4096|A2|0.750000|0|fill0.97");  // 0.975 is 0.97499...
    CHECK(items[3].test_id == "llama-7b|4096|A2|0.250000|1|fill0.35");
    CHECK(items[5].rep == 1);
    CHECK(items[4].system == "sys");
    CHECK(items[4].expected_answer == bi::core::Json(7));
    CHECK(items[0].prompt == "first");
}

TEST_CASE("positions use (i+1)/(n+1) with six decimals", "[work_item]") {
    std::vector<WorkRow> rows(6, sample_rows()[0]);
    const auto items = expand_work_rows(rows, "m", 1, 1);
    CHECK(items[0].test_id == "m|1|A2|0.142857|0|fill0.35");
    CHECK(items[5].test_id == "m|1|A2|0.857143|0|fill0.35");
}

TEST_CASE("seeds are the first 8 bytes of sha256(test_id), big-endian", "[work_item]") {
    const auto items = expand_work_rows(sample_rows(), "m", 8, 1);
    const std::string hex = bi::core::sha256_hex(items[0].test_id).substr(0, 16);
    CHECK(items[0].seed == std::stoull(hex, nullptr, 16));
    CHECK(items[0].seed != items[1].seed);
}

TEST_CASE("the same inputs always expand to identical items", "[work_item]") {
    const std::string first = dump(expand_work_rows(sample_rows(), "m", 2048, 3));
    CHECK(first == dump(expand_work_rows(sample_rows(), "m", 2048, 3)));
    // A locale with a decimal comma must not change anything (when the system has one).
    if (std::setlocale(LC_ALL, "de_DE.UTF-8")) {
        CHECK(first == dump(expand_work_rows(sample_rows(), "m", 2048, 3)));
        std::setlocale(LC_ALL, "C");
    }
    CHECK(first != dump(expand_work_rows(sample_rows(), "m", 4096, 3)));
}

TEST_CASE("reps below one are refused", "[work_item]") {
    CHECK_THROWS_AS(expand_work_rows(sample_rows(), "m", 1, 0), bi::Error);
    CHECK(expand_work_rows({}, "m", 1, 2).empty());
}
