// The sentence bank (written for this plugin) and the walk through it.
#include "filler_text.hpp"

#include <algorithm>

namespace spark {

namespace {

// Fourteen sentences at most since a sentence was last used may not be used again.
constexpr std::size_t kNoRepeatWindow = 14;

}  // namespace

const std::vector<std::string>& filler_sentences() {
    static const std::vector<std::string> kBank = {
        "The morning started with a review of the open pull requests on the storage layer.",
        "Most of the comments asked for smaller functions and clearer names.",
        "One reviewer pointed out that the retry helper swallowed errors without logging them.",
        "The team agreed to keep the public interface stable until the next minor release.",
        "A flaky integration test was quarantined while someone traced its timing issue.",
        "The build cache had grown large, so the old entries were pruned by hand.",
        "Someone suggested replacing the custom parser with the standard library version.",
        "The discussion moved on to how configuration files should be validated at startup.",
        "Nobody wanted another global variable, so the setting was passed in explicitly.",
        "The linter flagged a shadowed variable in the request handler, and it was renamed.",
        "A new contributor asked where the coding guidelines lived, and got a link to the wiki.",
        "The nightly job failed once because the package mirror was briefly unreachable.",
        "After lunch the focus shifted to the migration of the billing tables.",
        "The schema change was split into two steps so that rollback stayed simple.",
        "Several functions still used the deprecated logging wrapper and were updated.",
        "The profiler showed that most of the time went into string formatting.",
        "A small cache in front of the lookup removed the hottest path from the profile.",
        "Code owners were added for the networking directory to speed up reviews.",
        "The release notes draft mentioned the new health endpoint and the removed flag.",
        "There was a short debate about tabs and spaces, which ended where it always does.",
        "The formatter configuration was committed so that editors would agree with the tool.",
        "An old feature toggle was finally deleted along with its dead branches.",
        "The error messages were reworded to say what the user can do next.",
        "Someone noticed that a test asserted nothing at all and added the missing checks.",
        "The dependency update brought a new major version of the HTTP client.",
        "Breaking changes in the client meant that timeouts had to be set differently.",
        "A helper that built URLs by hand was replaced with a proper builder.",
        "The monitoring dashboard gained a panel for queue depth and slow requests.",
        "Alert thresholds were tuned after two noisy pages during the previous week.",
        "The on-call notes were tidied up so the next person would find the runbook quickly.",
        "A design document for the plugin system was circulated for comments.",
        "The document proposed a narrow interface with versioned structures.",
        "Reviewers asked how old plugins would keep working after the structures grew.",
        "The answer was that new fields are only ever appended and sizes are checked.",
        "Memory ownership across the boundary was written down for every pointer.",
        "A quick prototype showed that loading a library at runtime was straightforward.",
        "The prototype was thrown away once it had answered its questions.",
        "Pair programming in the afternoon cleared a backlog of small refactors.",
        "A long function in the scheduler was broken into three named steps.",
        "The naming of those steps made a hidden ordering assumption obvious.",
        "That assumption was turned into an explicit check with a clear message.",
        "The continuous integration pipeline was split so that unit tests ran first.",
        "Slow tests moved to a separate stage that only runs on the main branch.",
        "Developers could still run everything locally with a single command.",
        "The container image lost several hundred megabytes after the cleanup.",
        "A security scanner reported an outdated compression library in the image.",
        "The base image was bumped and the scanner went quiet again.",
        "Somebody wrote a short guide on reading the flame graphs from the profiler.",
        "The guide included an example of a regression caught before release.",
        "Later the conversation turned to how errors should cross module boundaries.",
        "Exceptions would stay inside the core, and status codes would cross the boundary.",
        "The command line tool would print one line per error and exit with a known code.",
        "A reviewer asked for the exit codes to be documented in the help text.",
        "The help text was rewritten so that every flag had a one line description.",
        "Unused command line flags were removed after checking that no script used them.",
        "The test fixtures were regenerated with the new serializer and reviewed by diff.",
        "Golden files made the change easy to audit line by line.",
        "One golden file had captured a timestamp, so the comparison now ignores it.",
        "The coverage report showed a gap around the error paths of the loader.",
        "Broken fixtures were written on purpose to exercise each of those paths.",
        "Each broken fixture checks one specific message rather than any failure at all.",
        "The release branch was cut late in the afternoon after the last green run.",
        "A checklist for the release was copied from the previous one and updated.",
        "Documentation links were checked by a small script that follows every reference.",
        "Two links pointed at a renamed page and were fixed.",
        "The meeting at the end of the day was short and mostly about priorities.",
        "Performance work would wait until the correctness issues were closed.",
        "The backlog was sorted by user impact rather than by the age of the ticket.",
        "A few stale tickets were closed with a note explaining why.",
        "The next morning began with a failing build on one of the older compilers.",
        "The failure came from a missing include that newer compilers tolerated.",
        "Adding the include fixed the build, and a note was left for the reviewers.",
        "The team discussed whether to drop support for that compiler entirely.",
        "The decision was to keep it for one more release and announce the change.",
        "A refactor of the request parser made the validation rules easier to read.",
        "Each rule now lives next to the field it checks.",
        "Invalid input produces a message naming the field and the expected type.",
        "The fuzz harness found an input that made the parser loop for a long time.",
        "A depth limit on nested structures fixed the problem for good.",
        "The harness was added to the nightly jobs with a modest time budget.",
        "A reviewer suggested caching compiled patterns instead of building them per call.",
        "Benchmarks showed the cache helped only when inputs were large.",
        "The simpler version was kept, with a comment explaining the measurement.",
        "Somebody asked whether the logs should be structured or plain text.",
        "Plain text won for now, with a stable prefix that tools can filter on.",
        "The retry policy gained jitter so that clients would not stampede after an outage.",
        "Backoff limits were made configurable but kept conservative by default.",
        "A quick review of the error budget showed plenty of room this month.",
        "The storage team asked for a new metric about compaction pauses.",
        "The metric was added with a name that follows the existing convention.",
        "A small script now checks that every metric has help text.",
        "The afternoon ended with a walkthrough of the new onboarding checklist.",
        "New team members will pair with a mentor during their first week.",
        "The mentor rotation was written into the shared calendar.",
        "A flaky network test turned out to depend on the order of hash map iteration.",
        "Sorting the keys before comparing made the test deterministic.",
        "The same pattern was found in two other tests and fixed the same way.",
        "An idea for a faster diff algorithm was parked in the ideas document.",
        "The ideas document is reviewed once a month and pruned without mercy.",
        "A bug report described a crash when the input file was empty.",
        "The fix returns a clear error instead of reading past the end of the buffer.",
        "A regression test now feeds an empty file to the reader.",
        "The review queue was empty by the evening, which rarely happens.",
        "Somebody celebrated by deleting a directory of unused scripts.",
        "The deletion was reverted briefly when one script turned out to be used after all.",
        "That script was moved into the tools folder and given a proper name.",
        "The final task of the day was updating the changelog with every merged change.",
        "Each changelog entry links to the review that introduced it.",
    };
    return kBank;
}

const std::vector<std::string>& FillerStream::take(std::size_t count) {
    const auto& bank = filler_sentences();
    while (sentences_.size() < count) {
        // Draw until the sentence is outside the recent window; the bank is far larger than the
        // window, so this ends quickly and always the same way for the same seed.
        std::size_t index = 0;
        do {
            index = static_cast<std::size_t>(prng_.below(bank.size()));
        } while (std::find(order_.end() - static_cast<std::ptrdiff_t>(
                                              std::min(order_.size(), kNoRepeatWindow)),
                           order_.end(), index) != order_.end());
        order_.push_back(index);
        sentences_.push_back(bank[index]);
    }
    return sentences_;
}

bool paragraph_break_after(std::size_t sentence_index) {
    // Paragraph lengths cycle through 4, 6, 3, 5 sentences: irregular enough to read naturally.
    static constexpr std::size_t kLengths[] = {4, 6, 3, 5};
    static constexpr std::size_t kCycle = 4 + 6 + 3 + 5;
    std::size_t within = sentence_index % kCycle;
    for (const auto length : kLengths) {
        if (within + 1 == length) return true;
        if (within < length) return false;
        within -= length;
    }
    return false;
}

}  // namespace spark
