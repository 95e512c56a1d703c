// Model facts read from a GGUF header: the shape of a synthesised model, a junk file without
// one, and a missing file.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "gguf/synth_model.hpp"
#include "io/files.hpp"
#include "scratch_dir.hpp"
#include "server/model_facts.hpp"

using namespace bi;

TEST_CASE("model facts: GGUF shape read from a synthesised model", "[server][model_facts]") {
    testing::ScratchDir dir;
    const auto path = dir.file("m.gguf");
    gguf::ModelSpec spec;
    spec.embd = 64;
    spec.layers = 2;
    spec.heads = 4;
    spec.kv_heads = 2;
    spec.ff = 128;
    gguf::write_synth_model(path, spec);
    const auto facts = server::read_model_facts(path);
    CHECK(facts.architecture == "llama");
    CHECK(facts.n_layer == 2);
    CHECK(facts.n_embd == 64);
    CHECK(facts.n_head == 4);
    CHECK(facts.n_head_kv == 2);
    CHECK(facts.sha256_head.size() == 64);
    io::write_file_atomically(dir.file("junk.gguf"), "GGUF not really");
    CHECK_FALSE(server::read_model_facts(dir.file("junk.gguf")).has_shape());
    CHECK_THROWS_AS(server::read_model_facts(dir.file("absent.gguf")), Error);
}
