// A random-weight llama-architecture model that llama.cpp loads: for tests and self-checks of a
// user's own server without downloading a model. Same spec -> byte-identical file.
#pragma once

#include <cstdint>
#include <string>

#include "gguf/format.hpp"
#include "gguf/writer.hpp"

namespace bi::gguf {

struct ModelSpec {
    std::int64_t embd = 256;
    std::int64_t layers = 4;
    std::int64_t heads = 4;
    std::int64_t kv_heads = 4;
    std::int64_t ff = 704;
    std::int64_t ctx = 4096;
    std::int64_t vocab_words = -1;       // words from the built-in list; -1: all of them
    TensorType dtype = TensorType::F32;  // of the matrices; norm weights are always f32
    std::uint64_t seed = 1;
};

inline constexpr float kRmsNormEpsilon = 1e-5f;
inline constexpr float kRopeFreqBase = 10000.0f;
inline constexpr std::uint64_t kMaxParameters = 2'000'000'000;
// An im_start/im_end chat template (Jinja), stored as tokenizer.chat_template.
extern const char* const kChatTemplate;

// The first problem with `spec` as one line naming the flag, or "" when it is usable.
std::string find_spec_problem(const ModelSpec& spec);

// general.name for `spec`, e.g. "bi-synth-256e-4L-f32-s1".
std::string model_name(const ModelSpec& spec);

struct SynthResult {
    WriteSummary file;
    std::uint64_t parameters = 0;
    std::uint64_t vocab_size = 0;
    std::string name;
};

// Writes the model to `path` atomically. Throws bi::Error(Usage) for a bad spec (the message of
// find_spec_problem) and bi::Error(Io) when the file cannot be written.
SynthResult write_synth_model(const std::string& path, const ModelSpec& spec);

}  // namespace bi::gguf
