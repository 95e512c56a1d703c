#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "io/files.hpp"
#include "io/model_profile.hpp"
#include "scratch_dir.hpp"

using namespace bi;

TEST_CASE("models.toml: the shipped example parses", "[model_profile]") {
    const std::string path = std::string(BI_SOURCE_DIR) + "/examples/models.example.toml";
    const auto listed = io::list_models(path);
    CHECK(listed.aliases == std::vector<std::string>{"qwen2.5-7b-q4", "llama3.1-8b-q8-kvq8"});
    const auto p = io::load_model_profile(path, "llama3.1-8b-q8-kvq8", "");
    CHECK(p.gguf == "/srv/models/Meta-Llama-3.1-8B-Instruct-Q8_0.gguf");
    CHECK(p.server_bin == "/opt/llama.cpp/build/bin/llama-server");
    CHECK(p.kv == "q8_0");
    CHECK(p.server_flags == std::vector<std::string>{"-ngl", "99", "--flash-attn", "on",
                                                     "--cache-type-k", "q8_0", "--cache-type-v",
                                                     "q8_0"});
    CHECK(io::load_model_profile(path, "qwen2.5-7b-q4", "/x").gguf ==
          "/x/Qwen2.5-7B-Instruct-Q4_K_M.gguf");
}

TEST_CASE("models.toml: clear errors", "[model_profile]") {
    testing::ScratchDir dir;
    const auto path = dir.file("models.toml");
    io::write_file_atomically(path, "[[models]]\nalias = \"a\"\ngguf = \"{MODELS_DIR}/a.gguf\"\n");
    CHECK_THROWS_WITH(io::load_model_profile(path, "b", ""),
                      Catch::Contains("no model with alias 'b' (known: a)"));
    CHECK_THROWS_WITH(io::load_model_profile(path, "a", ""), Catch::Contains("{MODELS_DIR}"));
    io::write_file_atomically(path, "[[models]]\nalias = 3\n");
    CHECK_THROWS_WITH(io::load_model_profile(path, "a", ""),
                      Catch::Contains("alias must be a string"));
    io::write_file_atomically(path, "[[models]\n");
    CHECK_THROWS_WITH(io::load_model_profile(path, "a", ""),
                      Catch::Contains("invalid TOML at line 1"));
    io::write_file_atomically(path, "[defaults]\nserver_bin = \"x\"\n");
    CHECK_THROWS_WITH(io::load_model_profile(path, "a", ""), Catch::Contains("no [[models]]"));
}

TEST_CASE("models.toml: a models directory is inserted literally, once per placeholder",
          "[model_profile]") {
    testing::ScratchDir dir;
    const auto path = dir.file("models.toml");
    io::write_file_atomically(path,
                              "[defaults]\nmodels_dir = \"/m/{MODELS_DIR}\"\n[[models]]\n"
                              "alias = \"a\"\ngguf = \"{MODELS_DIR}/a-{MODELS_DIR}.gguf\"\n");
    CHECK(io::load_model_profile(path, "a", "").gguf == "/m/{MODELS_DIR}/a-/m/{MODELS_DIR}.gguf");
    CHECK(io::load_model_profile(path, "a", "{MODELS_DIR}").gguf ==
          "{MODELS_DIR}/a-{MODELS_DIR}.gguf");
}

TEST_CASE("models.toml: the upstream spelling server_flags is a model's flags", "[model_profile]") {
    testing::ScratchDir dir;
    const auto path = dir.file("models.toml");
    io::write_file_atomically(path,
                              "[defaults]\nserver_flags = [\"-ngl\", \"99\"]\n[[models]]\n"
                              "alias = \"a\"\ngguf = \"/a.gguf\"\nkv = \"q8_0\"\n"
                              "server_flags = [\"--cache-type-k\", \"q8_0\"]\n");
    CHECK(io::load_model_profile(path, "a", "").server_flags ==
          std::vector<std::string>{"-ngl", "99", "--cache-type-k", "q8_0"});
    io::write_file_atomically(path,
                              "[[models]]\nalias = \"a\"\ngguf = \"/a.gguf\"\n"
                              "flags = [\"-t\"]\nserver_flags = [\"-t\"]\n");
    CHECK_THROWS_WITH(io::load_model_profile(path, "a", ""),
                      Catch::Contains("models[0] has both flags and server_flags"));
}

TEST_CASE("models.toml: server_kind is the model's, else [defaults]", "[model_profile]") {
    testing::ScratchDir dir;
    const auto path = dir.file("models.toml");
    io::write_file_atomically(path,
                              "[defaults]\nserver_kind = \"ik_llama.cpp\"\n[[models]]\n"
                              "alias = \"a\"\ngguf = \"/a.gguf\"\n[[models]]\nalias = \"b\"\n"
                              "gguf = \"/b.gguf\"\nserver_kind = \"/kinds/mine.toml\"\n");
    CHECK(io::load_model_profile(path, "a", "").server_kind == "ik_llama.cpp");
    CHECK(io::load_model_profile(path, "b", "").server_kind == "/kinds/mine.toml");
    io::write_file_atomically(path, "[[models]]\nalias = \"a\"\ngguf = \"/a.gguf\"\n");
    CHECK(io::load_model_profile(path, "a", "").server_kind.empty());
}

TEST_CASE("models.toml: an unknown key is refused with its table and line", "[model_profile]") {
    testing::ScratchDir dir;
    const auto path = dir.file("models.toml");
    io::write_file_atomically(path,
                              "[[models]]\nalias = \"a\"\ngguf = \"/a.gguf\"\n[[models]]\n"
                              "alias = \"b\"\ngguf = \"/b.gguf\"\nserver_flag = [\"-t\"]\n");
    CHECK_THROWS_WITH(io::load_model_profile(path, "a", ""),
                      Catch::Contains("line 7: unknown key 'server_flag' in models[1]"));
    io::write_file_atomically(path, "[defaults]\nserverbin = \"x\"\n[[models]]\nalias = \"a\"\n");
    CHECK_THROWS_WITH(io::load_model_profile(path, "a", ""),
                      Catch::Contains("line 2: unknown key 'serverbin' in [defaults]"));
    io::write_file_atomically(path, "model = 1\n[[models]]\nalias = \"a\"\ngguf = \"/a.gguf\"\n");
    CHECK_THROWS_WITH(io::load_model_profile(path, "a", ""),
                      Catch::Contains("line 1: unknown key 'model' in the top level"));
}

TEST_CASE(
    "models.toml: cache_arm from the defaults, overridden per model, refused unless a "
    "boolean",
    "[model_profile][cache]") {
    testing::ScratchDir dir;
    const auto path = dir.file("models.toml");
    io::write_file_atomically(path,
                              "[defaults]\ncache_arm = true\n[[models]]\nalias = \"a\"\n"
                              "gguf = \"/a.gguf\"\n[[models]]\nalias = \"b\"\ngguf = \"/b.gguf\"\n"
                              "cache_arm = false\n");
    CHECK(io::load_model_profile(path, "a", "").cache_arm);
    CHECK_FALSE(io::load_model_profile(path, "b", "").cache_arm);
    io::write_file_atomically(path, "[[models]]\nalias = \"a\"\ngguf = \"/a.gguf\"\n");
    CHECK_FALSE(io::load_model_profile(path, "a", "").cache_arm);
    io::write_file_atomically(
        path, "[[models]]\nalias = \"a\"\ngguf = \"/a.gguf\"\ncache_arm = \"yes\"\n");
    CHECK_THROWS_WITH(io::load_model_profile(path, "a", ""),
                      Catch::Contains("models[0].cache_arm must be true or false"));
}

TEST_CASE("models.toml: a model's determinism, refused unless off, on or both",
          "[model_profile][determinism]") {
    testing::ScratchDir dir;
    const auto path = dir.file("models.toml");
    io::write_file_atomically(path,
                              "[[models]]\nalias = \"a\"\ngguf = \"/a\"\ndeterminism = \"both\"\n");
    CHECK(io::load_model_profile(path, "a", "").determinism == "both");
    io::write_file_atomically(
        path, "[[models]]\nalias = \"a\"\ngguf = \"/a\"\ndeterminism = \"maybe\"\n");
    CHECK_THROWS_WITH(io::load_model_profile(path, "a", ""),
                      Catch::Contains("models[0].determinism must be off, on or both, not "
                                      "'maybe'"));
}
