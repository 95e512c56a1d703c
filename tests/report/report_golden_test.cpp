// Golden files of `bi-run report --markdown` and `--junit` over the fixed certs of
// bi_report_fixtures (GREEN, RED with <script> and quotes, AMBER, UNVERIFIED, one tampered; and
// a set with a cache check of every status). Paths are normalised to CERTS. BI_UPDATE_GOLDEN=1
// rewrites the approved files in the source tree; otherwise a mismatch leaves <name>.received.* in
// the build tree.
#include <Poco/AutoPtr.h>
#include <Poco/DOM/DOMParser.h>
#include <Poco/DOM/Document.h>
#include <Poco/DOM/Element.h>
#include <Poco/DOM/NodeList.h>
#include <Poco/Exception.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "built_paths.hpp"
#include "io/files.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::run_command;

namespace {

std::string fixtures(const testing::ScratchDir& dir, const std::string& set = "") {
    std::vector<std::string> argv{BI_REPORT_FIXTURES, dir.path()};
    if (!set.empty()) argv.push_back(set);
    const auto made = run_command(argv);
    REQUIRE(made.exit_code == 0);
    return dir.path();
}

std::string normalised(std::string text, const std::string& dir) {
    for (auto at = text.find(dir); at != std::string::npos; at = text.find(dir, at))
        text.replace(at, dir.size(), "CERTS");
    return text;
}

void check_golden(const std::string& name, const std::string& rendered) {
    const std::string approved_path = std::string(BI_REPORT_GOLDEN_DIR) + "/" + name;
    if (const char* update = std::getenv("BI_UPDATE_GOLDEN"); update && std::string(update) == "1")
        io::write_file_atomically(approved_path, rendered);
    const std::string approved = testing::read_text(approved_path);
    const std::string received = std::string(BI_TEST_OUTPUT_DIR) + "/" + name + ".received";
    if (rendered != approved) io::write_file_atomically(received, rendered);
    INFO("received: " << received << " (BI_UPDATE_GOLDEN=1 approves it)");
    CHECK(rendered == approved);
}

std::string attribute(const Poco::XML::Element* element, const char* name) {
    return element ? element->getAttribute(name) : std::string("(no element)");
}

}  // namespace

TEST_CASE("report --markdown over the fixed certs matches its golden file", "[report][golden]") {
    testing::ScratchDir dir;
    const auto certs = fixtures(dir);
    const auto r = run_command({BI_RUN_PATH, "report", "--markdown", certs});
    CHECK(r.exit_code == 1);  // the fixtures' edited cert
    CHECK(r.out.size() <= (1u << 20));
    CHECK_THAT(r.out, !Catch::Contains("<script") && !Catch::Contains("<b>"));
    check_golden("report.approved.md", normalised(r.out, certs));
}

TEST_CASE("report --junit over the fixed certs matches its golden file and parses as XML",
          "[report][golden]") {
    testing::ScratchDir dir;
    const auto certs = fixtures(dir);
    const auto xml_path = dir.file("junit.xml");
    const auto r = run_command({BI_RUN_PATH, "report", "--junit", xml_path, certs});
    CHECK(r.exit_code == 1);  // the edited cert is an error in the XML and in the exit status
    const std::string xml = testing::read_text(xml_path);
    check_golden("report.approved.xml", normalised(xml, certs));

    Poco::XML::DOMParser parser;
    Poco::AutoPtr<Poco::XML::Document> document;
    REQUIRE_NOTHROW(document = parser.parseString(xml));
    const auto* root = document->documentElement();
    CHECK(root->nodeName() == "testsuites");
    CHECK(attribute(root, "tests") == "6");
    CHECK(attribute(root, "failures") == "1");
    CHECK(attribute(root, "errors") == "1");
    CHECK(attribute(root, "skipped") == "1");
    Poco::AutoPtr<Poco::XML::NodeList> suites = document->getElementsByTagName("testsuite");
    REQUIRE(suites->length() == 2);
    CHECK(attribute(static_cast<Poco::XML::Element*>(suites->item(0)), "name") == "other-model");
    CHECK(attribute(static_cast<Poco::XML::Element*>(suites->item(1)), "name") == "tiny/rand-256");
    // The RED cell's failure message reads back as the text the cert holds, markup and all.
    Poco::AutoPtr<Poco::XML::NodeList> failures = document->getElementsByTagName("failure");
    REQUIRE(failures->length() == 1);
    const auto* failure = static_cast<Poco::XML::Element*>(failures->item(0));
    CHECK(static_cast<Poco::XML::Element*>(failure->parentNode())->getAttribute("name") ==
          "ctx 512 N 4");
    CHECK_THAT(failure->getAttribute("message"),
               Catch::StartsWith("RED (failed, co_batching): A vs C: 1 id(s) diverged"));
    CHECK_THAT(failure->innerText(), Catch::Contains("RED (failed, co_batching)"));
    Poco::AutoPtr<Poco::XML::NodeList> errors = document->getElementsByTagName("error");
    REQUIRE(errors->length() == 1);
    CHECK(static_cast<Poco::XML::Element*>(errors->item(0))->getAttribute("type") ==
          "digest_mismatch");
    Poco::AutoPtr<Poco::XML::NodeList> skipped = document->getElementsByTagName("skipped");
    CHECK(skipped->length() == 1);
}

TEST_CASE("report --markdown with cache checks: a cache column and the checks that are not SAME",
          "[report][golden][cache]") {
    testing::ScratchDir dir;
    const auto certs = fixtures(dir, "cache");
    const auto r = run_command({BI_RUN_PATH, "report", "--markdown", certs});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("| ctx \\ N | 2 | 4 | cache |\n|---:|:---:|:---:|:---:|\n"
                                      "| 512 | **GREEN** ★ | **RED** | **CHANGED** |\n"
                                      "| 1024 | **GREEN** ★ | **AMBER** | **SAME** |\n"));
    CHECK_THAT(r.out, Catch::Contains("| 512 | **GREEN** ★ | **GREEN** ★ | **NOT COMPARABLE / "
                                      "DRIFT ONLY** |\n"));
    // The check of ctx 512 once, with the N of both cells that hold it.
    CHECK_THAT(r.out, Catch::Contains("- **CHANGED** tiny/rand-256 ctx 512 (N 2, 4): 1 of 8 id(s) "
                                      "answer otherwise when served from the prompt cache"));
    CHECK_THAT(r.out, !Catch::Contains("- **SAME**"));
    check_golden("report-cache.approved.md", normalised(r.out, certs));
}

TEST_CASE("report --junit with cache checks: a case per ctx, CHANGED fails, the cells' cases kept",
          "[report][golden][cache]") {
    testing::ScratchDir dir;
    const auto certs = fixtures(dir, "cache");
    const auto xml_path = dir.file("junit.xml");
    const auto r = run_command({BI_RUN_PATH, "report", "--junit", xml_path, certs});
    CHECK(r.exit_code == 0);
    const std::string xml = testing::read_text(xml_path);
    check_golden("report-cache.approved.xml", normalised(xml, certs));

    Poco::XML::DOMParser parser;
    Poco::AutoPtr<Poco::XML::Document> document;
    REQUIRE_NOTHROW(document = parser.parseString(xml));
    const auto* root = document->documentElement();
    // 6 cells (the RED fails) and 3 cache checks: CHANGED fails, NOT COMPARABLE is skipped.
    CHECK(attribute(root, "tests") == "9");
    CHECK(attribute(root, "failures") == "2");
    CHECK(attribute(root, "skipped") == "1");
    Poco::AutoPtr<Poco::XML::NodeList> suites = document->getElementsByTagName("testsuite");
    REQUIRE(suites->length() == 4);
    CHECK(attribute(static_cast<Poco::XML::Element*>(suites->item(2)), "name") ==
          "cache checks: other-model");
    CHECK(attribute(static_cast<Poco::XML::Element*>(suites->item(3)), "name") ==
          "cache checks: tiny/rand-256");
    Poco::AutoPtr<Poco::XML::NodeList> failures = document->getElementsByTagName("failure");
    REQUIRE(failures->length() == 2);
    const auto* cache = static_cast<Poco::XML::Element*>(failures->item(1));
    CHECK(static_cast<Poco::XML::Element*>(cache->parentNode())->getAttribute("name") ==
          "cache ctx 512");
    CHECK(cache->getAttribute("type") == "cache_changed");
    CHECK_THAT(cache->getAttribute("message"),
               Catch::StartsWith("CHANGED: 1 of 8 id(s) answer otherwise when served from the "
                                 "prompt cache: id3 (repeat: 27 cached prompt tokens"));
    // The RED cell is still the case it was, by its own id.
    const auto* red = static_cast<Poco::XML::Element*>(failures->item(0));
    CHECK(static_cast<Poco::XML::Element*>(red->parentNode())->getAttribute("name") ==
          "ctx 512 N 4");
    CHECK(red->getAttribute("type") == "failed");
}
