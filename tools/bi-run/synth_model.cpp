// bi-run synth-model: writes a random-weight llama GGUF so a user can test a server without
// downloading a model.
#include <cxxopts.hpp>

#include <cstdio>
#include <iostream>
#include <string>

#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "gguf/synth_model.hpp"
#include "io/files.hpp"

namespace bi::cli {

namespace {

std::string megabytes(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
    return text;
}

}  // namespace

int synth_model_main(CommandLine& line, int argc, char** argv) {
    auto command = command_options("synth-model");
    const auto args = parse_command_line(line, command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    if (!args.count("out")) usage_error("--out is required");

    gguf::ModelSpec spec;
    spec.embd = args["embd"].as<std::int64_t>();
    spec.layers = args["layers"].as<std::int64_t>();
    spec.heads = args["heads"].as<std::int64_t>();
    spec.kv_heads = args["kv-heads"].as<std::int64_t>();
    spec.ff = args["ff"].as<std::int64_t>();
    spec.ctx = args["ctx"].as<std::int64_t>();
    spec.vocab_words = args["vocab-words"].as<std::int64_t>();
    spec.seed = args["seed"].as<std::uint64_t>();
    const std::string dtype = args["dtype"].as<std::string>();
    const auto type = gguf::tensor_type_named(dtype);
    if (!type) usage_error("--dtype must be f32 or f16, got '" + dtype + "'");
    spec.dtype = *type;
    if (const auto problem = gguf::find_spec_problem(spec); !problem.empty()) usage_error(problem);
    const std::string out = args["out"].as<std::string>();
    io::check_output_file(out, "--out");

    const auto result = gguf::write_synth_model(out, spec);
    std::cout << "wrote " << out << ": " << megabytes(result.file.bytes) << " ("
              << result.file.bytes << " bytes), " << result.parameters << " parameters, vocab "
              << result.vocab_size << ", " << dtype << ", seed " << spec.seed << ", sha256 "
              << result.file.sha256_hex.substr(0, 12) << "\n";
    return kExitPromotable;
}

}  // namespace bi::cli
