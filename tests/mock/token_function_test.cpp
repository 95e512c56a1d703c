// The token function: deterministic, greedy-consistent logprobs, and each divergence mode's effect.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "mock/token_function.hpp"
#include "mock/tokenizer.hpp"
#include "mock/vocabulary.hpp"

using namespace bi::mock;

namespace {

const std::uint64_t kKey = prompt_key(ids_of(tokenize_prompt("What is the capital of France?")));

StepContext step_at(int position, bool co_batched, int n_target = 16) {
    StepContext step;
    step.position = position;
    step.n_target = n_target;
    step.co_batched = co_batched;
    step.ever_co_batched = co_batched;
    return step;
}

bool same_token(const GeneratedToken& a, const GeneratedToken& b) {
    if (a.chosen.id != b.chosen.id || a.chosen.piece != b.chosen.piece ||
        a.chosen.logprob != b.chosen.logprob || a.top.size() != b.top.size())
        return false;
    for (std::size_t i = 0; i < a.top.size(); ++i)
        if (a.top[i].id != b.top[i].id || a.top[i].logprob != b.top[i].logprob) return false;
    return true;
}

}  // namespace

TEST_CASE("tokens depend only on prompt and position", "[mock][token]") {
    std::set<std::int32_t> ids;
    for (int position = 0; position < 64; ++position) {
        CHECK(same_token(base_token(kKey, position, 3), base_token(kKey, position, 3)));
        ids.insert(base_token(kKey, position, 0).chosen.id);
    }
    CHECK(ids.size() > 20);  // readable, varied text rather than one repeated word
    const auto other = prompt_key(ids_of(tokenize_prompt("What is the capital of Spain?")));
    int differing = 0;
    for (int position = 0; position < 16; ++position)
        differing +=
            base_token(kKey, position, 0).chosen.id != base_token(other, position, 0).chosen.id;
    CHECK(differing > 8);
}

TEST_CASE("top candidates are distinct, chosen first, strictly less likely", "[mock][token]") {
    for (int position = 0; position < 32; ++position) {
        const auto token = base_token(kKey, position, 5);
        REQUIRE(token.top.size() == 5);
        CHECK(token.top[0].id == token.chosen.id);
        CHECK(token.top[0].logprob == token.chosen.logprob);
        CHECK(token.chosen.logprob < 0.0);
        std::set<std::int32_t> distinct;
        for (std::size_t i = 0; i < token.top.size(); ++i) {
            distinct.insert(token.top[i].id);
            if (i > 0) CHECK(token.top[i].logprob < token.top[i - 1].logprob);
        }
        CHECK(distinct.size() == 5);
    }
    CHECK(base_token(kKey, 0, 100000).top.size() == generated_word_count());
    CHECK(base_token(kKey, 0, 0).top.empty());
}

TEST_CASE("an EOS-terminated completion has a bounded natural length", "[mock][token]") {
    for (std::uint64_t key = 0; key < 200; ++key) {
        CHECK(natural_length(key) >= 8);
        CHECK(natural_length(key) <= 40);
    }
}

TEST_CASE("divergence none ignores co-batching", "[mock][token]") {
    for (int position = 0; position < 16; ++position)
        CHECK(same_token(next_token(Divergence::None, kKey, step_at(position, true), 2),
                         base_token(kKey, position, 2)));
}

TEST_CASE("score divergence changes co-batched words only", "[mock][token]") {
    for (int position = 0; position < 16; ++position) {
        CHECK(same_token(next_token(Divergence::Score, kKey, step_at(position, false), 2),
                         base_token(kKey, position, 2)));
        CHECK(next_token(Divergence::Score, kKey, step_at(position, true), 2).chosen.id !=
              base_token(kKey, position, 2).chosen.id);
    }
}

TEST_CASE("token divergence changes only the final whitespace token", "[mock][token]") {
    for (int position = 0; position < 7; ++position)
        CHECK(same_token(next_token(Divergence::Token, kKey, step_at(position, true, 8), 1),
                         base_token(kKey, position, 1)));
    const auto serial = next_token(Divergence::Token, kKey, step_at(7, false, 8), 1);
    const auto batched = next_token(Divergence::Token, kKey, step_at(7, true, 8), 1);
    CHECK(serial.chosen.piece == "\n");
    CHECK(batched.chosen.piece == "\n\n");
    CHECK(serial.chosen.id != batched.chosen.id);
    // A one-token completion keeps its word: whitespace alone would read as an empty answer.
    CHECK(same_token(next_token(Divergence::Token, kKey, step_at(0, true, 1), 1),
                     base_token(kKey, 0, 1)));
}

TEST_CASE("logprob divergence moves logprobs slightly and nothing else", "[mock][token]") {
    for (int position = 0; position < 16; ++position) {
        const auto base = base_token(kKey, position, 3);
        const auto moved = next_token(Divergence::Logprob, kKey, step_at(position, true), 3);
        CHECK(moved.chosen.id == base.chosen.id);
        CHECK(moved.chosen.piece == base.chosen.piece);
        CHECK(moved.chosen.logprob != base.chosen.logprob);
        CHECK(std::abs(moved.chosen.logprob - base.chosen.logprob) < 1e-3);
        for (std::size_t i = 0; i < base.top.size(); ++i) CHECK(moved.top[i].id == base.top[i].id);
        CHECK(same_token(next_token(Divergence::Logprob, kKey, step_at(position, false), 3), base));
    }
}

TEST_CASE("stochastic divergence follows the request's coin", "[mock][token]") {
    auto step = step_at(3, true);
    step.susceptible = false;
    CHECK(same_token(next_token(Divergence::Stochastic, kKey, step, 1), base_token(kKey, 3, 1)));
    step.susceptible = true;
    CHECK(next_token(Divergence::Stochastic, kKey, step, 1).chosen.id !=
          base_token(kKey, 3, 1).chosen.id);
}

TEST_CASE("contamination leaks a busy neighbour's prompt words", "[mock][token]") {
    const std::vector<std::string> neighbour{"kumquat", "zeppelin"};
    auto step = step_at(4, true);
    step.neighbour_words = &neighbour;
    const auto leaked = next_token(Divergence::Contamination, kKey, step, 2);
    CHECK(leaked.chosen.piece == " kumquat");
    CHECK(leaked.chosen.id == piece_id(" kumquat"));
    step.position = 5;
    step.leak_index = 1;  // the run goes on with the neighbour's next word
    CHECK(next_token(Divergence::Contamination, kKey, step, 2).chosen.piece == " zeppelin");
    step.co_batched = false;
    CHECK(same_token(next_token(Divergence::Contamination, kKey, step, 2), base_token(kKey, 5, 2)));
}

TEST_CASE("not-greedy lists another word above the chosen one, batched or not", "[mock][token]") {
    std::size_t demoted = 0;
    for (int position = 0; position < 60; ++position)
        for (bool co_batched : {false, true}) {
            const auto token =
                next_token(Divergence::NotGreedy, kKey, step_at(position, co_batched), 2);
            REQUIRE(token.top.size() == 2);
            CHECK(same_token(
                token, next_token(Divergence::NotGreedy, kKey, step_at(position, !co_batched), 2)));
            if (token.top[0].id == token.chosen.id) continue;
            ++demoted;
            CHECK(token.top[0].logprob > token.chosen.logprob);
        }
    CHECK(demoted > 10);
    CHECK(demoted < 100);
    // Without top logprobs nothing shows it: the chosen tokens are the base ones.
    CHECK(same_token(next_token(Divergence::NotGreedy, kKey, step_at(3, true), 0),
                     base_token(kKey, 3, 0)));
}
