// One planted fact and what it takes to answer it: the needle paragraph, the question, the
// expected answer the scorer reads, and a reference completion (for echo runs and tests).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "json.hpp"
#include "prng.hpp"

namespace spark {

struct Needle {
    std::string text;       // planted as its own paragraph; never holds a blank line
    std::string question;   // asked after the notes
    Json expected;          // the expected_answer object, without "depth" (the builder adds it)
    std::string reference;  // a completion that scores 1
};

using NeedleMaker = Needle (*)(Prng& prng);

// The ten families, in their canonical order.
struct FamilySpec {
    std::string_view id;
    std::string_view summary;
    NeedleMaker make;
};
const std::vector<FamilySpec>& family_specs();
const FamilySpec* find_family(std::string_view id);

// Per-family needle makers (needles_*.cpp).
Needle make_a2_code_recall(Prng& prng);
Needle make_a4_chained_arithmetic(Prng& prng);
Needle make_b1_two_step_product(Prng& prng);
Needle make_c1_evaluate_function(Prng& prng);
Needle make_d1_three_facts(Prng& prng);
Needle make_e1_multi_key_recall(Prng& prng);
Needle make_e2_json_only(Prng& prng);
Needle make_e3_tool_call(Prng& prng);
Needle make_e4_fix_bug(Prng& prng);
Needle make_e5_find_function(Prng& prng);

// Small helpers shared by the makers.
std::string fenced_python(const std::string& code);
Json string_list(const std::vector<std::string>& items);

}  // namespace spark
