// Structured-output families: E2 (a JSON object with typed fields, nothing else) and E3 (one
// tool call as JSON, chosen among several tool schemas).
#include <string>
#include <vector>

#include "needle.hpp"

namespace spark {

namespace {

const std::vector<std::string> kReporters = {"Okafor",   "Lindqvist", "Marchetti", "Haddad",
                                             "Nakamura", "Brennan",   "Sokolova",  "Adeyemi"};
const std::vector<std::string> kRepos = {"atlas-api",   "orbit-web", "quartz-cli",
                                         "nimbus-core", "ember-ui",  "vector-store"};
const std::vector<std::string> kTitles = {"Flaky upload test",    "Slow login page",
                                          "Broken export button", "Stale cache entries",
                                          "Missing audit events", "Wrong timezone in reports"};
const std::vector<std::string> kScalable = {"checkout",    "search", "ledger",
                                            "thumbnailer", "mailer", "indexer"};
const std::vector<std::string> kRegions = {"eu-west", "us-east", "ap-south", "eu-north"};

constexpr const char* kToolList =
    "You can call these tools:\n"
    "- create_branch(repo: string, name: string, from_commit: string, protected: boolean)\n"
    "- open_issue(repo: string, title: string, priority: integer)\n"
    "- scale_service(service: string, replicas: integer, region: string, dry_run: boolean)\n";

std::string hex_commit(Prng& prng) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string sha;
    for (int i = 0; i < 7; ++i) sha += kHex[prng.below(16)];
    // A short hash of letters only would read like a word; keep one digit in it.
    if (sha.find_first_of("0123456789") == std::string::npos) sha[3] = kHex[prng.below(10)];
    return sha;
}

Json tool_call(const std::string& name, Json arguments) {
    Json expected = json_object();
    set_member(expected, "type", json_string("tool_call"));
    set_member(expected, "name", json_string(name));
    set_member(expected, "arguments", std::move(arguments));
    return expected;
}

}  // namespace

Needle make_e2_json_only(Prng& prng) {
    const std::string ticket = "BUG-" + std::to_string(prng.between(1000, 9999));
    const std::string reporter = prng.pick(kReporters);
    const std::int64_t priority = prng.between(1, 4);
    const bool blocking = prng.coin();
    const std::int64_t files = prng.between(2, 19);
    Needle n;
    n.text = "Ticket note: ticket " + ticket + " was filed by " + reporter + ", it has priority " +
             std::to_string(priority) + ", it " + (blocking ? "blocks" : "does not block") +
             " the release, and the fix touches " + std::to_string(files) + " files.";
    n.question =
        "Using the ticket note from the notes, reply with a JSON object only, with exactly these "
        "fields: \"ticket\" (string), \"reporter\" (string), \"priority\" (integer), "
        "\"blocking\" (boolean), \"files\" (integer).";
    Json fields = json_object();
    set_member(fields, "ticket", json_string(ticket));
    set_member(fields, "reporter", json_string(reporter));
    set_member(fields, "priority", json_integer(priority));
    set_member(fields, "blocking", json_boolean(blocking));
    set_member(fields, "files", json_integer(files));
    n.expected = json_object();
    set_member(n.expected, "type", json_string("json"));
    n.reference = to_json(fields);
    set_member(n.expected, "fields", std::move(fields));
    return n;
}

Needle make_e3_tool_call(Prng& prng) {
    Needle n;
    Json arguments = json_object();
    std::string name;
    switch (prng.below(3)) {
        case 0: {
            const std::string repo = prng.pick(kRepos);
            const std::string branch = "hotfix-" + std::to_string(prng.between(100, 999));
            const std::string sha = hex_commit(prng);
            const bool protect = prng.coin();
            name = "create_branch";
            n.text = "The release manager asked for a new branch named " + branch +
                     " in the repository " + repo + ", starting from commit " + sha + ", and it " +
                     (protect ? "must be protected." : "should not be protected.");
            set_member(arguments, "repo", json_string(repo));
            set_member(arguments, "name", json_string(branch));
            set_member(arguments, "from_commit", json_string(sha));
            set_member(arguments, "protected", json_boolean(protect));
            break;
        }
        case 1: {
            const std::string repo = prng.pick(kRepos);
            std::string title = prng.pick(kTitles);
            title += " " + std::to_string(prng.between(2, 99));
            const std::int64_t priority = prng.between(1, 5);
            name = "open_issue";
            n.text = "A request came in to open an issue in the repository " + repo + " titled \"" +
                     title + "\" with priority " + std::to_string(priority) + ".";
            set_member(arguments, "repo", json_string(repo));
            set_member(arguments, "title", json_string(title));
            set_member(arguments, "priority", json_integer(priority));
            break;
        }
        default: {
            const std::string service = prng.pick(kScalable);
            const std::int64_t replicas = prng.between(2, 24);
            const std::string region = prng.pick(kRegions);
            const bool dry_run = prng.coin();
            name = "scale_service";
            n.text = "Operations asked to scale the " + service + " service to " +
                     std::to_string(replicas) + " replicas in region " + region + ", " +
                     (dry_run ? "as a dry run only." : "for real, not as a dry run.");
            set_member(arguments, "service", json_string(service));
            set_member(arguments, "replicas", json_integer(replicas));
            set_member(arguments, "region", json_string(region));
            set_member(arguments, "dry_run", json_boolean(dry_run));
            break;
        }
    }
    n.question = std::string(kToolList) +
                 "Make the one tool call that carries out the request recorded in the notes. "
                 "Reply with only a JSON object of the form {\"name\": <tool name>, "
                 "\"arguments\": {...}}.";
    Json call = json_object();
    set_member(call, "name", json_string(name));
    set_member(call, "arguments", json_copy(arguments));
    n.reference = to_json(call);
    n.expected = tool_call(name, std::move(arguments));
    return n;
}

}  // namespace spark
