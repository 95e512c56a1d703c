// The drafting gate: a server that decodes speculatively computes each answer along another
// path than one that does not, and along yet another when it drafts other tokens, so arms that
// drafted differently are not comparable (docs/design.md §5.2.3). The kind declares the fields
// its answers count drafted tokens in and the flags that launch it with a draft model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server_kind.hpp"
#include "trial.hpp"

namespace bi::core {

// What one arm's answers drafted.
struct ArmDrafting {
    std::string arm;                  // "A", "A'", "B" or "C<t>"
    std::int64_t answers = 0;         // answers compared (those that completed)
    std::int64_t drafting = 0;        // of those, the answers that drafted any token
    std::int64_t drafted_tokens = 0;  // the tokens they drafted, all together
};

// One answer that drafted otherwise than A's answer to the same item.
struct DraftMismatch {
    std::string test_id;
    std::string arm;
    std::int64_t drafted = 0;    // tokens this answer drafted
    std::int64_t drafted_a = 0;  // tokens A's answer drafted
};

struct DraftingGate {
    std::string fields;  // the kind's draft fields, joined by ", "; "": none declared
    // The draft-model flag as the user's --server-flag tokens gave it ("-md d.gguf"); "": none.
    std::string launch_flag;
    std::vector<ArmDrafting> arms;          // in arm order (A, A', B, C1...)
    std::vector<DraftMismatch> mismatches;  // in arm order, ids sorted within an arm
    bool ok() const { return mismatches.empty(); }
    // The server drafted: it was launched with a draft model, or some answer drafted.
    bool drafted() const;
};

// The first of the kind's draft-model flags among the user's server flags, with its value, as
// given ("-md d.gguf", "--model-draft=d.gguf"); "" when none is.
std::string draft_launch_flag(const KindFlags& names, const std::vector<std::string>& flags);

// The gate over the arms, each named as the cert names it, the first being A. An answer that
// states no draft field drafted nothing (llama-server sends timings.draft_n only with a draft
// model). Only answers that completed count; an item is compared between A and another arm when
// both answered it, and differs when they drafted different numbers of tokens.
DraftingGate drafting_gate(const std::vector<std::string>& fields, std::string launch_flag,
                           const std::vector<std::pair<std::string, const ArmResults*>>& arms);

}  // namespace bi::core
