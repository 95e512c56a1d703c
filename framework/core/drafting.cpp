#include "drafting.hpp"

namespace bi::core {

bool DraftingGate::drafted() const {
    if (!launch_flag.empty()) return true;
    for (const auto& arm : arms)
        if (arm.drafting > 0) return true;
    return false;
}

std::string draft_launch_flag(const KindFlags& names, const std::vector<std::string>& flags) {
    for (std::size_t i = 0; i < flags.size(); ++i)
        for (const auto& name : names.draft_model) {
            if (flags[i] == name) return i + 1 < flags.size() ? name + " " + flags[i + 1] : name;
            if (flags[i].rfind(name + "=", 0) == 0) return flags[i];
        }
    return {};
}

DraftingGate drafting_gate(const std::vector<std::string>& fields, std::string launch_flag,
                           const std::vector<std::pair<std::string, const ArmResults*>>& arms) {
    DraftingGate gate;
    for (const auto& field : fields) gate.fields += (gate.fields.empty() ? "" : ", ") + field;
    gate.launch_flag = std::move(launch_flag);
    if (arms.empty()) return gate;
    const ArmResults& a = *arms.front().second;
    for (const auto& [name, results] : arms) {
        ArmDrafting arm{name};
        for (const auto& [id, trial] : *results) {
            if (!trial.ok()) continue;
            const std::int64_t drafted = trial.drafted.value_or(0);
            ++arm.answers;
            if (drafted > 0) ++arm.drafting;
            arm.drafted_tokens += drafted;
            if (results == &a) continue;
            const auto in_a = a.find(id);
            if (in_a == a.end() || !in_a->second.ok()) continue;
            const std::int64_t drafted_a = in_a->second.drafted.value_or(0);
            if (drafted != drafted_a) gate.mismatches.push_back({id, name, drafted, drafted_a});
        }
        gate.arms.push_back(std::move(arm));
    }
    return gate;
}

}  // namespace bi::core
