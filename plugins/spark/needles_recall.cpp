// Recall families: A2 (one planted code), D1 (three facts, answered as bullets) and E1 (several
// settings out of many planted ones).
#include <string>
#include <vector>

#include "needle.hpp"

namespace spark {

namespace {

const std::vector<std::string> kServices = {"payments",  "search",   "ledger",  "notifications",
                                            "inventory", "checkout", "reports", "identity",
                                            "media",     "gateway",  "billing", "analytics"};

const std::vector<std::string> kSurnames = {"Okafor",   "Lindqvist", "Marchetti", "Haddad",
                                            "Nakamura", "Brennan",   "Sokolova",  "Adeyemi",
                                            "Castillo", "Virtanen",  "Duarte",    "Kowalczyk"};

const std::vector<std::string> kSystems = {"billing",       "search index",   "audit log",
                                           "user profile",  "payment ledger", "asset store",
                                           "session store", "metrics archive"};

// Letters that cannot be mistaken for digits.
char code_letter(Prng& prng) {
    static constexpr char kLetters[] = "ABCDEFGHJKLMNPQRSTUVWXYZ";
    return kLetters[prng.below(sizeof kLetters - 1)];
}

std::string make_code(Prng& prng) {
    std::string code;
    code += code_letter(prng);
    code += code_letter(prng);
    code += '-' + std::to_string(prng.between(1000, 9999)) + '-';
    code += code_letter(prng);
    code += code_letter(prng);
    return code;
}

struct Setting {
    const char* key;
    bool numeric;  // a number, else a word
};

const std::vector<Setting> kSettings = {
    {"max_retries", true},       {"cache_ttl", true},       {"log_level", false},
    {"shard_count", true},       {"batch_size", true},      {"timeout_ms", true},
    {"region_tag", false},       {"queue_name", false},     {"replica_count", true},
    {"build_channel", false},    {"pool_size", true},       {"flush_interval", true},
    {"owner_team", false},       {"api_version", true},     {"worker_threads", true},
    {"upload_limit", true},      {"cipher_profile", false}, {"backup_window", false},
    {"release_codename", false}, {"page_size", true},       {"warmup_rounds", true},
    {"archive_tier", false},     {"probe_interval", true},  {"default_theme", false}};

const std::vector<std::string> kWords = {"amber",  "cobalt", "delta",   "ember",   "falcon",
                                         "garnet", "harbor", "indigo",  "juniper", "kestrel",
                                         "lagoon", "meadow", "nimbus",  "orchid",  "pebble",
                                         "quartz", "raven",  "saffron", "tundra",  "willow"};

}  // namespace

Needle make_a2_code_recall(Prng& prng) {
    const std::string service = prng.pick(kServices);
    const std::string code = make_code(prng);
    Needle n;
    n.text = "During the incident review it came up that the deploy key for the " + service +
             " service was rotated, and the new deploy key is \"" + code + "\".";
    n.question = "What is the new deploy key for the " + service +
                 " service? Reply with the key only, wrapped in double quotes.";
    n.expected = json_object();
    set_member(n.expected, "type", json_string("exact"));
    set_member(n.expected, "answer", json_string(code));
    n.reference = "\"" + code + "\"";
    return n;
}

Needle make_d1_three_facts(Prng& prng) {
    const std::string system = prng.pick(kSystems);
    const std::string day = std::to_string(prng.between(11, 29));
    const std::string tables = std::to_string(prng.between(120, 980));
    const std::string owner = prng.pick(kSurnames);
    Needle n;
    n.text = "Status of the " + system + " migration: it finished on day " + day +
             " of the sprint, it moved " + tables + " tables in total, and its owner is " + owner +
             ".";
    n.question = "Summarise the status of the " + system +
                 " migration from the notes as exactly three bullet points, one fact per bullet.";
    n.expected = json_object();
    set_member(n.expected, "type", json_string("facts"));
    set_member(n.expected, "facts", string_list({day, tables, owner}));
    n.reference = "- It finished on day " + day + " of the sprint.\n- It moved " + tables +
                  " tables.\n- Its owner is " + owner + ".";
    return n;
}

Needle make_e1_multi_key_recall(Prng& prng) {
    constexpr std::size_t kPlanted = 12;
    constexpr std::size_t kAsked = 3;
    const auto chosen = prng.distinct(kPlanted, kSettings.size());
    const auto words = prng.distinct(kPlanted, kWords.size());  // no two settings share a word
    std::vector<std::string> keys;
    std::vector<std::string> values;
    Needle n;
    n.text = "The deployment notes list these settings.";
    for (std::size_t i = 0; i < chosen.size(); ++i) {
        const Setting& setting = kSettings[chosen[i]];
        std::string value =
            setting.numeric ? std::to_string(prng.between(2, 999)) : kWords[words[i]];
        n.text += std::string(" Setting ") + setting.key + " is " + value + ".";
        keys.emplace_back(setting.key);
        values.push_back(std::move(value));
    }
    const auto asked = prng.distinct(kAsked, kPlanted);
    Json answer = json_object();
    std::string reference = "{";
    for (std::size_t i = 0; i < asked.size(); ++i) {
        set_member(answer, keys[asked[i]], json_string(values[asked[i]]));
        reference += (i ? ", \"" : "\"") + keys[asked[i]] + "\": \"" + values[asked[i]] + "\"";
    }
    reference += "}";
    n.question = "Report the values of the settings " + keys[asked[0]] + ", " + keys[asked[1]] +
                 " and " + keys[asked[2]] +
                 " from the notes. Reply with a JSON object that maps each setting name to its "
                 "value.";
    n.expected = json_object();
    set_member(n.expected, "type", json_string("keys"));
    set_member(n.expected, "keys", std::move(answer));
    n.reference = reference;
    return n;
}

}  // namespace spark
