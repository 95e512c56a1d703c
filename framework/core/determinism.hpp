// Determinism modes (docs/design.md §5.2.7): a server's own switch that claims batch-invariant
// answers (vLLM's VLLM_BATCH_INVARIANT=1, SGLang's --enable-deterministic-inference, TensorRT-
// LLM's FORCE_DETERMINISTIC=1). A kind declares how its mode is turned on and, where it can, how
// the server reports it; a cell runs with the mode off, on, or both (two certs, one per side),
// and a side asked on whose server reports the mode off is not evidence of the mode.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bi::core {

// --determinism: which sides of a cell run.
enum class DeterminismChoice { Off, On, Both };
inline constexpr std::string_view kDeterminismWords = "off, on or both";
std::string_view name(DeterminismChoice choice);
std::optional<DeterminismChoice> parse_determinism(std::string_view word);

// A kind's [determinism] table.
struct KindDeterminism {
    std::vector<std::pair<std::string, std::string>> env;  // NAME, value; name order
    std::vector<std::string> flags;                        // put in every launch after argv
    // Where the server says whether the mode is on: a GET of status_path answering JSON whose
    // dotted status_field is true (or a non-zero number) when it is. "": it cannot say.
    std::string status_path;
    std::string status_field;
    int warmup = 0;    // requests its documentation asks for after each launch with the mode on
    std::string none;  // a kind without a mode: why (refuses --determinism on)

    bool available() const { return !env.empty() || !flags.empty(); }
    bool reports() const { return !status_path.empty() && !status_field.empty(); }
    // "VLLM_BATCH_INVARIANT=1", "--enable-deterministic-inference": how a side turns it on.
    std::string describe() const;
    bool operator==(const KindDeterminism& other) const;
};

// What one server said of the mode when asked.
struct ModeReport {
    std::string server;      // "1-slot", "N-slot"
    std::optional<bool> on;  // nullopt: the status answer did not say (or did not come)
    std::string detail;      // "enable_deterministic_inference = false", or why it did not say
};

// The mode of one side of a cell, as the cert records it.
struct DeterminismGate {
    bool on = false;     // the side ran with the mode asked on
    std::string how;     // KindDeterminism::describe()
    std::string status;  // "GET /get_server_info enable_deterministic_inference"; "": none
    std::vector<ModeReport> reports;

    // Fails when the mode was asked on and a server says it is off or did not say.
    bool ok() const;
    // Asked on and every server that was asked said it is on.
    bool confirmed() const;
};

}  // namespace bi::core
