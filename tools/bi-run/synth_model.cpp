// bi-run synth-model: writes a random-weight llama GGUF so a user can test a server without
// downloading a model.
#include <sys/stat.h>

#include <cxxopts.hpp>

#include <charconv>
#include <cstdio>
#include <iostream>
#include <string>
#include <system_error>
#include <type_traits>

#include "command_line.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "exit_codes.hpp"
#include "gguf/synth_model.hpp"

namespace bi::cli {

namespace {

[[noreturn]] void usage_error(const std::string& message) {
    throw Error(ErrorCategory::Usage, message);
}

bool is_directory(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

// Refuses up front what would otherwise fail halfway: a missing directory or a directory target.
void check_out_path(const std::string& path) {
    if (path.empty()) usage_error("--out is empty");
    if (path.back() == '/' || is_directory(path)) usage_error("--out " + path + " is a directory");
    const auto slash = path.find_last_of('/');
    const std::string parent =
        slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    if (!is_directory(parent))
        usage_error("--out " + path + ": directory " + parent + " does not exist");
}

// Numbers are parsed here rather than by cxxopts so that a bad value's message names its flag.
template <typename Int>
Int parse_integer(const cxxopts::ParseResult& args, const std::string& flag) {
    const std::string text = args[flag].as<std::string>();
    Int value{};
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc() || stop != end)
        usage_error("--" + flag + " '" + text + "' is not " +
                    (std::is_signed_v<Int> ? "an integer" : "a non-negative integer") +
                    " in range");
    return value;
}

std::string megabytes(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
    return text;
}

}  // namespace

int synth_model_main(int argc, char** argv) {
    const gguf::ModelSpec defaults;
    cxxopts::Options options(
        "bi-run synth-model",
        "Write a random-weight llama-architecture GGUF model that llama.cpp's llama-server loads: "
        "a SentencePiece-style vocabulary (special, byte, printable and common-word tokens), an "
        "im_start/im_end chat template, weights with std 1/sqrt(fan_in) and an output layer that "
        "only ever picks printable tokens. The same arguments give a byte-identical file; it is "
        "written atomically.\n\nExit status: 0 written, 2 bad arguments (nothing written), 1 the "
        "file could not be written.");
    const auto int_option = [](std::int64_t value) {
        return cxxopts::value<std::string>()->default_value(std::to_string(value));
    };
    options.add_options()("h,help", "Show this help")(
        "out", "Model file to write (its directory must exist)", cxxopts::value<std::string>())(
        "embd", "Embedding width", int_option(defaults.embd))("layers", "Transformer blocks",
                                                              int_option(defaults.layers))(
        "heads", "Attention heads (must divide --embd)", int_option(defaults.heads))(
        "kv-heads", "Key/value heads (must divide --heads)", int_option(defaults.kv_heads))(
        "ff", "Feed-forward width", int_option(defaults.ff))(
        "ctx", "Training context length recorded in the model", int_option(defaults.ctx))(
        "vocab-words", "Words from the built-in list to include (-1: all)",
        int_option(defaults.vocab_words))("dtype",
                                          "Matrix type: f32 or f16 (norm weights stay f32)",
                                          cxxopts::value<std::string>()->default_value("f32"))(
        "seed", "Weight seed",
        cxxopts::value<std::string>()->default_value(std::to_string(defaults.seed)));
    const auto args = parse_command_line(options, argc, argv);
    if (args.count("help")) {
        std::cout << options.help() << "\n";
        return kExitPromotable;
    }
    if (!args.count("out")) usage_error("--out is required");

    gguf::ModelSpec spec;
    spec.embd = parse_integer<std::int64_t>(args, "embd");
    spec.layers = parse_integer<std::int64_t>(args, "layers");
    spec.heads = parse_integer<std::int64_t>(args, "heads");
    spec.kv_heads = parse_integer<std::int64_t>(args, "kv-heads");
    spec.ff = parse_integer<std::int64_t>(args, "ff");
    spec.ctx = parse_integer<std::int64_t>(args, "ctx");
    spec.vocab_words = parse_integer<std::int64_t>(args, "vocab-words");
    spec.seed = parse_integer<std::uint64_t>(args, "seed");
    const std::string dtype = args["dtype"].as<std::string>();
    if (dtype == "f32")
        spec.dtype = gguf::TensorType::F32;
    else if (dtype == "f16")
        spec.dtype = gguf::TensorType::F16;
    else
        usage_error("--dtype must be f32 or f16, got '" + dtype + "'");
    if (const auto problem = gguf::find_spec_problem(spec); !problem.empty()) usage_error(problem);
    const std::string out = args["out"].as<std::string>();
    check_out_path(out);

    const auto result = gguf::write_synth_model(out, spec);
    std::cout << "wrote " << out << ": " << megabytes(result.file.bytes) << " ("
              << result.file.bytes << " bytes), " << result.parameters << " parameters, vocab "
              << result.vocab_size << ", " << dtype << ", seed " << spec.seed << ", sha256 "
              << result.file.sha256_hex.substr(0, 12) << "\n";
    return kExitPromotable;
}

}  // namespace bi::cli
