#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <thread>

#include "core/cert.hpp"
#include "core/error.hpp"
#include "io/cert_io.hpp"
#include "io/cert_schema.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "scratch_dir.hpp"
#include "trial_builders.hpp"

using namespace bi;
namespace fs = std::filesystem;

namespace {

core::Cert sample_cert(bool red = false) {
    auto e = testing::clean_cell(6, 2);
    if (red) e.arm_c[0]["id1"].extracted_answer = "moved";
    const core::CertContext c = testing::fixed_cert_context();
    return core::build_cert(c, core::decide_verdict(e));
}

}  // namespace

TEST_CASE("render: sorted keys, 2-space indent, trailing newline, digest", "[cert_io]") {
    const std::string text = io::render_cert(sample_cert());
    CHECK(text.back() == '\n');
    CHECK(text.rfind("{\n  \"anomaly\": null,\n  \"arm_b\": {\n    \"ab_passed\": true", 0) == 0);
    auto parsed = io::parse_json(text, "cert");
    CHECK(parsed.find("digest")->as_string() == io::cert_digest(parsed));
    CHECK(parsed.find("digest")->as_string().size() == 64);
}

TEST_CASE("write -> read gives the identical value", "[cert_io]") {
    testing::ScratchDir dir;
    const auto path = dir.file("c.json");
    const auto cert = sample_cert(true);
    io::write_cert(path, cert);
    auto loaded = io::read_cert(path);
    CHECK(loaded.digest_intact);
    CHECK(loaded.shape_problem.empty());
    auto without_digest = loaded.document;
    without_digest.erase("digest");
    CHECK(without_digest == io::cert_to_json(cert));
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0644);
}

TEST_CASE("editing any byte of content breaks the digest", "[cert_io]") {
    testing::ScratchDir dir;
    const auto path = dir.file("c.json");
    io::write_cert(path, sample_cert(true));
    std::string text = io::read_file(path);
    const auto at = text.find("\"failed\"");
    REQUIRE(at != std::string::npos);
    text.replace(at, 8, "\"green\" ");
    io::write_file_atomically(path, text);
    auto loaded = io::read_cert(path);
    CHECK_FALSE(loaded.digest_intact);
    CHECK_FALSE(core::check_promotable(loaded.cert, loaded.digest_intact).promotable);
}

TEST_CASE("reading reports missing files and non-JSON", "[cert_io]") {
    testing::ScratchDir dir;
    CHECK_THROWS_WITH(io::read_cert(dir.file("nope.json")),
                      Catch::Contains("cannot read") && Catch::Contains("nope.json"));
    const auto path = dir.file("junk.json");
    io::write_file_atomically(path, "not json");
    CHECK_THROWS_WITH(io::read_cert(path), Catch::Contains("invalid JSON at offset 1"));
}

TEST_CASE("a concurrent reader never sees a partial cert", "[cert_io]") {
    testing::ScratchDir dir;
    const auto path = dir.file("c.json");
    const std::string green = io::render_cert(sample_cert(false));
    const std::string red = io::render_cert(sample_cert(true));
    io::write_file_atomically(path, green);

    std::atomic<bool> done{false};
    std::thread writer([&] {
        for (int i = 0; i < 300; ++i) io::write_file_atomically(path, i % 2 ? green : red);
        done = true;
    });
    int reads = 0, torn = 0;
    while (!done || reads < 50) {
        const std::string seen = io::read_file(path);
        if (seen != green && seen != red) ++torn;
        ++reads;
    }
    writer.join();
    CHECK(torn == 0);
    CHECK(reads >= 50);
    // No temp files are left behind.
    CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 1);
}

TEST_CASE("a failed write leaves the existing file untouched", "[cert_io]") {
    testing::ScratchDir dir;
    const auto path = dir.file("c.json");
    io::write_file_atomically(path, "original");
    core::Cert bad = sample_cert();
    bad.sensitivity.rule_of_three_upper = std::nan("");
    CHECK_THROWS_AS(io::write_cert(path, bad), Error);
    CHECK(io::read_file(path) == "original");
    CHECK_THROWS_AS(io::write_file_atomically(dir.file("no/such/dir.json"), "x"), Error);
}

TEST_CASE("a cert reads back through the field table and agrees with itself", "[cert_io]") {
    const auto document = io::parse_json(io::render_cert(sample_cert(true)), "cert");
    const auto parsed = io::cert_from_json(document);
    REQUIRE(parsed.cert);
    CHECK(parsed.cert->verdict.status == core::Status::Failed);
    CHECK(parsed.cert->divergence.ac.divergent_ids == std::vector<std::string>{"id1"});
    // A derived field edited on its own no longer agrees with the evidence it repeats.
    auto edited = document;
    edited.set("mismatch", core::Json::array());
    CHECK_THAT(io::validate_cert_shape(edited),
               Catch::StartsWith("$.mismatch: does not agree with the rest of the cert"));
    // A key the schema does not have is refused too.
    edited = document;
    edited.set("promotable", true);
    CHECK_THAT(io::validate_cert_shape(edited), Catch::StartsWith("$.promotable: does not agree"));
}

TEST_CASE("a file created only if absent is whole, exclusive and keeps its mode", "[files]") {
    testing::ScratchDir dir;
    const std::string path = dir.file("key");
    CHECK(io::create_file_atomically(path, "secret", 0600));
    CHECK(testing::read_text(path) == "secret");
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    CHECK_FALSE(io::create_file_atomically(path, "other"));  // never replaced
    CHECK(testing::read_text(path) == "secret");
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.file("")))
        ++files;
    CHECK(files == 1);  // no temp file left behind
    CHECK_THROWS_WITH(
        io::create_file_atomically(dir.file("no/such/dir/f"), "x"),
        Catch::Contains("no/such/dir/f") && Catch::Contains("No such file or directory"));
}
