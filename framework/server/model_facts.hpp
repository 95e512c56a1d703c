// What the guards need to know about a GGUF model before launching anything: its size and the
// shape numbers that size the KV cache, read from the file's metadata header only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace bi::server {

struct ModelFacts {
    std::string path;
    std::uint64_t file_bytes = 0;
    std::string sha256_head;   // sha256 of the first MiB: identifies the file cheaply
    std::string architecture;  // general.architecture, empty when not GGUF
    std::optional<std::int64_t> n_layer, n_embd, n_head, n_head_kv, key_length, value_length;
    bool has_shape() const { return n_layer && n_embd && n_head; }
};

// Throws bi::Error(Input) when the file cannot be read. A file that is not GGUF yields facts
// without a shape (the footprint then uses a documented fallback).
ModelFacts read_model_facts(const std::string& path);

}  // namespace bi::server
