// bi-run baseline record and check, and run-live --baseline, end to end against bi-mock-server
// standing in for llama-server: the mock's --build-variant plays another build. Each test checks
// the exit status, the file written (or that nothing was), and what the output names.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "core/baseline_documents.hpp"
#include "core/json.hpp"
#include "core/sha256.hpp"
#include "core/text.hpp"
#include "io/baseline_io.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::run_command;
namespace fs = std::filesystem;

namespace {

// A scratch directory with a model file (bi-mock-server only hashes it) and the baseline's path.
struct Bench {
    testing::ScratchDir dir;
    std::string model = dir.write("model.gguf", "a stand-in model file");
    std::string baseline = dir.file("b/m.baseline.json");
};

std::vector<std::string> server_args(const std::string& model,
                                     const std::vector<std::string>& flags = {}) {
    std::vector<std::string> argv{"--server-bin", BI_MOCK_SERVER_PATH, "--model", model, "--quiet"};
    for (const auto& flag : flags) argv.push_back("--server-flag=" + flag);
    return argv;
}

testing::CommandResult record(const Bench& bench, std::vector<std::string> extra = {},
                              const std::vector<std::string>& flags = {}) {
    std::vector<std::string> argv{
        BI_RUN_PATH, "baseline", "record",      "--model-alias",  "m",
        "--ctx",     "512",      "--workset",   BI_SMALL_WORKSET, "--n-predict",
        "16",        "--out",    bench.baseline};
    const auto server = server_args(bench.model, flags);
    argv.insert(argv.end(), server.begin(), server.end());
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv);
}

testing::CommandResult check(const Bench& bench, const std::string& out,
                             const std::vector<std::string>& flags = {},
                             std::vector<std::string> extra = {}, const std::string& model = "") {
    std::vector<std::string> argv{BI_RUN_PATH,    "baseline", "check", "--baseline",
                                  bench.baseline, "--out",    out};
    const auto server = server_args(model.empty() ? bench.model : model, flags);
    argv.insert(argv.end(), server.begin(), server.end());
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv);
}

core::BaselineCheck read_check(const std::string& path) {
    const auto loaded = io::read_check(path);
    INFO(loaded.shape_problem);
    REQUIRE(loaded.value);
    REQUIRE(loaded.digest_intact);
    return *loaded.value;
}

core::SerialBaseline read_baseline(const std::string& path) {
    const auto loaded = io::read_baseline(path);
    INFO(loaded.shape_problem);
    REQUIRE(loaded.value);
    REQUIRE(loaded.digest_intact);
    return *loaded.value;
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const auto& line) { return line.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("baseline record writes every answer, the rows and who answered them",
          "[cli][baseline]") {
    Bench bench;
    const auto r = record(bench);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("BASELINE RECORDED  m  ctx 512  [source mock]"));
    CHECK_THAT(r.out, Catch::Contains("baseline: " + bench.baseline));
    const auto b = read_baseline(bench.baseline);
    CHECK(b.schema == "bi-baseline/1");
    CHECK(b.source == core::Source::Mock);  // bi-mock-server says it is the mock
    CHECK(b.rows.size() == 8);
    REQUIRE(b.answers.size() == 8);
    CHECK(b.repeat.exact());
    CHECK(b.repeat.n_compared == 8);
    for (const auto& [id, answer] : b.answers) {
        CHECK(answer.ok());
        CHECK_FALSE(answer.content.empty());
        CHECK(answer.completion_tokens == 16);
    }
    CHECK(b.model_file.sha256);
    CHECK(b.server.launch.binary == BI_MOCK_SERVER_PATH);
    CHECK(b.server.launch.binary_sha256);
    CHECK(b.server.launch.version_text);
    CHECK_FALSE(b.host.cpu.empty());
    CHECK(b.provenance.rows_sha256 == b.rows_sha256);
    CHECK(b.run.n_predict == 16);
    CHECK(b.run.scorer == "exact");
    CHECK_FALSE(b.run.passes);  // a cell's settings are not a baseline's
    // The server log went beside it.
    CHECK(fs::exists(bench.baseline + ".server.log"));
}

TEST_CASE("baseline record keeps a baseline: an existing file needs --replace", "[cli][baseline]") {
    Bench bench;
    REQUIRE(record(bench).exit_code == 0);
    const auto before = testing::read_text(bench.baseline);
    const auto again = record(bench);
    CHECK(again.exit_code == 2);
    CHECK_THAT(again.err, Catch::Contains("--out " + bench.baseline + ": a file is there"));
    CHECK_THAT(again.err, Catch::Contains("--replace"));
    CHECK(testing::read_text(bench.baseline) == before);
    const auto replaced = record(bench, {"--replace"});
    CHECK(replaced.exit_code == 0);
    CHECK(testing::read_text(bench.baseline) != before);  // a new time stamp at least
}

TEST_CASE("baseline check: the same build is SAME, exit 0, with both sides' provenance",
          "[cli][baseline]") {
    Bench bench;
    REQUIRE(record(bench).exit_code == 0);
    const std::string out = bench.dir.file("c/same.json");
    const auto r = check(bench, out);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("BASELINE SAME  m  ctx 512"));
    CHECK_THAT(r.out, Catch::Contains("all 8 ids answer exactly as the baseline did"));
    const auto c = read_check(out);
    CHECK(c.status == core::BaselineStatus::Same);
    REQUIRE(c.comparison);
    CHECK(c.comparison->n_compared == 8);
    CHECK(c.baseline.server.launch.binary == BI_MOCK_SERVER_PATH);
    CHECK(c.current.server.launch.binary == BI_MOCK_SERVER_PATH);
    CHECK_FALSE(c.baseline.ts_utc.empty());
    CHECK_FALSE(c.current.ts_utc.empty());
    CHECK(c.baseline_file.path == bench.baseline);
    CHECK(c.baseline_file.sha256 == core::sha256_hex(testing::read_text(bench.baseline)));
    CHECK(c.baseline_file.signature == "unsigned");
    CHECK(c.differences.empty());
    // --json: one line a machine reads.
    const auto json = check(bench, out, {}, {"--json"});
    REQUIRE(json.exit_code == 0);
    const auto line = io::parse_json(json.out, "stdout");
    CHECK(line.string_or("status", "") == "same");
    CHECK(line.string_or("check", "") == out);
}

TEST_CASE("baseline check: another build whose answers moved is CHANGED, naming the ids",
          "[cli][baseline]") {
    Bench bench;
    REQUIRE(record(bench).exit_code == 0);
    const std::string out = bench.dir.file("changed.json");
    const auto r = check(bench, out, {"--build-variant=score"});
    INFO(r.err);
    REQUIRE(r.exit_code == 3);
    CHECK_THAT(r.out, Catch::StartsWith("BASELINE CHANGED  m  ctx 512"));
    CHECK_THAT(r.out, Catch::Contains("differs: server flags: baseline (none), now "
                                      "--build-variant=score"));
    const auto c = read_check(out);
    CHECK(c.status == core::BaselineStatus::Changed);
    REQUIRE(c.comparison);
    const auto& ids = c.comparison->divergent_ids;
    // Every third prompt by its key: some, never all.
    CHECK_FALSE(ids.empty());
    CHECK(ids.size() < 8);
    for (const auto& id : ids) {
        INFO(id);
        CHECK_THAT(r.out, Catch::Contains(id));
        // Each changed id has its excerpt pair: the baseline's text and the text of now.
        const auto f = c.comparison->forensics.find(id);
        REQUIRE(f != c.comparison->forensics.end());
        REQUIRE(f->second.excerpt);
        CHECK(f->second.excerpt->a != f->second.excerpt->c);
    }
    // The same build variant changes the same ids again: the result is the server's, not
    // chance's.
    const auto again = check(bench, bench.dir.file("again.json"), {"--build-variant=score"});
    REQUIRE(again.exit_code == 3);
    CHECK(read_check(bench.dir.file("again.json")).comparison->divergent_ids == ids);
}

TEST_CASE("baseline check: text or logprobs moving under equal scores is DRIFT ONLY",
          "[cli][baseline]") {
    Bench bench;
    // Token ids and logprobs recorded: the completion endpoint with two alternatives.
    REQUIRE(record(bench, {"--endpoint", "completion", "--logprobs", "2"}).exit_code == 0);
    const auto recorded = read_baseline(bench.baseline);
    REQUIRE(recorded.answers.begin()->second.token_ids);
    REQUIRE(recorded.answers.begin()->second.top_alternatives);
    for (const char* variant : {"token", "logprob"}) {
        DYNAMIC_SECTION(variant) {
            const std::string out = bench.dir.file(std::string(variant) + ".json");
            const auto r = check(bench, out, {std::string("--build-variant=") + variant});
            INFO(r.err);
            REQUIRE(r.exit_code == 3);
            CHECK_THAT(r.out, Catch::StartsWith("BASELINE DRIFT ONLY  m  ctx 512"));
            const auto c = read_check(out);
            CHECK(c.status == core::BaselineStatus::DriftOnly);
            REQUIRE(c.comparison);
            CHECK(c.comparison->divergent_ids.empty());
            const auto& moved = std::string(variant) == "token" ? c.comparison->token_only_ids
                                                                : c.comparison->logprob_drift_ids;
            CHECK_FALSE(moved.empty());
            CHECK(moved.size() < 8);
        }
    }
}

TEST_CASE("baseline check: logprobs that moved say by how much, and by which threshold",
          "[cli][baseline]") {
    Bench bench;
    REQUIRE(record(bench, {"--endpoint", "completion", "--logprobs", "2"}).exit_code == 0);
    const std::string out = bench.dir.file("logprob.json");
    const auto r = check(bench, out, {"--build-variant=logprob"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 3);
    const auto c = read_check(out);
    REQUIRE(c.comparison);
    REQUIRE_FALSE(c.comparison->logprob_drift_ids.empty());
    // The reason carries the largest delta the check report holds, and the threshold.
    CHECK_THAT(r.out, Catch::Contains("; largest chosen-token logprob delta " +
                                      core::format_general(c.comparison->max_logprob_delta, 3) +
                                      " (--logit-drift-eps 0: every delta counts)\n"));
    // Each id's line says how far its own logprobs moved.
    const std::string& id = c.comparison->logprob_drift_ids.front();
    CHECK_THAT(r.out, Catch::Contains("    " + id + ": logprobs moved by up to " +
                                      core::format_general(c.comparison->logprob_deltas.at(id), 3) +
                                      "\n"));
}

TEST_CASE("baseline check: another model file is NOT COMPARABLE, never SAME", "[cli][baseline]") {
    Bench bench;
    REQUIRE(record(bench).exit_code == 0);
    const std::string other = bench.dir.write("other.gguf", "another model file");
    const std::string out = bench.dir.file("other.json");
    const auto r = check(bench, out, {}, {}, other);
    INFO(r.err);
    REQUIRE(r.exit_code == 3);
    CHECK_THAT(r.out, Catch::StartsWith("BASELINE NOT COMPARABLE  m  ctx 512"));
    const auto c = read_check(out);
    CHECK(c.status == core::BaselineStatus::NotComparable);
    CHECK(mentions(c.reasons, "the model file (sha256) differs"));
    CHECK_FALSE(c.comparison);
}

TEST_CASE("baseline check: a baseline edited after it was written is refused, exit 1",
          "[cli][baseline]") {
    Bench bench;
    REQUIRE(record(bench).exit_code == 0);
    const std::string out = bench.dir.file("never.json");
    const auto text = testing::read_text(bench.baseline);

    // An answer edited, its digest left alone.
    std::string edited = text;
    const auto at = edited.find("\"failure_mode\": \"ok\"");
    REQUIRE(at != std::string::npos);
    edited.replace(at, 20, "\"failure_mode\": \"oom\"");
    io::write_file_atomically(bench.baseline, edited);
    auto r = check(bench, out);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains(bench.baseline + ": digest mismatch: the baseline was edited "
                                                       "or corrupted"));
    CHECK_FALSE(fs::exists(out));

    // Edited with its digest recomputed: well-formed and intact, but a derived hash still tells.
    auto document = io::parse_json(text, "baseline");
    document["rows"].as_array()[0].set("prompt", "another prompt");
    io::write_file_atomically(bench.baseline, io::render_signed(document));
    r = check(bench, out);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("not a well-formed baseline: $.rows_sha256: does not match "
                                      "the rows"));
    CHECK_FALSE(fs::exists(out));

    // Not a baseline at all.
    io::write_file_atomically(bench.baseline, "{\"schema\": \"bi-baseline/9\", \"digest\": \"x\"}");
    r = check(bench, out);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("'bi-baseline/9' is not bi-baseline/1"));
    CHECK_FALSE(fs::exists(out));

    // The report may not replace the baseline it reads.
    io::write_file_atomically(bench.baseline, text);
    r = check(bench, bench.baseline);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("is the baseline itself"));
    CHECK(testing::read_text(bench.baseline) == text);

    // Missing: a usage error.
    fs::remove(bench.baseline);
    r = check(bench, out);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--baseline " + bench.baseline + ": no such file"));
}

TEST_CASE("baseline check --trusted-key: only a baseline signed by a trusted key is read",
          "[cli][baseline]") {
    Bench bench;
    const std::string key = bench.dir.file("k/key");
    const std::string other = bench.dir.file("k/other");
    fs::create_directories(bench.dir.file("k"));
    REQUIRE(run_command({BI_RUN_PATH, "keygen", "--out", key}).exit_code == 0);
    REQUIRE(run_command({BI_RUN_PATH, "keygen", "--out", other}).exit_code == 0);
    REQUIRE(record(bench, {"--sign-key", key}).exit_code == 0);
    const std::string out = bench.dir.file("signed.json");

    auto r = check(bench, out, {}, {"--trusted-key", key + ".pub"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(read_check(out).baseline_file.signature.rfind("signature ok, ed25519 key", 0) == 0);
    fs::remove(out);

    r = check(bench, out, {}, {"--trusted-key", other + ".pub"});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("not a --trusted-key"));
    CHECK_FALSE(fs::exists(out));

    // An attacker who rewrites an answer and the digest cannot sign for the trusted key: the
    // forgery is unsigned...
    const auto signed_text = testing::read_text(bench.baseline);
    auto document = io::parse_json(signed_text, "baseline");
    document["answers"].as_array()[0].set("extracted_answer", "forged");
    io::write_file_atomically(bench.baseline, io::render_signed(document));
    r = check(bench, out, {}, {"--trusted-key", key + ".pub"});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("unsigned, and --trusted-key asks for a signature"));
    CHECK_FALSE(fs::exists(out));

    // ...or keeps the old signature, which no longer verifies.
    document.set("digest", io::cert_digest(document));
    io::write_file_atomically(bench.baseline, io::to_json_text(document, true) + "\n");
    r = check(bench, out, {}, {"--trusted-key", key + ".pub"});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("the baseline was changed after it was signed"));
    CHECK_FALSE(fs::exists(out));

    // Without --trusted-key nothing can verify the signature: the report says so, and the forged
    // answer reads as a change, never as agreement.
    r = check(bench, out);
    CHECK(r.exit_code == 3);
    CHECK(read_check(out).status == core::BaselineStatus::Changed);
    CHECK_THAT(read_check(out).baseline_file.signature, Catch::Contains("not checked"));
    io::write_file_atomically(bench.baseline, signed_text);
    CHECK(check(bench, out).exit_code == 0);
}

TEST_CASE("baseline check: a server that answers nothing is NOT COMPARABLE, not SAME",
          "[cli][baseline]") {
    // Record on a server whose every answer is empty: A and A' agree, all of them failed alike.
    Bench bench;
    const auto recorded = record(bench, {}, {"--empty"});
    CHECK(recorded.exit_code == 3);
    CHECK_THAT(recorded.out, Catch::Contains("BASELINE RECORDED, NO REFERENCE"));
    CHECK_THAT(recorded.out, Catch::Contains("the recorded run has 0 of 8 answers scored ok"));
    const std::string out = bench.dir.file("empty.json");
    const auto r = check(bench, out, {"--empty"});
    CHECK(r.exit_code == 3);
    const auto c = read_check(out);
    CHECK(c.status == core::BaselineStatus::NotComparable);
    CHECK(mentions(c.reasons, "the baseline run has 0 of 8 answers scored ok"));
    CHECK(mentions(c.reasons, "the current run has 0 of 8 answers scored ok"));
}

TEST_CASE("baseline check: a server that does not choose greedily is NOT COMPARABLE",
          "[cli][baseline]") {
    Bench bench;
    REQUIRE(record(bench, {"--logprobs", "2"}).exit_code == 0);
    const std::string out = bench.dir.file("greedy.json");
    const auto r = check(bench, out, {"--divergence=not-greedy"});
    CHECK(r.exit_code == 3);
    const auto c = read_check(out);
    CHECK(c.status == core::BaselineStatus::NotComparable);
    CHECK(mentions(c.reasons, "the current run is not greedy decoding"));
}

TEST_CASE("run-live --baseline records the check beside the verdict, never changing it",
          "[cli][baseline]") {
    Bench bench;
    REQUIRE(record(bench).exit_code == 0);
    const std::string out_dir = bench.dir.file("certs");
    const auto live = [&](const std::vector<std::string>& flags,
                          const std::vector<std::string>& extra) {
        std::vector<std::string> argv{BI_RUN_PATH,  "run-live",    "--model-alias", "m",
                                      "--ctx",      "512",         "--n-predict",   "16",
                                      "--passes",   "2",           "--out-dir",     out_dir,
                                      "--baseline", bench.baseline};
        const auto server = server_args(bench.model, flags);
        argv.insert(argv.end(), server.begin(), server.end());
        argv.insert(argv.end(), extra.begin(), extra.end());
        return run_command(argv);
    };
    // No work-set given: the baseline's rows run.
    const auto r = live({"--build-variant=score"}, {});
    INFO(r.err);
    REQUIRE(r.exit_code == 3);                      // a mock cell is never promotable
    CHECK_THAT(r.out, Catch::StartsWith("GREEN"));  // batching changed nothing
    CHECK_THAT(r.out, Catch::Contains("baseline: CHANGED ("));
    const auto cert = io::read_cert(out_dir + "/m__ctx512__N4.json");
    REQUIRE(cert.shape_problem.empty());
    CHECK(cert.cert.verdict.status == core::Status::Green);
    REQUIRE(cert.cert.baseline_check);
    CHECK(cert.cert.baseline_check->status == core::BaselineStatus::Changed);
    CHECK(cert.cert.baseline_check->check_file == "m__ctx512.baseline-check.json");
    CHECK(cert.cert.baseline_check->n_changed > 0);
    CHECK(cert.cert.baseline_check->baseline_digest == read_baseline(bench.baseline).digest);
    const auto c = read_check(out_dir + "/m__ctx512.baseline-check.json");
    CHECK(c.status == core::BaselineStatus::Changed);
    CHECK(c.comparison->divergent_ids.size() == cert.cert.baseline_check->n_changed);
    CHECK(cert.cert.run->workset->find("the rows of --baseline") != std::string::npos);

    // Settings that differ from the baseline's are refused before anything launches, all named.
    const auto refused = live({}, {"--n-predict", "32", "--reps", "2"});
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("was recorded with --reps 1 (this run: 2), "
                                            "--n-predict 16 (this run: 32)"));
    // A sweep's ctx list must hold the baseline's ctx; a plan's shards take none.
    const auto other_ctx = live({}, {"--ctx", "1024"});
    CHECK(other_ctx.exit_code == 2);
    CHECK_THAT(other_ctx.err, Catch::Contains("--ctx 512 (not among this run's)"));
}

TEST_CASE("report shows baseline checks as their own table, and an edited one as INVALID",
          "[cli][baseline]") {
    Bench bench;
    REQUIRE(record(bench).exit_code == 0);
    const std::string dir = bench.dir.file("b");
    REQUIRE(check(bench, dir + "/same.baseline-check.json").exit_code == 0);
    REQUIRE(
        check(bench, dir + "/changed.baseline-check.json", {"--build-variant=score"}).exit_code ==
        3);
    auto r = run_command({BI_RUN_PATH, "report", dir, "--html", bench.dir.file("r.html"), "--junit",
                          bench.dir.file("j.xml")});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("baseline checks"));
    CHECK_THAT(r.out, Catch::Contains(" SAME "));
    CHECK_THAT(r.out, Catch::Contains(" CHANGED "));
    CHECK_THAT(r.err, Catch::Contains("a baseline, not a cert: skipped"));
    const auto html = testing::read_text(bench.dir.file("r.html"));
    CHECK_THAT(html, Catch::Contains("<h2>Baseline checks</h2>"));
    // Each changed id links to its excerpt pair.
    const auto changed = read_check(dir + "/changed.baseline-check.json");
    for (std::size_t i = 0; i < changed.comparison->divergent_ids.size(); ++i) {
        const std::string anchor = "-id-" + std::to_string(i) + "\"";
        CHECK_THAT(html, Catch::Contains("href=\"#check-m__ctx512_baseline-check_json"));
        CHECK_THAT(html, Catch::Contains(anchor));
    }
    CHECK_THAT(html, Catch::Contains("<div class=\"label\">baseline"));
    const auto junit = testing::read_text(bench.dir.file("j.xml"));
    CHECK_THAT(junit, Catch::Contains("<testsuite name=\"baseline checks: m\" tests=\"2\" "
                                      "failures=\"1\""));

    // An edited check report is not relied on: INVALID, exit 1.
    auto text = testing::read_text(dir + "/changed.baseline-check.json");
    const std::string status = "\"status\": \"changed\"";
    REQUIRE(text.find(status) != std::string::npos);
    text.replace(text.find(status), status.size(), "\"status\": \"same\"");
    io::write_file_atomically(dir + "/changed.baseline-check.json", text);
    r = run_command({BI_RUN_PATH, "report", dir});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::Contains("INVALID (digest mismatch), claims SAME"));
    CHECK_THAT(r.err, Catch::Contains("digest mismatch: the baseline check report was edited"));
}

TEST_CASE("bi-run baseline: the group's usage, and its commands' one-line errors",
          "[cli][baseline]") {
    auto r = run_command({BI_RUN_PATH, "baseline"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("baseline record"));
    CHECK_THAT(r.err, Catch::Contains("baseline check"));
    r = run_command({BI_RUN_PATH, "baseline", "compare"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("bi-run baseline: unknown command 'compare'"));
    r = run_command({BI_RUN_PATH, "help", "baseline"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("baseline check"));
    r = run_command({BI_RUN_PATH, "baseline", "check", "--server-bin", BI_MOCK_SERVER_PATH});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("bi-run baseline check: --baseline FILE is required"));
    r = run_command({BI_RUN_PATH, "baseline", "record", "--parallel", "4"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("unknown option --parallel"));
}
