// Baselines and check reports on disk (bi-baseline/1, bi-baseline-check/1): they read back as
// written, and every edit a reader could be misled by is refused or shows in the digest.
#include <catch2/catch.hpp>

#include "core/baseline_documents.hpp"
#include "core/sha256.hpp"
#include "io/baseline_io.hpp"
#include "io/baseline_schema.hpp"
#include "io/cert_io.hpp"
#include "io/json_text.hpp"
#include "io/workset.hpp"
#include "trial_builders.hpp"

using namespace bi;

namespace {

core::SerialBaseline sample_baseline() {
    core::SerialBaseline b;
    b.source = core::Source::Live;
    b.ts_utc = "2026-12-03T12:00:00Z";
    b.model = "tiny";
    b.ctx = 512;
    b.rows = {{"What is 6 times 7?", "", "arith", 0.1, core::Json("42")},
              {"Name a colour.", "Be brief.", "recall", 0.2, core::Json()}};
    b.rows_sha256 = core::sha256_hex(io::workset_to_json_text(b.rows));
    b.run.scorer = "exact";
    b.run.n_predict = 16;
    b.run.endpoint = "/completion";
    b.run.logprobs = 2;
    b.model_file.path = "/models/tiny.gguf";
    b.model_file.size = 123;
    b.model_file.sha256 = std::string(64, 'a');
    b.server.launch.binary = "/opt/llama/llama-server";
    b.server.launch.binary_sha256 = std::string(64, 'b');
    b.server.launch.version_text = "version: 6133 (1a2b3c4)\nbuilt with gcc";
    b.server.props = core::Json::Object{{"build_info", "b6133-1a2b3c4"}};
    b.server.build_info = "b6133-1a2b3c4";
    b.host.hostname = "box";
    b.host.cpu = "AMD EPYC";
    b.host.n_cpus = 16;
    b.provenance.version = "0.1.0";
    b.answers = testing::arm(3);
    auto& with_alternatives = b.answers.at("id1");
    with_alternatives.token_texts = std::vector<std::string>{"a", "b", "c", "d"};
    with_alternatives.top_alternatives = std::vector<std::vector<core::TokenAlternative>>{
        {{1, "a", -0.5}, {7, "z", -0.75}}, {{2, "b", -0.25}}, {{3, "c", -1.0}}, {{4, "d", -2.0}}};
    with_alternatives.id_slot = 0;
    b.answers.at("id2").reasoning_content = "thinking";
    core::Json calls = core::Json::array();
    calls.push_back(core::Json::Object{{"type", "function"}, {"id", "call-1"}});
    b.answers.at("id2").tool_calls = calls;
    b.repeat = core::serial_repeat(b.answers, b.answers);
    return b;
}

core::Json written(const core::SerialBaseline& b) {
    return io::parse_json(io::render_baseline(b, nullptr), "baseline");
}

std::string problem_of(const core::Json& document) {
    return io::baseline_from_json(document).problem;
}

}  // namespace

TEST_CASE("baseline file: reads back exactly as written, digest intact", "[unit][baseline_io]") {
    const auto b = sample_baseline();
    const auto document = written(b);
    CHECK(document.string_or("schema", "") == "bi-baseline/1");
    const auto parsed = io::baseline_from_json(document);
    INFO(parsed.problem);
    REQUIRE(parsed.value);
    const auto& read = *parsed.value;
    CHECK(read.rows.size() == 2);
    CHECK(read.rows[1].system == "Be brief.");
    CHECK(read.answers.size() == 3);
    // Everything a comparison reads comes back equal: compared with what was written, nothing
    // moved.
    const auto again = core::compare_arms(b.answers, read.answers, "written", "read");
    CHECK(again.clean());
    CHECK(again.token_only_ids.empty());
    CHECK(again.logprob_drift_ids.empty());
    const auto& alternatives = *read.answers.at("id1").top_alternatives;
    REQUIRE(alternatives.size() == 4);
    REQUIRE(alternatives[0].size() == 2);
    CHECK(alternatives[0][1].id == 7);
    CHECK(alternatives[0][1].text == "z");
    CHECK(alternatives[0][1].logprob == -0.75);
    CHECK(read.answers.at("id1").content_sha == core::content_sha(read.answers.at("id1").content));
    CHECK(read.answers.at("id1").arm == "A");
    CHECK(read.repeat.exact());
    CHECK(io::cert_digest(document) == read.digest);
    // And renders to the same bytes again.
    CHECK(io::render_baseline(read, nullptr) == io::render_baseline(b, nullptr));
}

TEST_CASE("baseline file: every hash it stores must agree with what it hashes",
          "[unit][baseline_io]") {
    auto document = written(sample_baseline());
    auto edited = document;
    edited["rows"].as_array()[0].set("prompt", "another prompt");
    CHECK_THAT(problem_of(edited), Catch::Contains("$.rows_sha256: does not match the rows"));

    edited = document;
    edited["answers"].as_array()[0].set("content", "another text");
    CHECK_THAT(problem_of(edited), Catch::Contains("content_sha256"));

    edited = document;
    edited["serial_repeat"].set("exact", false);
    CHECK_THAT(problem_of(edited), Catch::Contains("$.serial_repeat.exact"));

    edited = document;
    edited.set("n_answers", 9);
    CHECK_THAT(problem_of(edited), Catch::Contains("$.n_answers"));
}

TEST_CASE("baseline file: unknown keys, repeated ids and other schemas are refused",
          "[unit][baseline_io]") {
    const auto document = written(sample_baseline());
    auto edited = document;
    edited.set("trusted", true);
    CHECK_THAT(problem_of(edited), Catch::Contains("$.trusted: does not agree"));

    edited = document;
    edited["answers"].as_array()[0].set("volume", 11);
    CHECK_THAT(problem_of(edited), Catch::Contains("$.answers[0].volume"));

    edited = document;
    edited["answers"].as_array().push_back(edited["answers"].as_array()[0]);
    CHECK_THAT(problem_of(edited), Catch::Contains("appears twice"));

    edited = document;
    edited.set("schema", "bi-baseline/2");
    CHECK_THAT(problem_of(edited), Catch::Contains("'bi-baseline/2' is not bi-baseline/1"));

    edited = document;
    edited.erase("digest");
    CHECK_THAT(problem_of(edited), Catch::Contains("$.digest: missing"));

    edited = document;
    edited["answers"].as_array()[0].set("failure_mode", "");
    CHECK_THAT(problem_of(edited), Catch::Contains("empty failure mode"));

    CHECK(io::names_baseline_schema(document));
    CHECK_FALSE(io::names_check_schema(document));
}

TEST_CASE("baseline file: an edit the schema allows still breaks the digest",
          "[unit][baseline_io]") {
    const std::string text = io::render_baseline(sample_baseline(), nullptr);
    auto document = io::parse_json(text, "baseline");
    document["answers"].as_array()[0].set("extracted_answer", "forged");
    CHECK(io::baseline_from_json(document).value);  // well-formed
    const auto loaded = io::baseline_from_document(document, "");
    CHECK_FALSE(loaded.digest_intact);
}

TEST_CASE("check report: reads back, its comparison capped as a cert's", "[unit][baseline_io]") {
    const auto stored = sample_baseline();
    auto current = stored;
    current.ts_utc = "2026-12-04T09:00:00Z";
    current.server.launch.binary_sha256 = std::string(64, 'c');
    current.server.build_info = "b6200-9f9f9f9";
    current.answers.at("id0").extracted_answer = "moved";
    current.answers.at("id0").content = "moved text";
    // An answer whose text and tokens held but whose stop reason moved: what else it generated
    // is named, since no forensics place it.
    current.answers.at("id2").finish_reason = "stop";
    current.repeat = core::serial_repeat(current.answers, current.answers);
    core::BaselineFileRecord file{"/b/tiny.baseline.json", std::string(64, 'd'),
                                  std::string(64, 'e'), "unsigned"};
    const auto check = core::build_check(stored, file, current);
    CHECK(check.status == core::BaselineStatus::Changed);
    CHECK(check.ts_utc == current.ts_utc);
    CHECK(check.differences ==
          std::vector<std::string>{"server binary sha256: baseline " + std::string(64, 'b') +
                                       ", now " + std::string(64, 'c'),
                                   "build info: baseline b6133-1a2b3c4, now b6200-9f9f9f9"});
    const auto document = io::parse_json(io::render_check(check, nullptr), "check");
    const auto parsed = io::check_from_json(document);
    INFO(parsed.problem);
    REQUIRE(parsed.value);
    CHECK(parsed.value->status == core::BaselineStatus::Changed);
    REQUIRE(parsed.value->comparison);
    CHECK(parsed.value->comparison->divergent_ids == std::vector<std::string>{"id0"});
    CHECK(parsed.value->baseline_file.path == file.path);
    CHECK(check.comparison->token_only_ids == std::vector<std::string>{"id2"});
    CHECK(parsed.value->generation_changes ==
          std::map<std::string, std::string>{{"id2", "finish_reason length -> stop"}});
    CHECK(io::names_check_schema(document));

    auto edited = document;
    edited.set("status", "same");
    CHECK(io::check_from_json(edited).value);                        // a word it knows...
    CHECK_FALSE(io::check_from_document(edited, "").digest_intact);  // ...but not the written one
    edited.set("status", "fine");
    CHECK_THAT(io::check_from_json(edited).problem,
               Catch::Contains("unknown baseline status 'fine'"));

    const auto summary = core::summarise(check, "tiny__ctx512.baseline-check.json");
    CHECK(summary.status == core::BaselineStatus::Changed);
    CHECK(summary.n_changed == 1);
    CHECK(summary.changed_ids == std::vector<std::string>{"id0"});
    CHECK(summary.baseline_digest == file.digest);
}
