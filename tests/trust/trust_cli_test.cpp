// The trust workflow through the real bi-run: keygen, run --sign-key, verify-cert with trusted
// keys and expectations, cert history across runs, attest + openssl over the DSSE PAE bytes,
// provenance (a stand-in nvidia-smi on PATH), and an upstream-shaped cert.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <tuple>

#include "built_paths.hpp"
#include "core/cert.hpp"
#include "core/json.hpp"
#include "core/sha256.hpp"
#include "io/cert_io.hpp"
#include "io/file_hash_cache.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"
#include "trial_builders.hpp"
#include "trust/signing.hpp"

using namespace bi;
using testing::run_command;

namespace {

namespace fs = std::filesystem;

const std::string kCert = "bi-mock__ctx512__N4.json";

// run-mock on the small work-set; `env` entries ("NAME=VALUE") go through /usr/bin/env.
testing::CommandResult run_mock(const std::string& out_dir, std::vector<std::string> extra = {},
                                const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv{"/usr/bin/env"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.insert(argv.end(),
                {BI_RUN_PATH, "run-mock", "--out-dir", out_dir, "--workset", BI_SMALL_WORKSET,
                 "--n-predict", "8", "--ctx", "512", "--tick-ms", "5", "--passes", "2", "--quiet"});
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv);
}

testing::CommandResult bi_run(std::vector<std::string> args) {
    args.insert(args.begin(), BI_RUN_PATH);
    return run_command(args);
}

std::string keygen(const testing::ScratchDir& dir, const std::string& name) {
    const auto r = bi_run({"keygen", "--out", dir.file(name)});
    REQUIRE(r.exit_code == 0);
    return dir.file(name);
}

core::Json read_json(const std::string& path) {
    return io::parse_json(io::read_file(path), path);
}

// A run that reached a verdict and wrote its cert: exit 0 for GREEN, 3 for any other verdict (a
// loaded machine may leave the mock's overlap unproven; these tests are about the cert's trust).
bool reached_verdict(const testing::CommandResult& r) {
    INFO(r.out << r.err);
    return r.exit_code == 0 || r.exit_code == 3;
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("keygen -> run-mock --sign-key -> verify-cert --trusted-key reports the key",
          "[trust][cli]") {
    testing::ScratchDir dir;
    const auto key = keygen(dir, "key");
    const auto keygen_again = bi_run({"keygen", "--out", key});
    CHECK(keygen_again.exit_code == 2);
    CHECK(contains(keygen_again.err, "never overwrites"));

    const auto run = run_mock(dir.file("certs"), {"--sign-key", key});
    REQUIRE(reached_verdict(run));
    const auto cert = dir.file("certs/" + kCert);
    const auto document = read_json(cert);
    const std::string key_id = document.find("signature")->string_or("key_id", "");
    CHECK(contains(run.out + run.err, "BEGIN") == false);  // the key is never printed

    const auto verified =
        bi_run({"verify-cert", cert, "--trusted-key", key + ".pub", "--require-signature"});
    CHECK(verified.exit_code == 3);  // a mock cert is never promotable, signed or not
    CHECK(contains(verified.out, "signature ok, ed25519 key " + key_id));
    CHECK_FALSE(contains(verified.out, "not among the trusted keys"));

    // The same key through $BI_SIGN_KEY, and a directory of trusted keys.
    const auto by_env = run_mock(dir.file("env"), {}, {"BI_SIGN_KEY=" + key});
    REQUIRE(reached_verdict(by_env));
    const auto dir_keys =
        bi_run({"verify-cert", dir.file("env/" + kCert), "--trusted-key", dir.path()});
    CHECK(contains(dir_keys.out, "signature ok, ed25519 key " + key_id));

    // Unsigned certs stay as verifiable as before, but --require-signature refuses them.
    REQUIRE(reached_verdict(run_mock(dir.file("plain"))));
    const auto plain = bi_run({"verify-cert", dir.file("plain/" + kCert)});
    CHECK(plain.exit_code == 3);
    CHECK_FALSE(contains(plain.out, "signature"));
    const auto required = bi_run({"verify-cert", dir.file("plain/" + kCert), "--trusted-key",
                                  key + ".pub", "--require-signature"});
    CHECK(required.exit_code == 3);
    CHECK(contains(required.out, "unsigned, and --require-signature asks for a signature"));
    CHECK(bi_run({"verify-cert", cert, "--require-signature"}).exit_code == 2);
}

TEST_CASE("verify-cert: an edited signed cert with a recomputed digest fails its signature",
          "[trust][cli]") {
    testing::ScratchDir dir;
    const auto key = keygen(dir, "key");
    const auto other = keygen(dir, "other");
    REQUIRE(reached_verdict(run_mock(dir.file("c"), {"--sign-key", key})));
    const auto cert = dir.file("c/" + kCert);

    // Signed by a key the reader does not trust: not promotable, and said so.
    const auto wrong = bi_run({"verify-cert", cert, "--trusted-key", other + ".pub"});
    CHECK(wrong.exit_code == 3);
    CHECK(contains(wrong.out, "which is not among the trusted keys"));

    core::Json document = read_json(cert);
    document.set("ts_utc", "2030-01-01T00:00:00Z");
    document.set("digest", io::cert_digest(document));
    io::write_file_atomically(cert, io::to_json_text(document, true) + "\n");
    const auto forged = bi_run({"verify-cert", cert, "--trusted-key", key + ".pub"});
    CHECK(forged.exit_code == 1);
    CHECK(contains(forged.out, "does NOT verify"));
    CHECK(contains(forged.err, "changed after it was signed"));
}

TEST_CASE("a signing key readable by others is refused before anything runs", "[trust][cli]") {
    testing::ScratchDir dir;
    const auto key = keygen(dir, "key");
    REQUIRE(::chmod(key.c_str(), 0644) == 0);
    const auto r = run_mock(dir.file("c"), {"--sign-key", key});
    CHECK(r.exit_code == 2);
    CHECK(
        contains(r.err, "--sign-key " + key + ": the private key is readable by group or others"));
    CHECK_FALSE(fs::exists(dir.file("c")));
    const auto env = run_mock(dir.file("c"), {}, {"BI_SIGN_KEY=" + key});
    CHECK(env.exit_code == 2);
    CHECK(contains(env.err, "$BI_SIGN_KEY " + key));
}

TEST_CASE("verify-cert --expect and --expect-deployment list the keys that differ",
          "[trust][cli]") {
    testing::ScratchDir dir;
    REQUIRE(reached_verdict(run_mock(dir.file("c"))));
    const auto cert = dir.file("c/" + kCert);
    const auto document = read_json(cert);
    const std::string workset_sha = document.find("provenance")->string_or("workset_sha256", "");
    REQUIRE(workset_sha.size() == 64);

    const auto ok = bi_run({"verify-cert", cert, "--expect", "ctx=512", "--expect", "n=4",
                            "--expect", "workset_sha256=" + workset_sha});
    CHECK_FALSE(contains(ok.out, "made for another deployment"));

    const auto differs = bi_run({"verify-cert", cert, "--expect", "ctx=4096", "--expect",
                                 "kv_label=q8_0", "--expect", "n=4"});
    CHECK(differs.exit_code == 3);
    CHECK(
        contains(differs.out, "made for another deployment: ctx: expected 4096, the cert has 512"));
    CHECK(contains(differs.out, "kv_label: expected q8_0, the cert has f16"));
    CHECK_FALSE(contains(differs.out, "n: expected"));

    const auto deployment = dir.write(
        "deploy.json", R"({"ctx": 512, "server_flag": ["--flash-attn"], "plugin_sha256": "00"})");
    const auto file = bi_run({"verify-cert", cert, "--expect-deployment", deployment});
    CHECK(file.exit_code == 3);
    CHECK(contains(file.out, "server_flag: expected --flash-attn among the server flags"));
    CHECK(contains(file.out, "plugin_sha256: expected 00 among the plugins"));
    CHECK_FALSE(contains(file.out, "ctx: expected"));

    // A value with a comma stays one expectation (a flag such as --tensor-split 3,1).
    const auto comma = bi_run({"verify-cert", cert, "--expect", "server_flag=3,1"});
    CHECK(comma.exit_code == 3);
    CHECK(contains(comma.out, "server_flag: expected 3,1 among the server flags"));

    const auto unknown = bi_run({"verify-cert", cert, "--expect", "colour=blue"});
    CHECK(unknown.exit_code == 2);
    CHECK(contains(unknown.err, "--expect colour=blue: unknown key 'colour'"));
}

TEST_CASE("history: RED then GREEN into one directory keeps the RED and marks the cell flaky",
          "[trust][cli][history]") {
    testing::ScratchDir dir;
    const auto out = dir.file("c");
    REQUIRE(run_mock(out, {"--divergence", "score"}).exit_code == 3);
    const std::string red_text = testing::read_text(out + "/" + kCert);
    REQUIRE(reached_verdict(run_mock(out)));
    REQUIRE(reached_verdict(run_mock(out)));

    std::vector<std::string> history;
    for (const auto& entry : fs::directory_iterator(out + "/history"))
        history.push_back(entry.path().string());
    REQUIRE(history.size() == 2);  // nothing is ever deleted
    bool red_kept = false;
    for (const auto& file : history) red_kept = red_kept || testing::read_text(file) == red_text;
    CHECK(red_kept);

    const auto document = read_json(out + "/" + kCert);
    const auto& previous = document.find("previous")->as_array();
    REQUIRE(previous.size() == 2);
    CHECK(previous[0].string_or("status", "") == "failed");
    CHECK(previous[1].string_or("status", "") != "failed");

    const auto verified = bi_run({"verify-cert", out + "/" + kCert});
    CHECK(verified.exit_code == 3);
    CHECK(contains(verified.out, "a RED for this configuration"));
    const auto report = bi_run({"report", out});
    CHECK(report.exit_code == 0);
    CHECK(contains(report.out, "flaky: RED 1 of 3 runs"));
    // Every output that shows the verdict says the history holds it back.
    CHECK(contains(report.out, " [held back by its history]"));
    CHECK(contains(bi_run({"report", "--markdown", out}).out, "(held back)"));
    const auto report_json = io::parse_json(bi_run({"report", "--json", out}).out, "report");
    CHECK(report_json.as_array().front().string_or("history", "") == "flaky: RED 1 of 3 runs");
}

TEST_CASE("attest: the DSSE envelope verifies with openssl over the PAE bytes", "[trust][cli]") {
    testing::ScratchDir dir;
    const auto key = keygen(dir, "key");
    REQUIRE(run_mock(dir.file("red"), {"--divergence", "score"}).exit_code == 3);
    REQUIRE(reached_verdict(run_mock(dir.file("green"))));
    const auto envelope_path = dir.file("red.intoto.json");
    const auto attest =
        bi_run({"attest", dir.file("red/" + kCert), "--out", envelope_path, "--sign-key", key});
    REQUIRE(attest.exit_code == 0);

    const auto envelope = read_json(envelope_path);
    const std::string type = envelope.string_or("payloadType", "");
    CHECK(type == "application/vnd.in-toto+json");
    const auto& signatures = envelope.find("signatures")->as_array();
    REQUIRE(signatures.size() == 1);
    // Decode with openssl, build the PAE here, verify with openssl: nothing of ours in between.
    dir.write("payload.b64", envelope.string_or("payload", ""));
    dir.write("sig.b64", signatures[0].string_or("sig", ""));
    REQUIRE(run_command({"/usr/bin/openssl", "base64", "-d", "-A", "-in", dir.file("payload.b64"),
                         "-out", dir.file("payload.bin")})
                .exit_code == 0);
    REQUIRE(run_command({"/usr/bin/openssl", "base64", "-d", "-A", "-in", dir.file("sig.b64"),
                         "-out", dir.file("sig.bin")})
                .exit_code == 0);
    const std::string payload = testing::read_text(dir.file("payload.bin"));
    dir.write("pae.bin", "DSSEv1 " + std::to_string(type.size()) + " " + type + " " +
                             std::to_string(payload.size()) + " " + payload);
    const auto verify =
        run_command({"/usr/bin/openssl", "pkeyutl", "-verify", "-pubin", "-inkey", key + ".pub",
                     "-rawin", "-in", dir.file("pae.bin"), "-sigfile", dir.file("sig.bin")});
    INFO(verify.out << verify.err);
    CHECK(verify.exit_code == 0);
    // A changed payload byte does not verify.
    dir.write("pae.bin", "DSSEv1 " + std::to_string(type.size()) + " " + type + " " +
                             std::to_string(payload.size()) + " " + payload.substr(0, 10) + "X" +
                             payload.substr(11));
    CHECK(run_command({"/usr/bin/openssl", "pkeyutl", "-verify", "-pubin", "-inkey", key + ".pub",
                       "-rawin", "-in", dir.file("pae.bin"), "-sigfile", dir.file("sig.bin")})
              .exit_code != 0);

    const auto statement = io::parse_json(payload, "statement");
    CHECK(statement.string_or("_type", "") == "https://in-toto.io/Statement/v1");
    CHECK(statement.find("predicate")->string_or("result", "") == "FAILED");
    const auto cert = read_json(dir.file("red/" + kCert));
    const auto& subjects = statement.find("subject")->as_array();
    // The cert's subject is its file's bytes, as `sha256sum` (and every in-toto verifier) sees
    // them; the internal digest rides along as an annotation.
    CHECK(subjects.front().find("digest")->string_or("sha256", "") ==
          core::sha256_hex(testing::read_text(dir.file("red/" + kCert))));
    CHECK(subjects.front().find("annotations")->string_or("bi_cert_digest", "") ==
          cert.string_or("digest", ""));
    bool has_workset = false;
    for (const auto& s : subjects)
        has_workset = has_workset || s.string_or("name", "") == BI_SMALL_WORKSET;
    CHECK(has_workset);

    // verify-cert reads the envelope back: signature checked, result shown.
    const auto back = bi_run({"verify-cert", envelope_path, "--trusted-key", key + ".pub"});
    CHECK(back.exit_code == 3);
    CHECK(contains(back.out, "in-toto attestation, result FAILED"));
    CHECK(contains(back.out, "signature ok"));

    // A mock GREEN is not promotable: WARNED, unsigned here.
    const auto green_path = dir.file("green.intoto.json");
    REQUIRE(bi_run({"attest", dir.file("green/" + kCert), "--out", green_path}).exit_code == 0);
    const auto green_payload = trust::base64_decode(read_json(green_path).string_or("payload", ""));
    REQUIRE(green_payload);
    CHECK(io::parse_json(*green_payload, "g").find("predicate")->string_or("result", "") ==
          "WARNED");
    const auto unsigned_back =
        bi_run({"verify-cert", green_path, "--trusted-key", key + ".pub", "--require-signature"});
    CHECK(unsigned_back.exit_code == 3);
    CHECK(contains(unsigned_back.out, "no signature by a trusted key"));

    // An envelope whose payload was swapped fails its signature: exit 1.
    core::Json tampered = envelope;
    tampered.set("payload", read_json(green_path).string_or("payload", ""));
    io::write_file_atomically(dir.file("tampered.json"), io::to_json_text(tampered));
    const auto swapped =
        bi_run({"verify-cert", dir.file("tampered.json"), "--trusted-key", key + ".pub"});
    CHECK(swapped.exit_code == 1);
    CHECK(swapped.out.rfind(dir.file("tampered.json") + ": INVALID (signature does not verify)\n",
                            0) == 0);
}

TEST_CASE(
    "attest: a promotable GREEN is PASSED, and verify-cert takes it only when signed by a "
    "trusted key",
    "[trust][cli]") {
    testing::ScratchDir dir;
    const auto key = keygen(dir, "key");
    core::CertContext context = testing::fixed_cert_context();
    const auto cert = dir.file("live.json");
    io::write_cert(cert,
                   core::build_cert(context, core::decide_verdict(testing::clean_cell(6, 2))));
    REQUIRE(bi_run({"verify-cert", cert}).exit_code == 0);
    const auto out = dir.file("live.intoto.json");
    const auto attest = bi_run({"attest", cert, "--out", out, "--sign-key", key});
    REQUIRE(attest.exit_code == 0);
    CHECK(contains(attest.out, "result PASSED"));
    const auto trusted = bi_run({"verify-cert", out, "--trusted-key", key + ".pub"});
    CHECK(trusted.exit_code == 0);
    CHECK(contains(trusted.out, "result PASSED"));
    const auto unchecked = bi_run({"verify-cert", out});
    CHECK(unchecked.exit_code == 3);
    CHECK(contains(unchecked.out, "not vouched for"));
}

TEST_CASE("provenance: bi-run, plugins, work-set, GPUs from nvidia-smi, CUDA_VISIBLE_DEVICES",
          "[trust][cli]") {
    testing::ScratchDir dir;
    fs::create_directories(dir.file("bin"));
    const auto smi = dir.write("bin/nvidia-smi",
                               "#!/bin/sh\necho 'Stand-in H200, 555.42.06'\n"
                               "echo 'Stand-in H200, 555.42.06'\n");
    REQUIRE(::chmod(smi.c_str(), 0755) == 0);
    const std::string path = dir.file("bin") + ":" + std::getenv("PATH");
    REQUIRE(
        reached_verdict(run_mock(dir.file("c"), {}, {"PATH=" + path, "CUDA_VISIBLE_DEVICES=1,3"})));
    const auto cert = read_json(dir.file("c/" + kCert));
    const core::Json& host = *cert.find("host");
    REQUIRE(host.find("gpus")->size() == 2);
    CHECK(host.find("gpus")->as_array()[0].as_string() == "Stand-in H200");
    CHECK(host.string_or("gpu_driver", "") == "555.42.06");
    CHECK(host.string_or("gpu_source", "") == "nvidia-smi");
    CHECK(host.string_or("cuda_visible_devices", "") == "1,3");

    const core::Json& provenance = *cert.find("provenance");
    CHECK(provenance.string_or("tool", "") == "bi-run");
    CHECK_FALSE(provenance.string_or("version", "").empty());
    const auto& argv = provenance.find("argv")->as_array();
    REQUIRE(argv.size() > 2);
    CHECK(argv[1].as_string() == "run-mock");
    bool exact_hashed = false;
    for (const auto& plugin : provenance.find("plugins")->as_array())
        if (plugin.string_or("id", "") == "exact")
            exact_hashed = plugin.string_or("sha256", "") ==
                           io::stream_file_sha256(plugin.string_or("path", ""));
    CHECK(exact_hashed);
    CHECK(provenance.string_or("workset_sha256", "") == io::stream_file_sha256(BI_SMALL_WORKSET));

    // A generated work-set is recorded by its generator's parameters and seed instead.
    const std::vector<std::string> generated{BI_RUN_PATH,
                                             "run-mock",
                                             "--out-dir",
                                             dir.file("g"),
                                             "--generator",
                                             "spark",
                                             "--generator-param",
                                             "families=A4",
                                             "--generator-param",
                                             "corner=short",
                                             "--seed",
                                             "7",
                                             "--n-predict",
                                             "8",
                                             "--ctx",
                                             "512",
                                             "--passes",
                                             "1",
                                             "--quiet"};
    REQUIRE(reached_verdict(run_command(generated)));
    const auto g = read_json(dir.file("g/" + kCert));
    const core::Json& gp = *g.find("provenance");
    CHECK(gp.find("generator_params")->as_array() ==
          core::Json::Array{core::Json("families=A4"), core::Json("corner=short")});
    CHECK(gp.find("generator_seed")->as_int() == 7);
    CHECK_FALSE(gp.find("workset_sha256"));
    CHECK(g.find("run")->string_or("generator", "") == "spark");
}

TEST_CASE(
    "run-live records the model's full sha256 (hashed once per out-dir) and the server's "
    "--version text",
    "[trust][cli]") {
    testing::ScratchDir dir;
    const auto model = dir.write("model.gguf", "not really a model, but a file to hash");
    const std::vector<std::string> argv{BI_RUN_PATH,     "run-live",
                                        "--server-bin",  BI_MOCK_SERVER_PATH,
                                        "--model",       model,
                                        "--model-alias", "m",
                                        "--out-dir",     dir.file("out"),
                                        "--workset",     BI_SMALL_WORKSET,
                                        "--n-predict",   "8",
                                        "--passes",      "1",
                                        "--ctx",         "512"};
    const auto first = run_command(argv);
    REQUIRE(reached_verdict(first));
    CHECK(contains(first.err, "hashing the model: 100% of 38 bytes"));  // units that fit
    const auto cert = read_json(dir.file("out/m__ctx512__N4.json"));
    CHECK(cert.find("model_file")->string_or("sha256", "") ==
          core::sha256_hex("not really a model, but a file to hash"));
    CHECK(contains(cert.find("server")->find("A")->string_or("version_text", ""), "bi-mock"));

    const auto second = run_command(argv);
    REQUIRE(reached_verdict(second));
    CHECK(contains(second.err, "model sha256 from the hash cache"));
    CHECK_FALSE(contains(second.err, "hashing the model"));
    const auto verified =
        bi_run({"verify-cert", dir.file("out/m__ctx512__N4.json"), "--expect",
                "model_sha256=" + core::sha256_hex("not really a model, but a file to hash")});
    CHECK_FALSE(contains(verified.out, "made for another deployment"));
    CHECK(bi_run({"report", dir.file("out")}).exit_code == 0);  // the hash cache is no cert
}

TEST_CASE("the upstream demo RED reads alike in verify-cert, report and attest",
          "[trust][cli][upstream]") {
    testing::ScratchDir dir;
    // The upstream tool's output contract: no schema, no digest, `mismatch` a summary string and
    // the AC count in divergence_report.AC.n_divergent and sensitivity.n_ac_divergent.
    const std::string path = dir.file("demo_dense_red.json");
    fs::copy_file(BI_UPSTREAM_RED, path);
    const std::string verdict = "RED (failed, co_batching)";

    const auto r = bi_run({"verify-cert", path});
    CHECK(r.exit_code == 3);
    CHECK(r.out.substr(0, r.out.find('\n')) == path + ": " + verdict + ", not promotable");
    CHECK(contains(r.out, "source live, diverged 1, upstream v0.1 cert (no digest)"));
    CHECK(contains(r.out, "reason: AC.n_divergent=1; AB.n_divergent=0; BC.n_divergent=1"));

    const auto report = bi_run({"report", path});
    CHECK(report.exit_code == 0);
    CHECK(contains(report.out, "demo-dense"));
    CHECK(contains(report.out, verdict + " [upstream v0.1 cert (no digest)]"));
    const auto csv = bi_run({"report", "--csv", path});
    CHECK(contains(csv.out, "[upstream v0.1 cert (no digest)]\",live,no,1,"));
    const core::Json rows = io::parse_json(bi_run({"report", "--json", path}).out, "report");
    REQUIRE(rows.size() == 1);
    CHECK(rows.as_array().front().find("n_divergent")->as_int() == 1);

    const std::string envelope = dir.file("demo.intoto.json");
    const auto attest = bi_run({"attest", path, "--out", envelope});
    INFO(attest.err);
    CHECK(attest.exit_code == 0);
    CHECK(contains(attest.out, "result FAILED"));
    REQUIRE(fs::exists(envelope));
    const auto back = bi_run({"verify-cert", envelope});
    CHECK(back.exit_code == 3);  // an upstream cert is never PASSED
    CHECK(contains(back.out, "in-toto attestation, result FAILED"));
    CHECK(contains(back.out,
                   "subject demo_dense_red.json sha256 " + core::sha256_hex(io::read_file(path))));

    const auto broken = dir.write("broken.json", R"({"status": "purple", "model": "m"})");
    CHECK(bi_run({"verify-cert", broken}).exit_code == 1);
    const auto unsized = dir.write("unsized.json", R"({"status": "failed", "model": "m", "ctx": 1,
      "dispatch_n": 2, "divergence_report": {"AC": {"n_divergent": -1}}})");
    CHECK(bi_run({"verify-cert", unsized}).exit_code == 1);
}

namespace {

// The judgement a command printed for `path` on stderr: the line from the path on, whatever the
// command's own prefix ("bi-run: ", "bi-run report: note: ", "bi-run attest: ").
std::string judged_line(const std::string& err, const std::string& path) {
    std::size_t start = 0;
    while (start < err.size()) {
        const auto end = err.find('\n', start);
        const std::string line = err.substr(start, end == std::string::npos ? end : end - start);
        if (const auto at = line.find(path + ": "); at != std::string::npos) return line.substr(at);
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return "(no line for " + path + " in: " + err + ")";
}

}  // namespace

TEST_CASE("verify-cert, report and attest judge the same file the same way", "[trust][cli]") {
    testing::ScratchDir dir;
    const auto key = keygen(dir, "key");
    const auto other = keygen(dir, "other");
    REQUIRE(reached_verdict(run_mock(dir.file("c"), {"--sign-key", key})));
    const core::Json signed_cert = read_json(dir.file("c/" + kCert));
    const auto write = [&dir](const std::string& name, const core::Json& document) {
        return dir.write(name, io::to_json_text(document, true) + "\n");
    };
    core::Json edited = signed_cert;  // changed after its digest was computed
    edited.set("ts_utc", "2030-01-01T00:00:00Z");
    core::Json relabelled = signed_cert;  // a verdict its evidence does not give, re-digested
    relabelled.set("status", signed_cert.string_or("status", "") == "failed" ? "green" : "failed");
    relabelled.set("digest", io::cert_digest(relabelled));
    const std::string digest = write("digest.json", edited);
    const std::string inconsistent = write("inconsistent.json", relabelled);
    // A repeated key: a reader that keeps the first "status" sees another verdict under the
    // same digest and signature.
    std::string doubled = io::to_json_text(signed_cert, true);
    doubled.insert(1, "\n  \"status\": \"failed\",");
    const std::string repeated = dir.write("repeated.json", doubled);
    const std::string upstream = dir.write("upstream.json", R"({
  "model": "demo-model", "ctx": 4096, "dispatch_n": 4, "status": "green", "source": "live",
  "decision_reasons": ["no divergence"], "mismatch": [], "ts_utc": "2025-06-01T12:00:00Z"
})");
    const std::string other_key = write("other_key.json", signed_cert);
    const std::string trusted = other + ".pub";

    struct Judged {
        testing::CommandResult verify, report, attest;
        std::string envelope;
    };
    const auto through_all = [&](const std::string& path) {
        Judged j;
        j.envelope = path + ".intoto.json";
        j.verify = bi_run({"verify-cert", path, "--trusted-key", trusted});
        j.report = bi_run({"report", "--json", path, "--trusted-key", trusted});
        j.attest = bi_run({"attest", path, "--out", j.envelope, "--trusted-key", trusted});
        return j;
    };

    for (const auto& [path, problem, word] :
         {std::tuple{digest, ": digest mismatch: the cert was edited or corrupted",
                     "INVALID (digest mismatch)"},
          std::tuple{inconsistent, ": the cert disagrees with itself: status is ",
                     "INVALID (disagrees with itself)"},
          std::tuple{repeated, ": invalid JSON at offset ", "INVALID (unreadable)"}}) {
        INFO(path);
        const Judged j = through_all(path);
        // What a person reads first says the file is invalid, never the verdict it claims.
        CHECK(j.verify.out.rfind(path + ": " + word + "\n", 0) == 0);
        CHECK(contains(j.report.out, "\"status\":\"invalid\""));
        CHECK(j.verify.exit_code == 1);
        CHECK(j.report.exit_code == 1);
        CHECK(j.attest.exit_code == 1);
        CHECK_FALSE(fs::exists(j.envelope));  // nothing is attested for a file nobody can rely on
        const std::string line = judged_line(j.verify.err, path);
        CHECK(contains(line, path + problem));
        if (path == repeated) CHECK(contains(line, "the key \"status\" appears twice"));
        CHECK(judged_line(j.report.err, path) == line);
        CHECK(judged_line(j.attest.err, path) == line);
    }

    {
        INFO("upstream");
        const Judged j = through_all(upstream);
        CHECK(j.verify.exit_code == 3);  // read, shown, never promotable
        CHECK(j.report.exit_code == 0);  // a report shows it for what it is
        CHECK(j.attest.exit_code == 0);  // attested by the file's hash, never PASSED
        CHECK(fs::exists(j.envelope));
        CHECK(contains(j.attest.out, "result WARNED"));
        const std::string line = judged_line(j.verify.err, upstream);
        CHECK(contains(line, "upstream v0.1 cert (no digest), status green: never promotable"));
        CHECK(judged_line(j.report.err, upstream) == line);
        CHECK(judged_line(j.attest.err, upstream) == line);
    }

    {
        INFO("signed by a key that is not trusted");
        const Judged j = through_all(other_key);
        const std::string key_id = signed_cert.find("signature")->string_or("key_id", "");
        const std::string reason =
            "signed by key " + key_id + ", which is not among the trusted keys";
        CHECK(j.verify.exit_code == 3);
        CHECK(contains(j.verify.out, "  - " + reason));
        CHECK(j.report.exit_code == 0);
        const core::Json rows = io::parse_json(j.report.out, "report");
        REQUIRE(rows.size() == 1);
        const core::Json& row = rows.as_array().front();
        CHECK(row.string_or("file_kind", "") == "cert");
        CHECK_FALSE(row.bool_or("promotable", true));
        bool listed = false;
        for (const auto& why : row.find("not_promotable_because")->as_array())
            listed = listed || why.as_string() == reason;
        CHECK(listed);
        CHECK(j.attest.exit_code == 0);
        CHECK(contains(j.attest.out, "  - " + reason));
        CHECK_FALSE(contains(j.attest.out, "result PASSED"));
    }
}
