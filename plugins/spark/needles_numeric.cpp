// Numeric families: A4 (a chain of updates to one variable), B1 (a product of two planted
// quantities) and C1 (a planted Python function evaluated on an input). The plugin computes
// every answer itself, with Python's semantics on the non-negative values it generates.
#include <string>
#include <vector>

#include "needle.hpp"

namespace spark {

namespace {

Json integer_answer(std::int64_t value) {
    Json expected = json_object();
    set_member(expected, "type", json_string("integer"));
    set_member(expected, "answer", json_integer(value));
    return expected;
}

const std::vector<std::string> kVariables = {"alpha_counter", "batch_total", "retry_budget",
                                             "queue_depth",   "page_offset", "slot_index",
                                             "token_budget",  "cache_hits",  "lease_count"};

struct Container {
    const char* singular;
    const char* plural;
    const char* contents;
};

const std::vector<Container> kContainers = {
    {"rack", "racks", "servers"},      {"crate", "crates", "test devices"},
    {"shelf", "shelves", "disks"},     {"cluster", "clusters", "nodes"},
    {"bundle", "bundles", "licenses"}, {"tray", "trays", "circuit boards"}};

const std::vector<std::string> kTeams = {"platform", "mobile", "data",     "billing",
                                         "search",   "infra",  "security", "tooling"};

const std::vector<std::string> kFunctionNames = {"scale_offset", "mix_steps",    "fold_values",
                                                 "tally_hits",   "shift_budget", "weigh_batch",
                                                 "spin_counter", "trim_total"};

std::string list_literal(const std::vector<std::int64_t>& values) {
    std::string out = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
        out += (i ? ", " : "") + std::to_string(values[i]);
    return out + "]";
}

}  // namespace

Needle make_a4_chained_arithmetic(Prng& prng) {
    const std::string name = prng.pick(kVariables);
    std::int64_t value = prng.between(3, 40);
    std::string text = "While tracing the scheduler, the variable " + name + " was set to " +
                       std::to_string(value) + ".";
    const std::int64_t steps = prng.between(3, 4);
    for (std::int64_t i = 0; i < steps; ++i) {
        std::int64_t kind = prng.between(0, 2);  // 0 add, 1 multiply, 2 subtract
        if (kind == 2 && value < 2) kind = 0;
        if (kind == 1 && value > 5000) kind = 2;
        const char* lead = i == 0 ? " Then " : (i + 1 == steps ? " Finally " : " Next ");
        if (kind == 0) {
            const std::int64_t add = prng.between(2, 30);
            value += add;
            text += std::string(lead) + std::to_string(add) + " was added to it.";
        } else if (kind == 1) {
            const std::int64_t factor = prng.between(2, 6);
            value *= factor;
            text += std::string(lead) + "it was multiplied by " + std::to_string(factor) + ".";
        } else {
            const std::int64_t sub = prng.between(1, std::min<std::int64_t>(20, value - 1));
            value -= sub;
            text += std::string(lead) + std::to_string(sub) + " was subtracted from it.";
        }
    }
    Needle n;
    n.text = text;
    n.question = "Following the steps in the notes, what is the final value of " + name +
                 "? Reply with a single integer.";
    n.expected = integer_answer(value);
    n.reference = std::to_string(value);
    return n;
}

Needle make_b1_two_step_product(Prng& prng) {
    const Container& container = prng.pick(kContainers);
    const std::string team = prng.pick(kTeams);
    const std::int64_t each = prng.between(3, 48);
    const std::int64_t count = prng.between(3, 48);
    Needle n;
    n.text = std::string("Capacity planning note: each ") + container.singular + " in the " + team +
             " test lab holds " + std::to_string(each) + " " + container.contents + ", and the " +
             team + " team has requested " + std::to_string(count) + " " + container.plural +
             " for the load test.";
    n.question = std::string("How many ") + container.contents + " did the " + team +
                 " team request in total? Reply with a single integer.";
    n.expected = integer_answer(each * count);
    n.reference = std::to_string(each * count);
    return n;
}

Needle make_c1_evaluate_function(Prng& prng) {
    const std::string name = prng.pick(kFunctionNames);
    std::string code;
    std::string call;
    std::int64_t result = 0;
    switch (prng.below(4)) {
        case 0: {
            const std::int64_t a = prng.between(2, 9);
            const std::int64_t t = prng.between(10, 60);
            const std::int64_t b = prng.between(1, 9);
            const std::int64_t c = prng.between(1, 15);
            const std::int64_t n = prng.between(2, 20);
            code = "def " + name + "(n):\n    total = n * " + std::to_string(a) +
                   "\n    if total > " + std::to_string(t) + ":\n        total = total - " +
                   std::to_string(b) + "\n    return total + " + std::to_string(c);
            call = name + "(" + std::to_string(n) + ")";
            std::int64_t total = n * a;
            if (total > t) total -= b;
            result = total + c;
            break;
        }
        case 1: {
            const std::int64_t start = prng.between(0, 20);
            const std::int64_t a = prng.between(2, 7);
            const std::int64_t n = prng.between(3, 12);
            code = "def " + name + "(n):\n    acc = " + std::to_string(start) +
                   "\n    for i in range(n):\n        acc = acc + i * " + std::to_string(a) +
                   "\n    return acc";
            call = name + "(" + std::to_string(n) + ")";
            result = start;
            for (std::int64_t i = 0; i < n; ++i) result += i * a;
            break;
        }
        case 2: {
            const std::int64_t k = prng.between(2, 5);
            const std::int64_t m = prng.between(7, 97);
            const std::int64_t n = prng.between(1, 15);
            code = "def " + name + "(n):\n    result = 1\n    for _ in range(" + std::to_string(k) +
                   "):\n        result = result * 2 + n\n    return result % " + std::to_string(m);
            call = name + "(" + std::to_string(n) + ")";
            std::int64_t r = 1;
            for (std::int64_t i = 0; i < k; ++i) r = r * 2 + n;
            result = r % m;
            break;
        }
        default: {
            const std::int64_t d = prng.between(2, 5);
            std::vector<std::int64_t> values;
            const std::int64_t length = prng.between(5, 8);
            for (std::int64_t i = 0; i < length; ++i) values.push_back(prng.between(1, 40));
            code = "def " + name +
                   "(values):\n    count = 0\n    for v in values:\n        if v % " +
                   std::to_string(d) + " == 0:\n            count += v\n    return count";
            call = name + "(" + list_literal(values) + ")";
            for (const auto v : values)
                if (v % d == 0) result += v;
            break;
        }
    }
    Needle n;
    n.text = "A teammate pasted this helper into the chat while debugging:\n" + fenced_python(code);
    n.question = "What does " + call + " return, given the function " + name +
                 " from the notes? Reply with a single integer.";
    n.expected = integer_answer(result);
    n.reference = std::to_string(result);
    return n;
}

}  // namespace spark
