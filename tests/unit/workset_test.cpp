// Work-set files: the accepted shapes, the defaults, and an exact message for each bad input.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "io/json_text.hpp"
#include "io/workset.hpp"
#include "scratch_dir.hpp"

using bi::core::Json;
using bi::io::rows_from_json;

namespace {

std::vector<bi::core::WorkRow> rows_of(const std::string& text) {
    return rows_from_json(bi::io::parse_json(text, "ws.json"), "ws.json");
}

std::string error_of(const std::string& text) {
    try {
        rows_of(text);
    } catch (const bi::Error& e) {
        CHECK(e.category() == bi::ErrorCategory::Input);
        return e.what();
    }
    FAIL("no error for " << text);
    return {};
}

}  // namespace

TEST_CASE("every alias of prompt and fill is accepted", "[workset]") {
    const auto rows = rows_of(R"([
        {"prompt": "p0", "fill": 0.25, "family": "A", "expected_answer": "x"},
        {"item": "p1", "fill_ratio": 0.5, "family": "B", "expected_answer": 3},
        {"prompt_text": "p2", "fill": 1, "family": "C", "expected_answer": {"k": [1, true]},
         "system": "be brief"}])");
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].prompt == "p0");
    CHECK(rows[0].fill == 0.25);
    CHECK(rows[0].expected_answer == Json("x"));
    CHECK(rows[1].prompt == "p1");
    CHECK(rows[1].fill == 0.5);
    CHECK(rows[1].expected_answer == Json(3));
    CHECK(rows[2].prompt == "p2");
    CHECK(rows[2].fill == 1.0);
    CHECK(rows[2].system == "be brief");
    CHECK(rows[2].expected_answer == bi::io::parse_json(R"({"k": [1, true]})", "x"));
}

TEST_CASE("optional fields take their documented defaults", "[workset]") {
    const auto rows = rows_of(R"([{"prompt": "only a prompt", "note": "ignored"}])");
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].family == "default");
    CHECK(rows[0].fill == 0.0);
    CHECK(rows[0].system.empty());
    CHECK(rows[0].expected_answer.is_null());
}

TEST_CASE("the document must be a non-empty list", "[workset]") {
    CHECK(error_of("[]") == "ws.json: the work-set is empty");
    CHECK(error_of(R"({"prompt": "x"})") ==
          "ws.json: a work-set is a JSON array of rows, got object");
    CHECK(error_of("\"rows\"") == "ws.json: a work-set is a JSON array of rows, got string");
}

TEST_CASE("bad rows name the row and the field", "[workset]") {
    CHECK(error_of(R"([{"prompt": "ok"}, 7])") ==
          "ws.json: rows[1]: expected an object or a string, got integer");
    CHECK(error_of(R"(["ok", ""])") == "ws.json: rows[1]: must not be an empty string");
    CHECK(error_of(R"([{"family": "A"}])") ==
          "ws.json: rows[0].prompt: missing (give one of: prompt, item, prompt_text)");
    CHECK(error_of(R"([{"prompt": ""}])") == "ws.json: rows[0].prompt: must not be empty");
    CHECK(error_of(R"([{"prompt": "a", "item": "b"}])") ==
          "ws.json: rows[0].item: also given as 'prompt'; use one of them");
    CHECK(error_of(R"([{"prompt": "a", "fill": 0.1, "fill_ratio": 0.2}])") ==
          "ws.json: rows[0].fill_ratio: also given as 'fill'; use one of them");
}

TEST_CASE("wrong types and ranges are refused", "[workset]") {
    CHECK(error_of(R"([{"prompt": 5}])") ==
          "ws.json: rows[0].prompt: expected a string, got integer");
    CHECK(error_of(R"([{"item": ["x"]}])") ==
          "ws.json: rows[0].item: expected a string, got array");
    CHECK(error_of(R"([{"prompt": "a", "fill": "0.5"}])") ==
          "ws.json: rows[0].fill: expected a number, got string");
    CHECK(error_of(R"([{"prompt": "a", "fill_ratio": true}])") ==
          "ws.json: rows[0].fill_ratio: expected a number, got bool");
    CHECK(error_of(R"([{"prompt": "a", "fill": 1.5}])") ==
          "ws.json: rows[0].fill: must be between 0 and 1, got 1.5");
    CHECK(error_of(R"([{"prompt": "a", "fill": -0.1}])") ==
          "ws.json: rows[0].fill: must be between 0 and 1, got -0.1");
    CHECK(error_of(R"([{"prompt": "a", "family": 3}])") ==
          "ws.json: rows[0].family: expected a string, got integer");
    CHECK(error_of(R"([{"prompt": "a", "family": ""}])") ==
          "ws.json: rows[0].family: must not be empty");
    CHECK(error_of(R"([{"prompt": "a", "system": null}])") ==
          "ws.json: rows[0].system: expected a string, got null");
}

TEST_CASE("load_workset_file names the file in every error", "[workset]") {
    const bi::testing::ScratchDir dir;
    const auto good = dir.write("good.json", R"([{"prompt": "hello", "expected_answer": "hi"}])");
    CHECK(bi::io::load_workset_file(good).size() == 1);

    const auto bad = dir.write("bad.json", R"([{"prompt": "hello", "fill": "x"}])");
    CHECK_THROWS_WITH(bi::io::load_workset_file(bad),
                      bad + ": rows[0].fill: expected a number, got string");
    const auto broken = dir.write("broken.json", "[{");
    CHECK_THROWS_WITH(bi::io::load_workset_file(broken),
                      Catch::StartsWith(broken + ": invalid JSON"));
    CHECK_THROWS_WITH(bi::io::load_workset_file(dir.file("absent.json")),
                      Catch::StartsWith("cannot read " + dir.file("absent.json")));
}

TEST_CASE("written work-sets load back unchanged and byte-identically", "[workset]") {
    const auto rows = rows_of(R"([
        {"item": "p1", "fill_ratio": 0.35, "family": "B", "expected_answer": [1, "two"]},
        {"prompt": "p2", "expected_answer": null, "system": "s"}])");
    const std::string text = bi::io::workset_to_json_text(rows);
    CHECK(text.back() == '\n');
    CHECK(text.find("\"prompt\": \"p1\"") != std::string::npos);  // the canonical key names
    CHECK(text.find("\"fill\": 0.35") != std::string::npos);
    const auto again = rows_of(text);
    REQUIRE(again.size() == rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        CHECK(again[i].prompt == rows[i].prompt);
        CHECK(again[i].family == rows[i].family);
        CHECK(again[i].fill == rows[i].fill);
        CHECK(again[i].system == rows[i].system);
        CHECK(again[i].expected_answer == rows[i].expected_answer);
    }
    CHECK(bi::io::workset_to_json_text(again) == text);
}

TEST_CASE("the example work-set in examples/ loads", "[workset]") {
    const auto rows = bi::io::load_workset_file(BI_EXAMPLE_WORKSET);
    CHECK(rows.size() >= 4);
}

TEST_CASE("a work-set byte that is not UTF-8 is refused naming its row and offset", "[workset]") {
    bi::testing::ScratchDir dir;
    const std::string path = dir.write(
        "ws.json", "[{\"prompt\": \"a\"},\n {\"prompt\": \"b\", \"family\": \"x\xFFy\"}]");
    CHECK_THROWS_WITH(bi::io::load_workset_file(path),
                      path + ": rows[1]: invalid UTF-8 at byte offset 47");
}

TEST_CASE("unknown work-set keys are reported once each, with the likely key", "[workset]") {
    std::vector<std::string> warnings;
    const auto rows = rows_from_json(
        bi::io::parse_json(R"([{"prompt": "a", "famly": "x"}, {"prompt": "b", "famly": "y",
                               "source": "wiki"}])",
                           "ws.json"),
        "ws.json", &warnings);
    CHECK(rows.size() == 2);
    CHECK(rows[0].family == "default");  // the misspelt key was not read
    REQUIRE(warnings.size() == 2);
    CHECK(warnings[0] == "ws.json: rows[0]: unknown key 'famly' ignored (did you mean 'family'?)");
    CHECK(warnings[1] == "ws.json: rows[1]: unknown key 'source' ignored");
}

TEST_CASE("a bare string row is a prompt with no expected answer (the upstream form)",
          "[workset]") {
    const auto rows = rows_of(R"(["What is 2+2?", {"prompt": "b", "expected_answer": "x"}])");
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].prompt == "What is 2+2?");
    CHECK(rows[0].family == "default");
    CHECK(rows[0].expected_answer.is_null());
    CHECK(rows[1].expected_answer.as_string() == "x");
}
