// The family table: ids, one-line summaries (for docs and errors) and their needle makers.
#include "needle.hpp"

namespace spark {

const std::vector<FamilySpec>& family_specs() {
    static const std::vector<FamilySpec> kFamilies = {
        {"A2", "recall a planted code", make_a2_code_recall},
        {"A4", "chained arithmetic over planted statements", make_a4_chained_arithmetic},
        {"B1", "two-step product", make_b1_two_step_product},
        {"C1", "evaluate a planted Python function", make_c1_evaluate_function},
        {"D1", "three-fact summary as bullets", make_d1_three_facts},
        {"E1", "recall several keys from planted settings", make_e1_multi_key_recall},
        {"E2", "answer with a typed JSON object only", make_e2_json_only},
        {"E3", "tool call as JSON for a given schema", make_e3_tool_call},
        {"E4", "fix a planted bug, return the function", make_e4_fix_bug},
        {"E5", "name the function matching a description", make_e5_find_function},
    };
    return kFamilies;
}

const FamilySpec* find_family(std::string_view id) {
    for (const auto& family : family_specs())
        if (family.id == id) return &family;
    return nullptr;
}

std::string fenced_python(const std::string& code) {
    return "```python\n" + code + "\n```";
}

Json string_list(const std::vector<std::string>& items) {
    Json out = json_array();
    for (const auto& item : items) push_item(out, json_string(item));
    return out;
}

}  // namespace spark
