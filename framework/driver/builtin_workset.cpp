#include "builtin_workset.hpp"

#include <string>

namespace bi::driver {

namespace {

struct Seed {
    const char* family;
    const char* prompt;
    const char* answer;
};

// Short, self-contained questions with one exact answer each, in four families.
const Seed kSeeds[] = {
    {"recall", "The vault code is 7141. Repeat the vault code and nothing else.", "7141"},
    {"recall", "Remember the word 'lantern'. Which word were you asked to remember?", "lantern"},
    {"recall", "The build tag is rc-42. Reply with the build tag only.", "rc-42"},
    {"recall", "Our project is called Quarry. What is our project called? One word.", "Quarry"},
    {"recall", "The server listens on port 8088. Which port? Digits only.", "8088"},
    {"recall", "Agent Blue carries the red key. Which colour is the key? One word.", "red"},
    {"recall", "Store the id X9-Z. What was the stored id? Reply with it exactly.", "X9-Z"},
    {"recall", "The release ships on Tuesday. On which day? One word.", "Tuesday"},
    {"arith", "What is 17 + 25? Digits only.", "42"},
    {"arith", "What is 9 times 8? Digits only.", "72"},
    {"arith", "What is 100 minus 37? Digits only.", "63"},
    {"arith", "What is 144 divided by 12? Digits only.", "12"},
    {"arith", "A box holds 6 eggs. How many eggs are in 7 boxes? Digits only.", "42"},
    {"arith", "What is 2 to the power of 10? Digits only.", "1024"},
    {"arith", "Start at 5, double it, then add 3. Digits only.", "13"},
    {"arith", "What is 999 + 1? Digits only.", "1000"},
    {"code", "In Python, what does len([1, 2, 3]) return? Digits only.", "3"},
    {"code", "Which Python keyword defines a function? One word.", "def"},
    {"code", "In C, which header declares printf? Reply like name.h.", "stdio.h"},
    {"code", "What does the shell command pwd print? Answer in three words.",
     "the working directory"},
    {"code", "In JSON, what literal means no value? One word.", "null"},
    {"code", "Which git command records staged changes? One word.", "commit"},
    {"code", "What is the file extension of a C++ header we use? Reply like .ext.", ".hpp"},
    {"code", "In Python, what is the value of 7 // 2? Digits only.", "3"},
    {"format", "Reply with the word yes in lower case and nothing else.", "yes"},
    {"format", "Reply with OK in upper case and nothing else.", "OK"},
    {"format", "Write the letters a, b and c with no spaces or commas.", "abc"},
    {"format", "Reply with an empty JSON object.", "{}"},
    {"format", "Reply with the number seven as digits.", "7"},
    {"format", "Spell the word cat backwards.", "tac"},
    {"format", "Reply with the first letter of the alphabet.", "a"},
    {"format", "Reply with true or false: two is greater than one.", "true"},
};

}  // namespace

std::vector<core::WorkRow> builtin_work_rows() {
    std::vector<core::WorkRow> rows;
    int index = 0;
    for (const auto& seed : kSeeds) {
        core::WorkRow row;
        row.family = seed.family;
        row.prompt = seed.prompt;
        row.expected_answer = std::string(seed.answer);
        row.fill = 0.05 * (1 + index++ % 4);  // four nominal fill levels for the by_fill table
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace bi::driver
