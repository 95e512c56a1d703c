// Parameter parsing with messages that name the bad key or value and list the valid ones.
#include "generator_params.hpp"

#include <bi/plugin.hpp>

#include <algorithm>

#include "needle.hpp"

namespace spark {

namespace {

[[noreturn]] void invalid(const std::string& message) {
    throw bi::sdk::Failure(BI_STATUS_INVALID_ARGUMENT, "spark: " + message);
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> pieces;
    std::size_t start = 0;
    while (true) {
        const auto at = text.find(separator, start);
        pieces.push_back(
            text.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) return pieces;
        start = at + 1;
    }
}

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::string upper(std::string text) {
    for (char& c : text)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return text;
}

std::string family_list() {
    std::string out;
    for (const auto& family : family_specs())
        out += (out.empty() ? "" : ", ") + std::string(family.id);
    return out;
}

// "families=A2" then "E3" (no '='): the piece continues the previous value.
std::vector<std::pair<std::string, std::string>> flatten(
    const std::vector<std::pair<std::string, std::string>>& pairs) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [key, value] : pairs) {
        out.emplace_back(trim(key), "");
        bool first = true;
        for (const auto& piece : split(value, ',')) {
            const auto eq = piece.find('=');
            if (!first && eq != std::string::npos) {
                out.emplace_back(trim(piece.substr(0, eq)), trim(piece.substr(eq + 1)));
                continue;
            }
            auto& current = out.back().second;
            current += (first ? "" : ",") + trim(piece);
            first = false;
        }
    }
    return out;
}

}  // namespace

const std::vector<CornerSpec>& corners() {
    static const std::vector<CornerSpec> kCorners = {
        {"balanced", {0.10, 0.35, 0.60, 0.85}},
        {"short", {0.05, 0.15}},
        {"long", {0.75, 0.90, 0.97}},
    };
    return kCorners;
}

double largest_fill() {
    double most = 0.0;
    for (const auto& corner : corners())
        for (const double fill : corner.fills) most = std::max(most, fill);
    return most;
}

GeneratorParams parse_generator_params(
    const std::vector<std::pair<std::string, std::string>>& pairs) {
    GeneratorParams params;
    for (const auto& family : family_specs()) params.families.emplace_back(family.id);
    for (const auto& [key, value] : flatten(pairs)) {
        if (key == "corner") {
            params.corner = value;
        } else if (key == "families") {
            params.families.clear();
            for (const auto& piece : split(value, ',')) {
                const std::string id = upper(trim(piece));
                if (id.empty()) continue;
                if (!find_family(id))
                    invalid("unknown family '" + id + "' (families: " + family_list() + ")");
                if (std::find(params.families.begin(), params.families.end(), id) ==
                    params.families.end())
                    params.families.push_back(id);
            }
            if (params.families.empty()) invalid("families= names no family");
        } else if (key == "echo") {
            if (value == "1" || value == "true" || value == "yes")
                params.echo = true;
            else if (value == "0" || value == "false" || value == "no")
                params.echo = false;
            else
                invalid("echo must be 1 or 0, not '" + value + "'");
        } else if (key == "min_prompt_tokens") {
            // At most 10 digits: a count of tokens, never near the integer's limit.
            const bool digits = !value.empty() && value.size() <= 10 &&
                                value.find_first_not_of("0123456789") == std::string::npos;
            params.min_prompt_tokens = digits ? std::stoll(value) : 0;
            if (params.min_prompt_tokens < 1)
                invalid("min_prompt_tokens must be a whole number of tokens from 1, not '" + value +
                        "'");
        } else {
            invalid("unknown generator parameter '" + key +
                    "' (known: corner, families, echo, min_prompt_tokens)");
        }
    }
    for (const auto& corner : corners())
        if (corner.name == params.corner) params.fills = corner.fills;
    if (params.fills.empty())
        invalid("unknown corner '" + params.corner + "' (corners: balanced, short, long)");
    return params;
}

}  // namespace spark
