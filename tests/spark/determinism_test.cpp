// Determinism: pinned hashes of whole work-sets for fixed inputs (the PRNG, filler, needles and
// sizing are specified to the bit, so these hold on any machine), repeat runs in one process and
// across bi-run processes giving identical bytes, and what each input may change.
#include <catch2/catch.hpp>

#include "built_paths.hpp"
#include "core/sha256.hpp"
#include "io/workset.hpp"
#include "run_command.hpp"
#include "spark_fixture.hpp"

using namespace bi;
using namespace bi::spark_test;

namespace {

// The bytes `bi-run workset` writes for these rows.
std::string workset_text(const std::vector<core::WorkRow>& rows) {
    return io::workset_to_json_text(rows);
}

std::string hash_of(const std::vector<core::WorkRow>& rows) {
    return core::sha256_hex(workset_text(rows));
}

struct Golden {
    std::uint64_t seed;
    std::int64_t ctx;
    std::vector<std::pair<std::string, std::string>> params;
    const char* sha256;
};

// The sha256 of the work-set file text. Regenerate only for a deliberate change to the
// generator's output (or to the work-set file format), and say so in the change: a differing
// hash otherwise means work-sets are no longer reproducible across versions or machines.
const std::vector<Golden>& goldens() {
    static const std::vector<Golden> kGoldens = {
        {7, 2048, {}, "c6b9c4e2d35df3ba2ed65c413365f855dc499ca0bc3767582ecc705aebd6579b"},
        {7,
         4096,
         {{"corner", "short"}},
         "554d84d4f9f39748fae9702dd7f264714c657c8c77e3b6e9c48a829a1d63082d"},
        {123,
         8192,
         {{"corner", "long"}, {"echo", "1"}},
         "3d4b62e6cbcf3ab2eea2d1f909c474246768b03e6e46d032e41a9b197689bead"},
        {0,
         1024,
         {{"families", "E4,E5"}},
         "18f7955de79dd846e6c16e49982e0f96adfd95ac5a55657f11c4935a2ae9c3b9"},
    };
    return kGoldens;
}

}  // namespace

TEST_CASE("spark determinism: golden hashes of fixed work-sets", "[spark]") {
    for (const auto& golden : goldens()) {
        INFO("seed " << golden.seed << " ctx " << golden.ctx);
        CHECK(hash_of(generate(golden.seed, golden.ctx, golden.params)) == golden.sha256);
    }
}

TEST_CASE("spark determinism: the same request twice gives identical bytes", "[spark]") {
    const auto first = workset_text(generate(42, 4096, {{"corner", "long"}}));
    const auto second = workset_text(generate(42, 4096, {{"corner", "long"}}));
    CHECK(first == second);
}

TEST_CASE("spark determinism: two bi-run workset processes write identical bytes", "[spark]") {
    const std::vector<std::string> argv{BI_RUN_PATH,   "workset", "--plugin",   BI_SPARK_PLUGIN,
                                        "--generator", "spark",   "--seed",     "7",
                                        "--ctx",       "2048",    "--model-id", "any-model"};
    const auto first = testing::run_command(argv);
    const auto second = testing::run_command(argv);
    INFO(first.err);
    REQUIRE(first.exit_code == 0);
    REQUIRE(second.exit_code == 0);
    CHECK(first.out == second.out);
    CHECK(core::sha256_hex(first.out) == goldens().front().sha256);
}

TEST_CASE("spark determinism: what seed, ctx and model change", "[spark]") {
    const auto base = generate(1, 4096);
    // Another seed asks other questions.
    const auto other_seed = generate(2, 4096);
    for (std::size_t i = 0; i < base.size(); ++i)
        CHECK_FALSE(core::canonical_equal(base[i].expected_answer, other_seed[i].expected_answer));
    // Another ctx or model asks the same questions with more or other filler.
    const auto other_ctx = generate(1, 8192);
    const auto other_model = generate(1, 4096, {}, {}, "another-model");
    for (std::size_t i = 0; i < base.size(); ++i) {
        CHECK(core::canonical_equal(base[i].expected_answer, other_ctx[i].expected_answer));
        CHECK(needle_of(base[i]) == needle_of(other_ctx[i]));
        CHECK(base[i].prompt.size() < other_ctx[i].prompt.size());
        CHECK(base[i].prompt == other_model[i].prompt);  // the estimate does not see the model
    }
}
