// Lays out the llama tensors and metadata llama.cpp expects (names and ggml dimension order as
// its llama loader reads them) and fills the weights from the seeded generator.
#include "synth_model.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "gguf/prng.hpp"
#include "gguf/vocabulary.hpp"

namespace bi::gguf {

const char* const kChatTemplate =
    "{% for turn in messages %}"
    "<|im_start|>{{ turn.role }}\n{{ turn.content }}<|im_end|>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

namespace {

struct Bound {
    const char* flag;
    std::int64_t value;
    std::int64_t min;
    std::int64_t max;
};

std::size_t word_count_of(const ModelSpec& spec) {
    return spec.vocab_words < 0 ? available_word_count()
                                : static_cast<std::size_t>(spec.vocab_words);
}

std::uint64_t count_parameters(const ModelSpec& spec, std::uint64_t vocab_size) {
    const auto embd = static_cast<std::uint64_t>(spec.embd);
    const auto kv_width =
        embd / static_cast<std::uint64_t>(spec.heads) * static_cast<std::uint64_t>(spec.kv_heads);
    const auto ff = static_cast<std::uint64_t>(spec.ff);
    const std::uint64_t per_layer =
        2 * embd + 2 * embd * embd + 2 * embd * kv_width + 3 * embd * ff;
    return 2 * embd * vocab_size + embd + static_cast<std::uint64_t>(spec.layers) * per_layer;
}

// Values of a weight matrix with rows of `fan_in`: normal with std 1/sqrt(fan_in), so a row
// times a unit-RMS activation has unit variance and the random network neither dies nor explodes.
TensorValues random_weights(std::uint64_t seed, std::string name, std::int64_t fan_in,
                            std::int64_t rows) {
    return [seed, name = std::move(name), fan_in, rows] {
        core::SplitMix64 rng(stream_seed(seed, name));
        const double scale = 1.0 / std::sqrt(static_cast<double>(fan_in));
        std::vector<float> values(static_cast<std::size_t>(fan_in * rows));
        for (float& value : values) value = static_cast<float>(next_normal(rng) * scale);
        return values;
    };
}

TensorValues ones(std::int64_t count) {
    return [count] { return std::vector<float>(static_cast<std::size_t>(count), 1.0f); };
}

// The lm head with the rows of every non-printable token (special, control, byte) zeroed: their
// logit is then exactly 0 while the best of hundreds of unit-variance printable logits is far
// above 0, so greedy decoding only ever picks printable text and never stops early at </s>.
TensorValues output_head(std::uint64_t seed, std::int64_t embd,
                         std::shared_ptr<const Vocabulary> vocab) {
    return [seed, embd, vocab = std::move(vocab)] {
        const auto rows = static_cast<std::int64_t>(vocab->size());
        std::vector<float> values = random_weights(seed, "output.weight", embd, rows)();
        for (std::size_t id = 0; id < vocab->size(); ++id) {
            if (vocab->is_printable(id)) continue;
            const auto begin = values.begin() + static_cast<std::ptrdiff_t>(id) * embd;
            std::fill(begin, begin + embd, 0.0f);
        }
        return values;
    };
}

}  // namespace

std::string find_spec_problem(const ModelSpec& spec) {
    const Bound bounds[] = {
        {"--embd", spec.embd, 8, 16384},
        {"--layers", spec.layers, 1, 256},
        {"--heads", spec.heads, 1, 256},
        {"--kv-heads", spec.kv_heads, 1, 256},
        {"--ff", spec.ff, 1, 131072},
        {"--ctx", spec.ctx, 16, 1 << 20},
        {"--vocab-words", spec.vocab_words, -1, static_cast<std::int64_t>(available_word_count())},
    };
    for (const auto& b : bounds) {
        if (b.value < b.min || b.value > b.max)
            return std::string(b.flag) + " must be between " + std::to_string(b.min) + " and " +
                   std::to_string(b.max) + ", got " + std::to_string(b.value);
    }
    if (spec.embd % spec.heads != 0)
        return "--embd " + std::to_string(spec.embd) + " is not divisible by --heads " +
               std::to_string(spec.heads);
    if ((spec.embd / spec.heads) % 2 != 0)
        return "head size --embd/--heads = " + std::to_string(spec.embd / spec.heads) +
               " must be even (RoPE rotates pairs)";
    if (spec.heads % spec.kv_heads != 0)
        return "--heads " + std::to_string(spec.heads) + " is not divisible by --kv-heads " +
               std::to_string(spec.kv_heads);
    if (spec.dtype != TensorType::F32 && spec.dtype != TensorType::F16)
        return "--dtype must be f32 or f16";
    const std::uint64_t parameters =
        count_parameters(spec, build_vocabulary(word_count_of(spec)).size());
    if (parameters > kMaxParameters)
        return "the model would have " + std::to_string(parameters) + " parameters, more than " +
               std::to_string(kMaxParameters);
    return "";
}

std::string model_name(const ModelSpec& spec) {
    return "bi-synth-" + std::to_string(spec.embd) + "e-" + std::to_string(spec.layers) + "L-" +
           tensor_type_name(spec.dtype) + "-s" + std::to_string(spec.seed);
}

SynthResult write_synth_model(const std::string& path, const ModelSpec& spec) {
    if (const auto problem = find_spec_problem(spec); !problem.empty())
        throw Error(ErrorCategory::Usage, problem);
    const auto vocab = std::make_shared<const Vocabulary>(build_vocabulary(word_count_of(spec)));
    const std::int64_t n_vocab = static_cast<std::int64_t>(vocab->size());
    const std::int64_t head_size = spec.embd / spec.heads;
    const std::int64_t kv_width = head_size * spec.kv_heads;
    const std::string name = model_name(spec);
    const auto u32 = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };

    GgufWriter w;
    w.add_string("general.architecture", "llama");
    w.add_string("general.name", name);
    w.add_uint32("general.file_type", file_type_of(spec.dtype));
    w.add_uint32("llama.vocab_size", u32(n_vocab));
    w.add_uint32("llama.context_length", u32(spec.ctx));
    w.add_uint32("llama.embedding_length", u32(spec.embd));
    w.add_uint32("llama.block_count", u32(spec.layers));
    w.add_uint32("llama.feed_forward_length", u32(spec.ff));
    w.add_uint32("llama.attention.head_count", u32(spec.heads));
    w.add_uint32("llama.attention.head_count_kv", u32(spec.kv_heads));
    w.add_uint32("llama.rope.dimension_count", u32(head_size));
    w.add_float32("llama.rope.freq_base", kRopeFreqBase);
    w.add_float32("llama.attention.layer_norm_rms_epsilon", kRmsNormEpsilon);
    w.add_string("tokenizer.ggml.model", "llama");
    w.add_string_array("tokenizer.ggml.tokens", vocab->tokens);
    w.add_float32_array("tokenizer.ggml.scores", vocab->scores);
    w.add_int32_array("tokenizer.ggml.token_type", vocab->types);
    w.add_uint32("tokenizer.ggml.bos_token_id", vocab->bos_id);
    w.add_uint32("tokenizer.ggml.eos_token_id", vocab->eos_id);
    w.add_uint32("tokenizer.ggml.unknown_token_id", vocab->unk_id);
    w.add_bool("tokenizer.ggml.add_bos_token", true);
    w.add_bool("tokenizer.ggml.add_eos_token", false);
    w.add_bool("tokenizer.ggml.add_space_prefix", true);
    w.add_string("tokenizer.chat_template", kChatTemplate);
    w.add_uint64("bi.synth.seed", spec.seed);

    // ggml dimension order: dims[0] is the input (row) length, dims[1] the number of rows.
    const auto matrix = [&](const std::string& tensor, std::int64_t in, std::int64_t out) {
        w.add_tensor(tensor, {in, out}, spec.dtype, random_weights(spec.seed, tensor, in, out));
    };
    const auto norm = [&](const std::string& tensor) {
        w.add_tensor(tensor, {spec.embd}, TensorType::F32, ones(spec.embd));
    };
    matrix("token_embd.weight", spec.embd, n_vocab);
    for (std::int64_t layer = 0; layer < spec.layers; ++layer) {
        const std::string blk = "blk." + std::to_string(layer) + ".";
        norm(blk + "attn_norm.weight");
        matrix(blk + "attn_q.weight", spec.embd, spec.embd);
        matrix(blk + "attn_k.weight", spec.embd, kv_width);
        matrix(blk + "attn_v.weight", spec.embd, kv_width);
        matrix(blk + "attn_output.weight", spec.embd, spec.embd);
        norm(blk + "ffn_norm.weight");
        matrix(blk + "ffn_gate.weight", spec.embd, spec.ff);
        matrix(blk + "ffn_up.weight", spec.embd, spec.ff);
        matrix(blk + "ffn_down.weight", spec.ff, spec.embd);
    }
    norm("output_norm.weight");
    w.add_tensor("output.weight", {spec.embd, n_vocab}, spec.dtype,
                 output_head(spec.seed, spec.embd, vocab));

    SynthResult result;
    result.parameters = w.parameter_count();
    result.vocab_size = vocab->size();
    result.name = name;
    result.file = w.write(path);
    return result;
}

}  // namespace bi::gguf
