// Provenance and trust in core and io: the whole-file hash cache, deployment expectations, the
// history rule that a RED is sticky for its configuration, the in-toto mapping, the upstream
// contract's names, and bi-cert/1 certs read as before.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>

#include "core/cert.hpp"
#include "core/cert_history.hpp"
#include "core/configuration.hpp"
#include "core/deployment.hpp"
#include "core/sha256.hpp"
#include "driver/cert_archive.hpp"
#include "io/cert_io.hpp"
#include "io/cert_schema.hpp"
#include "io/file_hash_cache.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "scratch_dir.hpp"
#include "server/command_output.hpp"
#include "trial_builders.hpp"
#include "trust/attestation.hpp"

using namespace bi;

namespace {

namespace fs = std::filesystem;

core::Cert cert_of(const core::CellEvidence& evidence, const std::string& binary_sha = "b1") {
    core::CertContext c = testing::fixed_cert_context();
    c.server = core::ServerRecord{};
    c.server->a.binary = c.server->n.binary = "/opt/llama-server";
    c.server->a.binary_sha256 = c.server->n.binary_sha256 = binary_sha;
    c.model_file = core::ModelFileRecord{};
    c.model_file->path = "/m/tiny.gguf";
    c.model_file->size = 1000;
    c.model_file->sha256 = std::string(64, 'a');
    c.run->scorer = "exact";
    c.run->workset = "ws.json";
    c.run->server_flags = std::vector<std::string>{"--flash-attn", "on"};
    c.provenance = core::ProvenanceRecord{};
    c.provenance->version = "0.1.0";
    c.provenance->plugins.push_back({"exact", "0.1.0", "/p/libexact.so", std::string(64, 'e')});
    c.provenance->workset_sha256 = std::string(64, 'c');
    auto e = evidence;
    e.n_predict = c.run->n_predict;
    return core::build_cert(c, core::decide_verdict(e));
}

core::CellEvidence red_evidence() {
    auto e = testing::clean_cell(6, 2);
    e.arm_c[1]["id0"].score = 0.0;
    return e;
}

bool any_contains(const std::vector<std::string>& lines, const std::string& part) {
    for (const auto& line : lines)
        if (line.find(part) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("the model hash is streamed once and cached by path, size and mtime", "[hash_cache]") {
    testing::ScratchDir dir;
    const auto model = dir.write("m.gguf", std::string(3 << 20, 'x'));
    const auto cache = dir.file(".bi-hash-cache");
    const std::string expected = core::sha256_hex(std::string(3 << 20, 'x'));
    std::uint64_t last_done = 0;
    const auto first = io::cached_file_sha256(model, cache, [&](auto done, auto total) {
        CHECK(total == (3u << 20));
        last_done = done;
    });
    CHECK(first.sha256 == expected);
    CHECK_FALSE(first.from_cache);
    CHECK(last_done == (3u << 20));  // the final progress call reports the whole file
    const auto second = io::cached_file_sha256(model, cache);
    CHECK(second.from_cache);
    CHECK(second.sha256 == expected);

    // Touching the file (a new mtime, same bytes) invalidates the entry.
    fs::last_write_time(model, fs::last_write_time(model) + std::chrono::seconds(5));
    const auto touched = io::cached_file_sha256(model, cache);
    CHECK_FALSE(touched.from_cache);
    CHECK(touched.sha256 == expected);
    CHECK(io::cached_file_sha256(model, cache).from_cache);

    // New content of another size is hashed again, never served from the cache.
    io::write_file_atomically(model, "changed");
    const auto changed = io::cached_file_sha256(model, cache);
    CHECK_FALSE(changed.from_cache);
    CHECK(changed.sha256 == core::sha256_hex("changed"));

    // A damaged cache is ignored, not an error.
    io::write_file_atomically(cache, "{not json");
    CHECK(io::cached_file_sha256(model, cache).sha256 == core::sha256_hex("changed"));
}

TEST_CASE("a model directory is hashed as a sorted manifest, each file cached", "[hash_cache]") {
    testing::ScratchDir dir;
    fs::create_directories(dir.file("model/sub"));
    dir.write("model/config.json", "{}");
    dir.write("model/sub/weights.bin", std::string(1 << 20, 'w'));
    const auto cache = dir.file(".bi-hash-cache");
    const std::string manifest = core::sha256_hex("{}") + "  config.json\n" +
                                 core::sha256_hex(std::string(1 << 20, 'w')) +
                                 "  sub/weights.bin\n";
    std::uint64_t last_done = 0, last_total = 0;
    const auto first =
        io::directory_manifest_sha256(dir.file("model"), cache, [&](auto done, auto total) {
            last_done = done;
            last_total = total;
        });
    CHECK(first.sha256 == core::sha256_hex(manifest));
    CHECK_FALSE(first.from_cache);
    CHECK(last_total == (1u << 20) + 2);  // progress counts the bytes of every file
    CHECK(last_done == last_total);
    const auto second = io::directory_manifest_sha256(dir.file("model"), cache);
    CHECK(second.from_cache);
    CHECK(second.sha256 == first.sha256);

    // One file changed: only it is hashed again, and the manifest moves.
    io::write_file_atomically(dir.file("model/config.json"), "{\"a\": 1}");
    const auto changed = io::directory_manifest_sha256(dir.file("model"), cache);
    CHECK_FALSE(changed.from_cache);
    CHECK(changed.sha256 != first.sha256);
    // A file added is in the manifest; the same bytes under another name are another manifest.
    dir.write("model/extra.txt", "x");
    CHECK(io::directory_manifest_sha256(dir.file("model"), cache).sha256 != changed.sha256);
    // No cache at all: the same digest, nothing stored.
    CHECK(io::directory_manifest_sha256(dir.file("model")).sha256 ==
          io::directory_manifest_sha256(dir.file("model"), cache).sha256);
    CHECK_THROWS_WITH(io::directory_manifest_sha256(dir.file("absent")),
                      Catch::Contains("absent") && Catch::Contains("cannot be listed"));
}

TEST_CASE("a provenance helper command is bounded in time and must succeed", "[provenance]") {
    const auto echo = server::command_output({"/bin/echo", "hello"}, std::chrono::seconds(10));
    REQUIRE(echo);
    CHECK(*echo == "hello\n");
    CHECK_FALSE(server::command_output({"/bin/false"}, std::chrono::seconds(10)));
    CHECK_FALSE(server::command_output({"no-such-command-here"}, std::chrono::seconds(10)));
    const auto start = std::chrono::steady_clock::now();
    CHECK_FALSE(server::command_output({"/bin/sleep", "30"}, std::chrono::milliseconds(200)));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

TEST_CASE("expectations name every key the cert was not made for", "[deployment]") {
    const auto cert = cert_of(testing::clean_cell(6, 2));
    CHECK(core::deployment_mismatches(cert, {{"binary_sha256", "b1"},
                                             {"model_sha256", std::string(64, 'a')},
                                             {"server_flag", "--flash-attn"},
                                             {"ctx", "512"},
                                             {"n", "4"},
                                             {"kv_label", "f16"},
                                             {"plugin_sha256", std::string(64, 'e')},
                                             {"workset_sha256", std::string(64, 'c')},
                                             {"server_flags", "--flash-attn on"}})
              .empty());
    const auto mismatches = core::deployment_mismatches(cert, {{"binary_sha256", "b2"},
                                                               {"ctx", "4096"},
                                                               {"server_flag", "-fa"},
                                                               {"plugin_sha256", "ffff"},
                                                               {"kv_label", "f16"}});
    REQUIRE(mismatches.size() == 4);
    CHECK(mismatches[0] == "binary_sha256: expected b2, the cert has b1 b1");
    CHECK(mismatches[1] == "ctx: expected 4096, the cert has 512");
    CHECK(any_contains(mismatches, "server_flag: expected -fa among the server flags"));
    CHECK(any_contains(mismatches, "plugin_sha256: expected ffff among the plugins"));
    CHECK(core::known_expectation_key("model_sha256"));
    // A cert run without the server's determinism mode is the mode off; a __det side is on.
    CHECK(core::deployment_mismatches(cert, {{"determinism", "off"}}).empty());
    CHECK(core::deployment_mismatches(cert, {{"determinism", "on"}}) ==
          std::vector<std::string>{"determinism: expected on, the cert has off"});
    auto det = cert;
    det.run = det.run.value_or(core::RunRecord{});
    det.run->determinism = "on";
    CHECK(core::deployment_mismatches(det, {{"determinism", "on"}}).empty());
    CHECK_FALSE(core::known_expectation_key("colour"));
}

TEST_CASE("history: a RED then a GREEN of the same configuration, the GREEN names the RED",
          "[history]") {
    testing::ScratchDir dir;
    const auto path = dir.file("cell.json");
    CHECK_FALSE(driver::archive_replaced_cert(path, "2026-01-01T00:00:00Z"));  // nothing yet

    const auto red = cert_of(red_evidence());
    REQUIRE(red.verdict.status == core::Status::Failed);
    io::write_cert(path, red);
    const std::string red_text = testing::read_text(path);

    auto green = cert_of(testing::clean_cell(6, 2));
    REQUIRE(core::check_promotable(green, true).promotable);
    green.previous = driver::archive_replaced_cert(path, "2026-01-02T03:04:05Z");
    REQUIRE(green.previous);
    REQUIRE(green.previous->size() == 1);
    const auto& entry = green.previous->front();
    CHECK(entry.status.status() == core::Status::Failed);
    CHECK(entry.file == "history/cell.20260102T030405Z.json");
    CHECK(entry.configuration_id == core::configuration_id(red));
    CHECK(entry.digest == io::parse_json(red_text, "red").string_or("digest", ""));
    CHECK(testing::read_text(dir.file(entry.file)) == red_text);  // kept byte for byte

    const auto promotion = core::check_promotable(green, true);
    CHECK_FALSE(promotion.promotable);
    CHECK(any_contains(promotion.reasons, "a RED for this configuration"));
    CHECK(any_contains(promotion.reasons, entry.file));
    CHECK(core::flaky_note(green) == "flaky: RED 1 of 2 runs");

    // A third run of the same cell keeps both earlier files and lists both.
    io::write_cert(path, green);
    auto third = cert_of(testing::clean_cell(6, 2));
    third.previous = driver::archive_replaced_cert(path, "2026-01-02T03:04:05Z");
    REQUIRE(third.previous->size() == 2);
    CHECK(third.previous->at(1).file == "history/cell.20260102T030405Z.1.json");
    CHECK(fs::exists(dir.file(entry.file)));
    CHECK(core::flaky_note(third) == "flaky: RED 1 of 3 runs");
    CHECK_FALSE(core::check_promotable(third, true).promotable);

    // Another binary is another configuration: the RED does not bind it.
    auto other_binary = cert_of(testing::clean_cell(6, 2), "b2");
    other_binary.previous = third.previous;
    CHECK(core::sticky_red_reasons(other_binary).empty());
    CHECK(core::check_promotable(other_binary, true).promotable);
    CHECK(core::flaky_note(other_binary).empty());
}

TEST_CASE("history: a RED that knew only the model's first MiB hash still binds the GREEN",
          "[history]") {
    testing::ScratchDir dir;
    const auto path = dir.file("cell.json");
    auto red = cert_of(red_evidence());
    red.model_file->sha256.reset();  // as bi-cert/1 wrote it
    red.model_file->sha256_head = "h1";
    io::write_cert(path, red);
    auto green = cert_of(testing::clean_cell(6, 2));
    green.model_file->sha256_head = "h1";
    green.previous = driver::archive_replaced_cert(path, "2026-01-02T00:00:00Z", &green);
    CHECK_FALSE(core::sticky_red_reasons(green).empty());

    // A different head is a different model file: no upgrade, no binding.
    io::write_cert(path, red);
    auto other = cert_of(testing::clean_cell(6, 2));
    other.model_file->sha256_head = "h2";
    other.previous = driver::archive_replaced_cert(path, "2026-01-03T00:00:00Z", &other);
    CHECK(core::sticky_red_reasons(other).empty());
}

TEST_CASE("history: a replaced file that was no cert keeps the word it said, and reads back",
          "[history]") {
    testing::ScratchDir dir;
    const auto path = dir.file("cell.json");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"not json\n", "unreadable"},
        {R"({"model":"m"})", "unknown"},
        {R"({"status":7})", "unknown"},
        {R"({"status":"blue"})", "blue"},  // an edited file's word, kept as written
        {R"({"status":"failed"})", "failed"},
    };
    for (const auto& [content, word] : cases) {
        INFO(content);
        io::write_file_atomically(path, content);
        auto cert = cert_of(testing::clean_cell(6, 2));
        cert.previous = driver::archive_replaced_cert(path, "2026-01-02T00:00:00Z");
        REQUIRE(cert.previous->size() == 1);
        CHECK(cert.previous->front().status.word() == word);
        CHECK(cert.previous->front().status.status() == core::parse_status(word));
        // A RED word from a file that was no cert names no configuration, so it binds nothing.
        CHECK(core::sticky_red_reasons(cert).empty());

        io::write_cert(path, cert);
        const auto loaded = io::read_cert(path);
        REQUIRE(loaded.shape_problem.empty());
        CHECK(loaded.digest_intact);
        CHECK(loaded.cert.previous->front().status == cert.previous->front().status);
        CHECK(io::render_cert(loaded.cert) == testing::read_text(path));
    }
}

TEST_CASE("the attestation maps the four verdicts and names the files with their hashes",
          "[attest]") {
    using core::Status;
    CHECK(trust::attestation_result(Status::Green, true) == "PASSED");
    CHECK(trust::attestation_result(Status::Green, false) == "WARNED");
    CHECK(trust::attestation_result(Status::GreenWithCaveat, false) == "WARNED");
    CHECK(trust::attestation_result(Status::GreenUnverified, false) == "WARNED");
    CHECK(trust::attestation_result(Status::Failed, false) == "FAILED");

    auto cert = cert_of(testing::clean_cell(6, 2), std::string(64, 'b'));
    cert.digest = std::string(64, 'd');
    const auto statement =
        trust::attestation_statement(cert, "cell.json", std::string(64, 'f'), true);
    CHECK(statement.string_or("_type", "") == "https://in-toto.io/Statement/v1");
    CHECK(statement.string_or("predicateType", "") ==
          "https://in-toto.io/attestation/test-result/v0.1");
    CHECK(statement.find("predicate")->string_or("result", "") == "PASSED");
    const auto& subjects = statement.find("subject")->as_array();
    REQUIRE(subjects.size() == 5);  // cert, model, binary (A and N are one file), work-set, plugin
    CHECK(subjects[0].string_or("name", "") == "cell.json");
    CHECK(subjects[0].find("digest")->string_or("sha256", "") == std::string(64, 'f'));
    CHECK(subjects[0].find("annotations")->string_or("bi_cert_digest", "") == std::string(64, 'd'));
    CHECK(subjects[1].find("digest")->string_or("sha256", "") == std::string(64, 'a'));
    CHECK(trust::dsse_pae("t", "body") == "DSSEv1 1 t 4 body");
}

TEST_CASE("a bi-cert/2 cert carries the upstream contract's nested names with real values",
          "[cert_io][upstream]") {
    const auto document = io::parse_json(io::render_cert(cert_of(testing::clean_cell(6, 2))), "c");
    CHECK(document.string_or("schema", "") == "bi-cert/2");
    const core::Json& overlap = *document.find("overlap");
    CHECK(*overlap.find("overlap_ok") == core::Json(true));
    CHECK(overlap.find("client_max_overlap_depth")->as_int() ==
          overlap.find("client_max_depth")->as_int());
    CHECK(overlap.find("server_peak_busy_slots")->as_int() ==
          overlap.find("peak_busy_slots")->as_int());
    const core::Json& floor = *document.find("completion_floor");
    CHECK(*floor.find("completion_floor_ok") == core::Json(true));
    CHECK(floor.find("n_ok_a")->as_int() == 6);
    CHECK(floor.find("n_ok_b")->as_int() == 6);
    CHECK(floor.find("n_ok_c")->as_int() == 6);
    CHECK(floor.find("min_ok_fraction")->as_double() == 1.0);
    const core::Json& coverage = *document.find("cobatch_coverage");
    CHECK(*coverage.find("cobatch_coverage_ok") == core::Json(true));
    CHECK(coverage.find("n_ids")->as_int() == 6);
    CHECK(coverage.find("coverage_fraction")->as_double() > 0.0);
    const core::Json& sensitivity = *document.find("sensitivity");
    CHECK(sensitivity.find("rate_upper_bound_95")->as_double() ==
          sensitivity.find("clopper_pearson_upper_95")->as_double());
    CHECK(sensitivity.find("n_ac_divergent")->as_int() == 0);
}

TEST_CASE("n_ok_b counts arm B's ok trials and is recorded, not gated", "[cert_io][upstream]") {
    auto cell = testing::clean_cell(6, 2);
    REQUIRE(cell.arm_b);
    cell.arm_b->begin()->second.failure_mode = core::FailureLabel::from_word("timeout");
    const auto cert = cert_of(cell);
    REQUIRE(cert.gates.completion_floor.arm_b);
    CHECK(cert.gates.completion_floor.arm_b->n_ok == 5);
    const core::Json document = io::parse_json(io::render_cert(cert), "cert");
    const core::Json& floor = *document.find("completion_floor");
    CHECK(floor.find("n_ok_b")->as_int() == 5);
    CHECK(floor.find("n_ok_a")->as_int() == 6);
    // The floor gates A and the C passes; B's census is evidence beside it.
    CHECK(cert.gates.completion_floor.ok);
    const auto read = io::cert_from_json(document);
    REQUIRE(read.cert);
    REQUIRE(read.cert->gates.completion_floor.arm_b);
    CHECK(read.cert->gates.completion_floor.arm_b->n_ok == 5);
}

TEST_CASE("a bi-cert/1 cert (no upstream names) still reads, intact and promotable",
          "[cert_io][upstream]") {
    core::Json document = io::parse_json(io::render_cert(cert_of(testing::clean_cell(6, 2))), "c");
    document.set("schema", "bi-cert/1");
    document["overlap"].erase("overlap_ok");
    for (const char* key : {"client_max_overlap_depth", "server_peak_busy_slots"})
        document["overlap"].erase(key);
    for (const char* key : {"completion_floor_ok", "n_ok_a", "n_ok_b", "n_ok_c", "min_ok_fraction"})
        document["completion_floor"].erase(key);
    for (const char* key : {"cobatch_coverage_ok", "coverage_fraction", "n_ids"})
        document["cobatch_coverage"].erase(key);
    for (const char* key : {"rate_upper_bound_95", "n_ac_divergent"})
        document["sensitivity"].erase(key);
    document.set("digest", io::cert_digest(document));
    testing::ScratchDir dir;
    io::write_file_atomically(dir.file("v1.json"), io::to_json_text(document, true) + "\n");
    const auto loaded = io::read_cert(dir.file("v1.json"));
    INFO(loaded.shape_problem);
    CHECK(loaded.shape_problem.empty());
    CHECK(loaded.digest_intact);
    CHECK(core::check_promotable(loaded.cert, loaded.digest_intact).promotable);
}
