// The mock tokenizer: piece boundaries, stable ids, lossless pieces, generated words round-trip.
#include <catch2/catch.hpp>

#include "mock/tokenizer.hpp"
#include "mock/vocabulary.hpp"

using namespace bi::mock;

namespace {

std::vector<std::string> texts(const std::vector<Piece>& pieces) {
    std::vector<std::string> out;
    for (const auto& piece : pieces) out.push_back(piece.text);
    return out;
}

}  // namespace

TEST_CASE("words keep their leading space and long words split", "[mock][tokenizer]") {
    CHECK(texts(tokenize("The quick brown fox")) ==
          std::vector<std::string>{"The", " quick", " brown", " fox"});
    CHECK(texts(tokenize(" elephants")) == std::vector<std::string>{" elepha", "nts"});
    CHECK(texts(tokenize("12345 678")) == std::vector<std::string>{"123", "45", " 678"});
    CHECK(texts(tokenize("a, (b).")) == std::vector<std::string>{"a", ",", " (", "b", ")", "."});
    CHECK(texts(tokenize("x\n\ny\n")) == std::vector<std::string>{"x", "\n\n", "y", "\n"});
}

TEST_CASE("special markers stay whole", "[mock][tokenizer]") {
    const auto pieces = tokenize("<|im_start|>user\nhi<|im_end|>\n</s>");
    CHECK(texts(pieces) ==
          std::vector<std::string>{"<|im_start|>", "user", "\n", "hi", "<|im_end|>", "\n", "</s>"});
    CHECK(pieces.back().id == kEosId);
}

TEST_CASE("pieces concatenate back to the input and ids are stable", "[mock][tokenizer]") {
    const std::string samples[] = {"",
                                   "  two  spaces ",
                                   "naïve café 日本語テキスト",
                                   "tab\tand\r\nCRLF",
                                   "{\"json\": [1, 2.5e3]}",
                                   std::string("nul\0byte", 8)};
    for (const auto& sample : samples) {
        const auto pieces = tokenize(sample);
        std::string joined;
        for (const auto& piece : pieces) {
            joined += piece.text;
            CHECK(piece.id >= 0);
            CHECK(piece.id < kVocabSize);
        }
        CHECK(joined == sample);
        CHECK(ids_of(tokenize(sample)) == ids_of(pieces));
    }
    CHECK(piece_id(" quick") == piece_id(" quick"));
    CHECK(piece_id(" quick") != piece_id(" quack"));
}

TEST_CASE("a prompt starts with BOS", "[mock][tokenizer]") {
    const auto pieces = tokenize_prompt("hello world");
    REQUIRE(pieces.size() == 3);
    CHECK(pieces[0].id == kBosId);
    CHECK(pieces[0].text == "<s>");
}

TEST_CASE("every generated word is one token of its own id", "[mock][tokenizer]") {
    REQUIRE(generated_word_count() > 100);
    for (std::size_t i = 0; i < generated_word_count(); ++i) {
        const auto pieces = tokenize(generated_word(i));
        REQUIRE(pieces.size() == 1);
        CHECK(pieces[0].id == generated_word_id(i));
    }
}
