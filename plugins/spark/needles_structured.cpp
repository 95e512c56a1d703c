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

JsonValue tool_call(const std::string& name, JsonValue arguments) {
    JsonValue expected = JsonValue::object();
    expected.set("type", JsonValue::string("tool_call"));
    expected.set("name", JsonValue::string(name));
    expected.set("arguments", std::move(arguments));
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
    JsonValue fields = JsonValue::object();
    fields.set("ticket", JsonValue::string(ticket));
    fields.set("reporter", JsonValue::string(reporter));
    fields.set("priority", JsonValue::integer(priority));
    fields.set("blocking", JsonValue::boolean(blocking));
    fields.set("files", JsonValue::integer(files));
    n.expected = JsonValue::object();
    n.expected.set("type", JsonValue::string("json"));
    n.expected.set("fields", fields);
    n.reference = to_json(fields);
    return n;
}

Needle make_e3_tool_call(Prng& prng) {
    Needle n;
    JsonValue arguments = JsonValue::object();
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
            arguments.set("repo", JsonValue::string(repo));
            arguments.set("name", JsonValue::string(branch));
            arguments.set("from_commit", JsonValue::string(sha));
            arguments.set("protected", JsonValue::boolean(protect));
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
            arguments.set("repo", JsonValue::string(repo));
            arguments.set("title", JsonValue::string(title));
            arguments.set("priority", JsonValue::integer(priority));
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
            arguments.set("service", JsonValue::string(service));
            arguments.set("replicas", JsonValue::integer(replicas));
            arguments.set("region", JsonValue::string(region));
            arguments.set("dry_run", JsonValue::boolean(dry_run));
            break;
        }
    }
    n.question = std::string(kToolList) +
                 "Make the one tool call that carries out the request recorded in the notes. "
                 "Reply with only a JSON object of the form {\"name\": <tool name>, "
                 "\"arguments\": {...}}.";
    JsonValue call = JsonValue::object();
    call.set("name", JsonValue::string(name));
    call.set("arguments", arguments);
    n.reference = to_json(call);
    n.expected = tool_call(name, std::move(arguments));
    return n;
}

}  // namespace spark
