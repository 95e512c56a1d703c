// Code families: E4 (a planted function with one bug, to be returned fixed) and E5 (a planted
// module of small functions, one of which matches a description; the rest are decoys).
#include <algorithm>
#include <string>
#include <vector>

#include "needle.hpp"

namespace spark {

namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// A function template: `{f}` stands for its name. `fix` occurs exactly once in `code`; the
// planted version has `bug` in its place.
struct BugTemplate {
    std::vector<std::string> names;  // fitting names, one drawn per needle
    const char* code;
    const char* fix;
    const char* bug;
    const char* intent;  // what the function should do, for the question
    std::vector<std::pair<const char*, const char*>> equivalents;  // {canonical, alternative}
};

const std::vector<BugTemplate>& bug_templates() {
    static const std::vector<BugTemplate> kTemplates = {
        {{"sum_upto", "total_to_n"},
         "def {f}(n):\n    total = 0\n    for i in range(1, n + 1):\n        total += i\n"
         "    return total",
         "range(1, n + 1)",
         "range(1, n)",
         "should add up every integer from 1 to n inclusive",
         {{"range(1, n + 1)", "range(n + 1)"}, {"n + 1", "1 + n"}}},
        {{"largest", "peak_value"},
         "def {f}(values):\n    best = values[0]\n    for v in values:\n        if v > best:\n"
         "            best = v\n    return best",
         "if v > best:",
         "if v < best:",
         "should return the largest value in the list",
         {{"v > best", "best < v"}}},
        {{"count_even", "even_count"},
         "def {f}(values):\n    count = 0\n    for v in values:\n        if v % 2 == 0:\n"
         "            count += 1\n    return count",
         "if v % 2 == 0:",
         "if v % 2 == 1:",
         "should count how many values are even",
         {{"v % 2 == 0", "0 == v % 2"}, {"v % 2 == 0", "not v % 2"}}},
        {{"multiply_all", "product_of"},
         "def {f}(values):\n    product = 1\n    for v in values:\n        product *= v\n"
         "    return product",
         "product = 1",
         "product = 0",
         "should multiply all the values together",
         {}},
        {{"mean_value", "average_of"},
         "def {f}(values):\n    if not values:\n        return 0\n"
         "    return sum(values) / len(values)",
         "return sum(values) / len(values)",
         "return sum(values) * len(values)",
         "should return the mean of the values, or 0 for an empty list",
         {}},
        {{"clamp_value", "bounded"},
         "def {f}(x, low, high):\n    if x < low:\n        return low\n    if x > high:\n"
         "        return high\n    return x",
         "if x > high:\n        return high",
         "if x > high:\n        return low",
         "should limit x to the range from low to high",
         {{"x < low", "low > x"}, {"x > high", "high < x"}}},
    };
    return kTemplates;
}

// One behaviour for E5: its body (with `{f}`), the description asked for, and a sibling that
// differs only slightly (the most tempting decoy), as an index into the table or -1.
struct Behaviour {
    const char* code;
    const char* description;
    int sibling;
};

const std::vector<Behaviour>& behaviours() {
    static const std::vector<Behaviour> kBehaviours = {
        {"def {f}(values):\n    return sum(v for v in values if v % 2 == 0)",
         "returns the sum of the even numbers in a list", 1},
        {"def {f}(values):\n    return sum(v for v in values if v % 2 == 1)",
         "returns the sum of the odd numbers in a list", 0},
        {"def {f}(values):\n    return len([v for v in values if v < 0])",
         "counts the negative numbers in a list", 3},
        {"def {f}(values):\n    return len([v for v in values if v > 0])",
         "counts the positive numbers in a list", 2},
        {"def {f}(text):\n    return text[::-1]", "returns the text reversed", 5},
        {"def {f}(text):\n    return text == text[::-1]",
         "checks whether the text reads the same backwards", 4},
        {"def {f}(values):\n    return max(values)", "returns the largest value", 7},
        {"def {f}(values):\n    return min(values)", "returns the smallest value", 6},
        {"def {f}(values):\n    seen = []\n    for v in values:\n        if v not in seen:\n"
         "            seen.append(v)\n    return seen",
         "removes duplicates while keeping the original order", 9},
        {"def {f}(values):\n    return sorted(values, reverse=True)",
         "sorts the values from largest to smallest", 8},
        {"def {f}(text):\n    return sum(1 for c in text.lower() if c in \"aeiou\")",
         "counts the vowels in the text", -1},
        {"def {f}(words):\n    return \"-\".join(words)", "joins the words with dashes", 12},
        {"def {f}(text):\n    return text.split(\",\")", "splits the text at every comma", 11},
    };
    return kBehaviours;
}

const std::vector<std::string> kPrefixes = {"calc", "proc", "util", "step", "task", "op"};
const std::vector<std::string> kStems = {
    "amber", "brisk", "cinder", "dune", "ember", "flint", "grove", "haze",  "ivory", "jade",
    "kelp",  "lumen", "moss",   "onyx", "quill", "reed",  "slate", "thorn", "vale",  "wisp"};

}  // namespace

Needle make_e4_fix_bug(Prng& prng) {
    const BugTemplate& t = prng.pick(bug_templates());
    const std::string name = prng.pick(t.names);
    const std::string fixed = replace_all(t.code, "{f}", name);
    std::string buggy = fixed;
    buggy.replace(buggy.find(t.fix), std::string(t.fix).size(), t.bug);
    Needle n;
    n.text =
        "This helper from the utilities module was flagged in review:\n" + fenced_python(buggy);
    n.question = "The function " + name + " in the notes has exactly one bug: it " + t.intent +
                 ". Return only the corrected function in a Python code block.";
    Json equivalents = json_array();
    for (const auto& [canonical, alternative] : t.equivalents)
        push_item(equivalents, string_list({canonical, alternative}));
    n.expected = json_object();
    set_member(n.expected, "type", json_string("code_fix"));
    set_member(n.expected, "function", json_string(name));
    set_member(n.expected, "fixed", json_string(fixed));
    set_member(n.expected, "fix", json_string(t.fix));
    set_member(n.expected, "bug", json_string(t.bug));
    set_member(n.expected, "equivalents", std::move(equivalents));
    n.reference = fenced_python(fixed);
    return n;
}

Needle make_e5_find_function(Prng& prng) {
    constexpr std::size_t kFunctions = 5;
    const auto& table = behaviours();
    const std::size_t target = static_cast<std::size_t>(prng.below(table.size()));
    // The target, its sibling when it has one, then other behaviours to fill the module.
    std::vector<std::size_t> chosen{target};
    if (table[target].sibling >= 0)
        chosen.push_back(static_cast<std::size_t>(table[target].sibling));
    for (const auto index : prng.distinct(table.size(), table.size())) {
        if (chosen.size() == kFunctions) break;
        if (std::find(chosen.begin(), chosen.end(), index) == chosen.end()) chosen.push_back(index);
    }
    // Shuffle the module order so the target is not always first.
    const auto order = prng.distinct(chosen.size(), chosen.size());
    const auto stem_indices = prng.distinct(chosen.size(), kStems.size());
    std::vector<std::string> names;
    std::string module;
    std::string answer;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const std::size_t behaviour = chosen[order[i]];
        const std::string name = prng.pick(kPrefixes) + "_" + kStems[stem_indices[i]];
        names.push_back(name);
        if (behaviour == target) answer = name;
        module += (i ? "\n" : "") + replace_all(table[behaviour].code, "{f}", name);
    }
    Needle n;
    n.text =
        "The new helpers module under review contains these functions:\n" + fenced_python(module);
    n.question = std::string("Which function in the helpers module from the notes ") +
                 table[target].description + "? Reply with the function name only.";
    n.expected = json_object();
    set_member(n.expected, "type", json_string("identifier"));
    set_member(n.expected, "answer", json_string(answer));
    set_member(n.expected, "candidates", string_list(names));
    n.reference = answer;
    return n;
}

}  // namespace spark
