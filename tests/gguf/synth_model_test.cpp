// The synthesized llama model, read back by the tests' own reader: llama.cpp's keys and types,
// the vocabulary, tensor layout, zeroed output rows, unit norms, weight scale and determinism.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/sha256.hpp"
#include "gguf/synth_model.hpp"
#include "gguf_reader.hpp"
#include "io/files.hpp"
#include "scratch_dir.hpp"

using bi::gguf::ModelSpec;
using bi::gguf::TensorType;
using bi::testing::GgufFile;
using bi::testing::load_gguf;

namespace {

const std::string kMarker = "\xe2\x96\x81";

GgufFile synthesize(const ModelSpec& spec, bi::gguf::SynthResult* result = nullptr) {
    bi::testing::ScratchDir dir;
    const auto written = bi::gguf::write_synth_model(dir.file("m.gguf"), spec);
    if (result) *result = written;
    return load_gguf(dir.file("m.gguf"));
}

const GgufFile& default_model() {
    static const GgufFile model = synthesize(ModelSpec{});
    return model;
}

ModelSpec small_gqa_f16() {
    ModelSpec spec;
    spec.embd = 64;
    spec.layers = 2;
    spec.heads = 4;
    spec.kv_heads = 2;
    spec.ff = 96;
    spec.ctx = 512;
    spec.vocab_words = 40;
    spec.dtype = TensorType::F16;
    spec.seed = 7;
    return spec;
}

struct Moments {
    double mean = 0;
    double std = 0;
};

Moments moments(const std::vector<float>& values) {
    double sum = 0, squares = 0;
    for (const float v : values) sum += v;
    const double mean = sum / static_cast<double>(values.size());
    for (const float v : values) squares += (v - mean) * (v - mean);
    return {mean, std::sqrt(squares / static_cast<double>(values.size()))};
}

void check_u32(const GgufFile& f, const std::string& key, std::uint64_t expected) {
    INFO(key);
    CHECK(f.at(key).type == 4);
    CHECK(f.at(key).u == expected);
}

bool all_equal(const float* begin, std::int64_t count, float value) {
    for (std::int64_t i = 0; i < count; ++i)
        if (begin[i] != value) return false;
    return true;
}

}  // namespace

TEST_CASE("synth: llama hyper-parameters with llama.cpp's key types", "[gguf][synth]") {
    const GgufFile& f = default_model();
    CHECK(f.version == 3);
    CHECK(f.at("general.architecture").type == 8);
    CHECK(f.at("general.architecture").s == "llama");
    CHECK(f.at("general.name").s == "bi-synth-256e-4L-f32-s1");
    check_u32(f, "general.file_type", 0);
    check_u32(f, "general.alignment", 32);
    check_u32(f, "llama.context_length", 4096);
    check_u32(f, "llama.embedding_length", 256);
    check_u32(f, "llama.block_count", 4);
    check_u32(f, "llama.feed_forward_length", 704);
    check_u32(f, "llama.attention.head_count", 4);
    check_u32(f, "llama.attention.head_count_kv", 4);
    check_u32(f, "llama.rope.dimension_count", 64);
    check_u32(f, "llama.vocab_size", f.at("tokenizer.ggml.tokens").strings.size());
    CHECK(f.at("llama.attention.layer_norm_rms_epsilon").type == 6);
    CHECK(f.at("llama.attention.layer_norm_rms_epsilon").f == Approx(1e-5).epsilon(1e-6));
    CHECK(f.at("llama.rope.freq_base").type == 6);
    CHECK(f.at("llama.rope.freq_base").f == 10000.0);
    CHECK(f.at("bi.synth.seed").type == 10);
    CHECK(f.at("bi.synth.seed").u == 1);
}

TEST_CASE("synth: tokenizer metadata", "[gguf][synth]") {
    const GgufFile& f = default_model();
    CHECK(f.at("tokenizer.ggml.model").s == "llama");
    check_u32(f, "tokenizer.ggml.bos_token_id", 1);
    check_u32(f, "tokenizer.ggml.eos_token_id", 2);
    check_u32(f, "tokenizer.ggml.unknown_token_id", 0);
    CHECK(f.at("tokenizer.ggml.add_bos_token").type == 7);
    CHECK(f.at("tokenizer.ggml.add_bos_token").u == 1);
    CHECK(f.at("tokenizer.ggml.add_eos_token").u == 0);
    CHECK(f.at("tokenizer.ggml.add_space_prefix").u == 1);
    const auto& chat = f.at("tokenizer.chat_template");
    CHECK(chat.type == 8);
    CHECK_THAT(chat.s, Catch::Contains("<|im_start|>") && Catch::Contains("<|im_end|>") &&
                           Catch::Contains("add_generation_prompt") && Catch::Contains("{% for") &&
                           Catch::Contains("{% endfor %}"));

    const auto& tokens = f.at("tokenizer.ggml.tokens");
    const auto& scores = f.at("tokenizer.ggml.scores");
    const auto& types = f.at("tokenizer.ggml.token_type");
    CHECK(tokens.array_type == 8);
    CHECK(scores.array_type == 6);
    CHECK(types.array_type == 5);
    const std::size_t n = tokens.strings.size();
    CHECK(n > 1000);
    REQUIRE(scores.numbers.size() == n);
    REQUIRE(types.numbers.size() == n);
    CHECK(std::set<std::string>(tokens.strings.begin(), tokens.strings.end()).size() == n);

    CHECK(tokens.strings[0] == "<unk>");
    CHECK(types.numbers[0] == 2);
    CHECK(tokens.strings[1] == "<s>");
    CHECK(types.numbers[1] == 3);
    CHECK(tokens.strings[2] == "</s>");
    CHECK(types.numbers[2] == 3);
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        INFO(name);
        CHECK(tokens.strings[3 + static_cast<std::size_t>(b)] == name);
        CHECK(types.numbers[3 + static_cast<std::size_t>(b)] == 6);
    }
    std::size_t normal = 0;
    for (std::size_t id = 259; id < n; ++id) {
        const std::string& text = tokens.strings[id];
        INFO("token " << id << " '" << text << "'");
        if (types.numbers[id] == 3) {
            CHECK((text == "<|im_start|>" || text == "<|im_end|>"));
            continue;
        }
        CHECK(types.numbers[id] == 1);
        ++normal;
        // Normal tokens are printable ASCII, with the space marker standing for a space.
        std::string decoded = text;
        for (auto at = decoded.find(kMarker); at != std::string::npos; at = decoded.find(kMarker))
            decoded.replace(at, kMarker.size(), " ");
        CHECK(!decoded.empty());
        for (const char c : decoded) CHECK((c >= 0x20 && c <= 0x7e));
        CHECK(scores.numbers[id] < 0);
    }
    CHECK(normal == n - 261);
    const auto has = [&](const std::string& t) {
        return std::find(tokens.strings.begin(), tokens.strings.end(), t) != tokens.strings.end();
    };
    CHECK(has(kMarker));
    CHECK(has("a"));
    CHECK(has("~"));
    CHECK(has(kMarker + "the"));
    CHECK(has(kMarker + "th"));  // prefixes make whole words reachable by pairwise merges
    CHECK(has(kMarker + "t"));
    CHECK(has(kMarker + "answer"));
}

TEST_CASE("synth: tensor names, ggml dimension order and types", "[gguf][synth]") {
    const GgufFile& f = default_model();
    const std::int64_t vocab =
        static_cast<std::int64_t>(f.at("tokenizer.ggml.tokens").strings.size());
    struct Expected {
        std::string name;
        std::vector<std::int64_t> dims;
    };
    std::vector<Expected> expected{{"token_embd.weight", {256, vocab}}};
    for (int i = 0; i < 4; ++i) {
        const std::string blk = "blk." + std::to_string(i) + ".";
        expected.push_back({blk + "attn_norm.weight", {256}});
        expected.push_back({blk + "attn_q.weight", {256, 256}});
        expected.push_back({blk + "attn_k.weight", {256, 256}});
        expected.push_back({blk + "attn_v.weight", {256, 256}});
        expected.push_back({blk + "attn_output.weight", {256, 256}});
        expected.push_back({blk + "ffn_norm.weight", {256}});
        expected.push_back({blk + "ffn_gate.weight", {256, 704}});
        expected.push_back({blk + "ffn_up.weight", {256, 704}});
        expected.push_back({blk + "ffn_down.weight", {704, 256}});
    }
    expected.push_back({"output_norm.weight", {256}});
    expected.push_back({"output.weight", {256, vocab}});

    REQUIRE(f.tensor_count == static_cast<std::int64_t>(expected.size()));
    REQUIRE(f.tensors.size() == expected.size());
    std::uint64_t next_offset = 0;
    std::uint64_t parameters = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const auto& info = f.tensors[i];
        INFO(info.name);
        CHECK(info.name == expected[i].name);
        CHECK(info.dims == expected[i].dims);
        CHECK(info.type == 0);
        CHECK(info.offset == next_offset);
        CHECK(info.offset % 32 == 0);
        next_offset += (f.tensor_bytes(info) + 31) / 32 * 32;
        parameters += f.tensor_bytes(info) / 4;
    }
    CHECK(f.data_start % 32 == 0);
    CHECK(f.bytes.size() == f.data_start + next_offset);
    const std::uint64_t per_layer = 2u * 256 + 4u * 256 * 256 + 3u * 256 * 704;
    const std::uint64_t vocab_rows = static_cast<std::uint64_t>(vocab);
    CHECK(parameters == 4 * per_layer + 256 + vocab_rows * 2 * 256);
}

TEST_CASE("synth: output rows of special and byte tokens are zero, the rest are not",
          "[gguf][synth]") {
    const GgufFile& f = default_model();
    const auto& types = f.at("tokenizer.ggml.token_type").numbers;
    const std::vector<float> head = f.tensor_values("output.weight");
    const std::vector<float> embd = f.tensor_values("token_embd.weight");
    REQUIRE(head.size() == types.size() * 256);
    std::size_t zeroed = 0;
    for (std::size_t id = 0; id < types.size(); ++id) {
        INFO("token " << id << " type " << types[id]);
        const float* row = head.data() + id * 256;
        if (types[id] == 1) {
            CHECK_FALSE(all_equal(row, 256, 0.0f));
        } else {
            CHECK(all_equal(row, 256, 0.0f));
            ++zeroed;
        }
        CHECK_FALSE(all_equal(embd.data() + id * 256, 256, 0.0f));  // inputs stay random
    }
    CHECK(zeroed == 3 + 256 + 2);
}

TEST_CASE("synth: norm weights are exactly one", "[gguf][synth]") {
    const GgufFile& f = default_model();
    int norms = 0;
    for (const auto& info : f.tensors) {
        if (info.name.find("norm") == std::string::npos) continue;
        INFO(info.name);
        const auto values = f.tensor_values(info.name);
        CHECK(values.size() == 256);
        CHECK(all_equal(values.data(), 256, 1.0f));
        ++norms;
    }
    CHECK(norms == 2 * 4 + 1);
}

TEST_CASE("synth: weights have mean ~0 and std ~1/sqrt(fan_in)", "[gguf][synth]") {
    const GgufFile& f = default_model();
    for (const auto& info : f.tensors) {
        if (info.dims.size() != 2 || info.name == "output.weight") continue;
        INFO(info.name);
        const auto m = moments(f.tensor_values(info.name));
        const double expected_std = 1.0 / std::sqrt(static_cast<double>(info.dims[0]));
        CHECK(m.std == Approx(expected_std).epsilon(0.05));
        CHECK(std::abs(m.mean) < 0.05 * expected_std);
    }
    CHECK(f.tensor_values("blk.0.attn_q.weight") != f.tensor_values("blk.1.attn_q.weight"));
    CHECK(f.tensor_values("blk.0.attn_q.weight") != f.tensor_values("blk.0.attn_k.weight"));
}

TEST_CASE("synth: f16 with grouped-query attention", "[gguf][synth]") {
    bi::gguf::SynthResult result;
    const GgufFile f = synthesize(small_gqa_f16(), &result);
    check_u32(f, "general.file_type", 1);
    check_u32(f, "llama.attention.head_count", 4);
    check_u32(f, "llama.attention.head_count_kv", 2);
    check_u32(f, "llama.rope.dimension_count", 16);
    const std::int64_t vocab =
        static_cast<std::int64_t>(f.at("tokenizer.ggml.tokens").strings.size());
    CHECK(result.vocab_size == static_cast<std::uint64_t>(vocab));
    CHECK(f.tensor("blk.1.attn_k.weight").dims == std::vector<std::int64_t>{64, 32});
    CHECK(f.tensor("blk.1.attn_v.weight").dims == std::vector<std::int64_t>{64, 32});
    CHECK(f.tensor("blk.1.attn_q.weight").dims == std::vector<std::int64_t>{64, 64});
    CHECK(f.tensor("blk.0.ffn_down.weight").dims == std::vector<std::int64_t>{96, 64});
    for (const auto& info : f.tensors) {
        INFO(info.name);
        CHECK(info.type == (info.dims.size() == 2 ? 1u : 0u));  // norms stay f32
        CHECK(info.offset % 32 == 0);
    }
    const auto m = moments(f.tensor_values("blk.0.ffn_down.weight"));
    CHECK(m.std == Approx(1.0 / std::sqrt(96.0)).epsilon(0.1));
    CHECK(all_equal(f.tensor_values("blk.0.attn_norm.weight").data(), 64, 1.0f));
    const auto& types = f.at("tokenizer.ggml.token_type").numbers;
    const auto head = f.tensor_values("output.weight");
    CHECK(all_equal(head.data() + std::ptrdiff_t{2} * 64, 64, 0.0f));   // </s>
    CHECK(all_equal(head.data() + std::ptrdiff_t{13} * 64, 64, 0.0f));  // <0x0A>
    CHECK(types[300] == 1);
    CHECK_FALSE(all_equal(head.data() + std::ptrdiff_t{300} * 64, 64, 0.0f));
    CHECK(result.file.bytes == f.bytes.size());
    CHECK(result.file.sha256_hex == bi::core::sha256_hex(f.bytes));
}

TEST_CASE("synth: same spec, same bytes, and another seed gives other weights", "[gguf][synth]") {
    ModelSpec spec = small_gqa_f16();
    const std::string first = synthesize(spec).bytes;
    CHECK(synthesize(spec).bytes == first);
    spec.seed = 8;
    const GgufFile other = synthesize(spec);
    CHECK(other.bytes.size() == first.size());
    CHECK(other.bytes != first);
    CHECK(other.tensor_values("blk.0.attn_q.weight") !=
          bi::testing::parse_gguf(first).tensor_values("blk.0.attn_q.weight"));
    spec.seed = 7;
    spec.dtype = TensorType::F32;
    CHECK(synthesize(spec).bytes != first);
}

TEST_CASE("synth: vocab-words controls the word list", "[gguf][synth]") {
    ModelSpec spec = small_gqa_f16();
    spec.vocab_words = 0;
    const auto none = synthesize(spec).at("tokenizer.ggml.tokens").strings;
    spec.vocab_words = 40;
    const auto some = synthesize(spec).at("tokenizer.ggml.tokens").strings;
    CHECK(some.size() > none.size());
    CHECK(std::find(none.begin(), none.end(), kMarker + "the") == none.end());
    CHECK(std::find(some.begin(), some.end(), kMarker + "the") != some.end());
}

TEST_CASE("synth: bad specs name the flag and write nothing", "[gguf][synth]") {
    const auto problem = [](auto edit) {
        ModelSpec spec;
        edit(spec);
        return bi::gguf::find_spec_problem(spec);
    };
    CHECK(problem([](ModelSpec&) {}).empty());
    CHECK_THAT(problem([](ModelSpec& s) { s.embd = 250; }), Catch::Contains("--heads"));
    CHECK_THAT(problem([](ModelSpec& s) { s.kv_heads = 3; }), Catch::Contains("--kv-heads"));
    CHECK_THAT(problem([](ModelSpec& s) { s.heads = 0; }), Catch::Contains("--heads"));
    CHECK_THAT(problem([](ModelSpec& s) { s.layers = 0; }), Catch::Contains("--layers"));
    CHECK_THAT(problem([](ModelSpec& s) { s.ff = -1; }), Catch::Contains("--ff"));
    CHECK_THAT(problem([](ModelSpec& s) { s.ctx = 0; }), Catch::Contains("--ctx"));
    CHECK_THAT(problem([](ModelSpec& s) { s.embd = 1 << 20; }), Catch::Contains("--embd"));
    CHECK_THAT(problem([](ModelSpec& s) { s.vocab_words = 100000; }),
               Catch::Contains("--vocab-words"));
    CHECK_THAT(problem([](ModelSpec& s) {
                   s.embd = 12;
                   s.heads = 4;
                   s.kv_heads = 1;
               }),
               Catch::Contains("even"));
    CHECK_THAT(problem([](ModelSpec& s) {
                   s.embd = 16384;
                   s.layers = 256;
                   s.ff = 65536;
               }),
               Catch::Contains("parameters"));

    bi::testing::ScratchDir dir;
    ModelSpec bad;
    bad.heads = 3;
    try {
        bi::gguf::write_synth_model(dir.file("m.gguf"), bad);
        FAIL("no error");
    } catch (const bi::Error& e) {
        CHECK(e.category() == bi::ErrorCategory::Usage);
    }
    CHECK_THROWS(bi::io::read_file(dir.file("m.gguf")));
}
