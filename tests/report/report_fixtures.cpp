// bi_report_fixtures DIR [cache|contested]: writes the fixed certs the report tests render, byte
// for byte the same on every run: a 2 x 2 grid of "tiny/rand-256" (GREEN, GREEN, RED whose answers
// hold <script> and quotes, AMBER) and "other-model" (UNVERIFIED, and a GREEN edited after it was
// written, so its digest no longer matches). With `cache`, the same grid of "tiny/rand-256" with
// cache checks (CHANGED at ctx 512, SAME at 1024 but for its AMBER, run without one) and
// "other-model" at ctx 512 (NOT COMPARABLE at N 2, DRIFT ONLY at N 4: two runs that disagree).
// With `contested`, "tiny/rand-256" at ctx 512: a GREEN at N 2 and three certs of N 4 copied into
// one directory, a-amber.json, m-unverified.json and z-red.json.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "../unit/cache_builders.hpp"
#include "../unit/trial_builders.hpp"
#include "core/cert.hpp"
#include "core/sha256.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"

using namespace bi;

namespace {

constexpr const char* kHostileAnswer = "<script>alert(\"pwned\")</script> & 'quoted'";

core::CellEvidence cell_at(std::int64_t n) {
    auto e = testing::clean_cell(8, 2);
    e.dispatch_n = n;
    e.reported_total_slots = n;
    for (auto& server : e.server_c_passes) server = testing::busy_server(n);
    return e;
}

std::string write(const std::string& dir, const std::string& model, std::int64_t ctx,
                  std::int64_t n, const core::CellEvidence& e, core::Source source,
                  std::optional<core::CacheCheck> cache_check = std::nullopt) {
    core::CertContext c = testing::fixed_cert_context();
    c.cell = {model, ctx, n, "f16", 1};
    c.source = source;
    c.cache_check = std::move(cache_check);
    const std::string path = dir + "/" + core::cert_file_name(model, ctx, n);
    io::write_cert(path, core::build_cert(c, core::decide_verdict(e)));
    return path;
}

core::CellEvidence red_cell() {
    auto e = cell_at(4);
    // The serial arms agree on a text with markup in it, so that the page must show it as text.
    const std::string serial = "The answer is \"Paris\" & that's <b>final</b>";
    for (auto* arm : {&e.arm_a, &*e.arm_a_prime, &*e.arm_b}) {
        (*arm)["id3"].content = serial;
        (*arm)["id3"].content_sha = core::content_sha(serial);
    }
    for (auto& pass : e.arm_c) {
        pass["id3"].content = serial;
        pass["id3"].content_sha = core::content_sha(serial);
    }
    auto& moved = e.arm_c[1]["id3"];
    moved.extracted_answer = kHostileAnswer;
    moved.score = 0.0;
    moved.passed = false;
    moved.content = "The answer is <script>alert(\"x\")</script>";
    moved.content_sha = core::content_sha(moved.content);
    moved.token_ids = std::vector<std::int64_t>{1, 2, 7, 7};
    return e;
}

core::CellEvidence amber_cell() {
    auto e = cell_at(4);
    auto& drifted = e.arm_c[0]["id2"];
    drifted.content = "text-id2, worded differently";
    drifted.content_sha = core::content_sha(drifted.content);
    drifted.token_ids = std::vector<std::int64_t>{1, 2, 3, 5};
    return e;
}

core::CellEvidence unverified_cell() {
    auto e = cell_at(4);
    for (auto& server : e.server_c_passes) server = testing::busy_server(1);
    return e;
}

// Edits the cert after it was written, as a person might, without a fresh digest.
void tamper(const std::string& path) {
    std::string text = io::read_file(path);
    const std::string from = "\"ts_utc\": \"2026-01-01T00:00:00Z\"";
    text.replace(text.find(from), from.size(), "\"ts_utc\": \"2026-02-02T00:00:00Z\"");
    io::write_file_atomically(path, text);
}

void write_cache_checks(const std::string& dir) {
    using core::BaselineStatus;
    using testing::cache_check_of;
    const std::string tiny = "tiny/rand-256";
    write(dir, tiny, 512, 2, cell_at(2), core::Source::Live,
          cache_check_of(BaselineStatus::Changed));
    write(dir, tiny, 512, 4, red_cell(), core::Source::Live,
          cache_check_of(BaselineStatus::Changed));
    write(dir, tiny, 1024, 2, cell_at(2), core::Source::Live, cache_check_of(BaselineStatus::Same));
    write(dir, tiny, 1024, 4, amber_cell(), core::Source::Live);
    write(dir, "other-model", 512, 2, cell_at(2), core::Source::Live,
          cache_check_of(BaselineStatus::NotComparable));
    write(dir, "other-model", 512, 4, cell_at(4), core::Source::Live,
          cache_check_of(BaselineStatus::DriftOnly));
}

// Three certs of one cell under names that sort the RED last.
void write_contested(const std::string& dir) {
    const std::string tiny = "tiny/rand-256";
    write(dir, tiny, 512, 2, cell_at(2), core::Source::Live);
    const std::pair<const char*, core::CellEvidence> certs[] = {
        {"a-amber.json", amber_cell()},
        {"m-unverified.json", unverified_cell()},
        {"z-red.json", red_cell()}};
    for (const auto& [name, evidence] : certs)
        std::filesystem::rename(write(dir, tiny, 512, 4, evidence, core::Source::Live),
                                dir + "/" + name);
}

}  // namespace

int main(int argc, char** argv) {
    const std::string set = argc == 3 ? argv[2] : "";
    if (argc < 2 || argc > 3 || !(set.empty() || set == "cache" || set == "contested")) {
        std::fprintf(stderr, "usage: bi_report_fixtures DIR [cache|contested]\n");
        return 2;
    }
    const std::string dir = argv[1];
    try {
        if (set == "cache") {
            write_cache_checks(dir);
            return 0;
        }
        if (set == "contested") {
            write_contested(dir);
            return 0;
        }
        const std::string tiny = "tiny/rand-256";
        write(dir, tiny, 512, 2, cell_at(2), core::Source::Live);
        write(dir, tiny, 1024, 2, cell_at(2), core::Source::Live);
        write(dir, tiny, 512, 4, red_cell(), core::Source::Live);
        write(dir, tiny, 1024, 4, amber_cell(), core::Source::Live);
        write(dir, "other-model", 512, 4, unverified_cell(), core::Source::Live);
        tamper(write(dir, "other-model", 512, 2, cell_at(2), core::Source::Live));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bi_report_fixtures: %s\n", e.what());
        return 1;
    }
    return 0;
}
