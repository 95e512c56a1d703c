// Checks made before any server starts; each refusal is one line (bi::Error(Guard), exit 2) and
// nothing is launched or written.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/server_kind.hpp"
#include "model_facts.hpp"

namespace bi::server {

struct Footprint {
    std::uint64_t model_bytes = 0;
    std::uint64_t kv_bytes = 0;
    std::uint64_t overhead_bytes = 0;
    bool kv_estimated_from_shape = false;  // false: the fallback rule was used
    std::uint64_t total() const { return model_bytes + kv_bytes + overhead_bytes; }
};

// Bytes per KV element for a cache type label ("q8_0", "bf16" ...); nullopt when unknown.
// Bytes per cached element of a KV label ("q8_0"; "q8_0/f16" gives the mean of K and V).
std::optional<double> kv_bytes_per_element(const std::string& kv_label);

// The KV cache the server's own flags set: the kind's kv_cache_type_k and kv_cache_type_v
// (llama-server: -ctk/--cache-type-k, -ctv/--cache-type-v), as separate tokens or NAME=VALUE.
// `label` names it as upstream's kv labels do: the K type when V is unset or the same ("q8_0"),
// else "K/V"; `types` is what the cache really holds, K/V, an unset one being llama-server's
// default f16 ("q8_0/f16"), for the footprint.
struct KvCache {
    std::string label;
    std::string types;
};
// nullopt when neither is set or the kind has no such flags; bi::Error(Usage) naming the flag for
// a type bi-run does not know.
std::optional<KvCache> kv_cache_from_flags(const core::KindFlags& names,
                                           const std::vector<std::string>& flags);

// The value of the kind's one KV-cache-type flag (kv_cache_type: vLLM --kv-cache-dtype) among the
// user's flags, the last given; nullopt when the kind has none or it is not given.
std::optional<std::string> kv_cache_type_from_flag(const core::KindFlags& names,
                                                   const std::vector<std::string>& flags);

// model + KV (2 x layers x ctx_total x kv width x element size) + overhead (256 MiB + 5% of the
// model). Without a readable shape the KV cache is taken as model_bytes x ctx_total / 8192.
Footprint project_footprint(const ModelFacts& model, std::int64_t ctx_total,
                            const std::string& kv_label);

// MemAvailable from /proc/meminfo in bytes; nullopt when unreadable.
std::optional<std::uint64_t> mem_available_bytes();

struct GuardLimits {
    std::optional<double> max_footprint_gb;
    std::vector<std::uint16_t> reserved_ports;
    std::vector<pid_t> untouchable_pids;
};

void check_footprint(const Footprint& footprint, const GuardLimits& limits,
                     std::optional<std::uint64_t> mem_available);

// Without the model's shape (a file that is not GGUF, or one without the layer and head counts)
// the KV cache cannot be projected, so the footprint guard proves nothing. Such a model may be
// served at most this much context in total; beyond it the launch is refused (fail closed).
inline constexpr std::int64_t kMaxContextWithoutShape = 262144;
void check_context_without_shape(const ModelFacts& model, std::int64_t ctx_total);

// The binary must be an executable regular file; the model a readable regular file.
void check_binary(const std::string& path);
void check_model(const std::string& path);
// For a kind whose model is a directory (model_form "directory"): a readable directory.
void check_model_directory(const std::string& path);

bool is_reserved(std::uint16_t port, const GuardLimits& limits);
// True when nothing listens on 127.0.0.1:port (tested by binding it, then letting go).
bool port_is_free(std::uint16_t port);
// A free loopback port that is not reserved, picked from server_port_candidates of this machine's
// ephemeral range.
std::uint16_t pick_free_port(const GuardLimits& limits);

// The kernel's range for outgoing connections' local ports, read from `path`
// (/proc/sys/net/ipv4/ip_local_port_range); Linux's default 32768-60999 when it cannot be read.
std::pair<std::uint16_t, std::uint16_t> ephemeral_port_range(const std::string& path);

// The ports a launched server may get: 20000-65535 outside `ephemeral` (all of 20000-65535 when
// fewer than 2000 lie outside it).
std::vector<std::uint16_t> server_port_candidates(
    std::pair<std::uint16_t, std::uint16_t> ephemeral);
// --port given: refuse a reserved or busy one.
void check_port(std::uint16_t port, const GuardLimits& limits);

std::string format_gib(std::uint64_t bytes);

// A size in the decimal unit that fits it, one decimal: "512 bytes", "16.4 MB", "4.9 GB" (for a
// file's size, where "0.00 GiB" would say nothing).
std::string format_size(std::uint64_t bytes);

}  // namespace bi::server
