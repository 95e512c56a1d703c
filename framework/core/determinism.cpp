#include "determinism.hpp"

namespace bi::core {

std::string_view name(DeterminismChoice choice) {
    switch (choice) {
        case DeterminismChoice::Off:
            return "off";
        case DeterminismChoice::On:
            return "on";
        case DeterminismChoice::Both:
            return "both";
    }
    return "off";  // unreachable: the switch names every choice (-Werror=switch)
}

std::optional<DeterminismChoice> parse_determinism(std::string_view word) {
    for (const auto choice :
         {DeterminismChoice::Off, DeterminismChoice::On, DeterminismChoice::Both})
        if (name(choice) == word) return choice;
    return std::nullopt;
}

std::string KindDeterminism::describe() const {
    std::string text;
    for (const auto& [key, value] : env) text += (text.empty() ? "" : " ") + key + "=" + value;
    for (const auto& flag : flags) text += (text.empty() ? "" : " ") + flag;
    return text;
}

bool KindDeterminism::operator==(const KindDeterminism& o) const {
    return env == o.env && flags == o.flags && status_path == o.status_path &&
           status_field == o.status_field && warmup == o.warmup && none == o.none;
}

bool DeterminismGate::ok() const {
    if (!on) return true;
    for (const auto& report : reports)
        if (report.on != true) return false;
    return true;
}

bool DeterminismGate::confirmed() const {
    return on && !status.empty() && !reports.empty() && ok();
}

}  // namespace bi::core
