// report --prometheus: the file as a strict textfile-collector reader takes it (comments of the
// HELP/TYPE form, `name{labels} value` samples, names and label names as the format allows, each
// metric's TYPE before its samples, no series twice, escaped label values that round-trip).
#include <catch2/catch.hpp>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../unit/trial_builders.hpp"
#include "built_paths.hpp"
#include "core/cert.hpp"
#include "io/files.hpp"
#include "report/report_prometheus.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using namespace bi::report;

namespace {

struct Sample {
    std::string name;
    std::map<std::string, std::string> labels;  // values unescaped
    double value = 0.0;
};

struct Exposition {
    std::map<std::string, std::string> types;  // metric -> its TYPE
    std::map<std::string, std::string> help;
    std::vector<Sample> samples;
};

bool name_char(char ch, bool first, bool colon) {
    const bool letter =
        std::isalpha(static_cast<unsigned char>(ch)) || ch == '_' || (colon && ch == ':');
    return letter || (!first && std::isdigit(static_cast<unsigned char>(ch)));
}

// [a-zA-Z_:][a-zA-Z0-9_:]* for metric names, [a-zA-Z_][a-zA-Z0-9_]* for label names.
bool valid_name(const std::string& name, bool colon) {
    if (name.empty()) return false;
    for (std::size_t i = 0; i < name.size(); ++i)
        if (!name_char(name[i], i == 0, colon)) return false;
    return true;
}

// Reads one whole file as the textfile collector must, FAILing on the first line it refuses.
Exposition parse_strictly(const std::string& text) {
    Exposition out;
    REQUIRE_FALSE(text.empty());
    REQUIRE(text.back() == '\n');
    std::set<std::string> series;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t end = text.find('\n', at);
        const std::string line = text.substr(at, end - at);
        at = end + 1;
        INFO("line: " << line);
        REQUIRE_FALSE(line.empty());
        if (line[0] == '#') {
            const bool help = line.rfind("# HELP ", 0) == 0;
            REQUIRE((help || line.rfind("# TYPE ", 0) == 0));
            const std::string rest = line.substr(7);
            const std::size_t space = rest.find(' ');
            REQUIRE(space != std::string::npos);
            const std::string name = rest.substr(0, space);
            REQUIRE(valid_name(name, true));
            const std::string what = rest.substr(space + 1);
            if (help) {
                REQUIRE(out.help.count(name) == 0);
                REQUIRE(what.find('\\') == std::string::npos);  // none needs escaping here
                out.help[name] = what;
            } else {
                REQUIRE(out.types.count(name) == 0);
                REQUIRE((what == "gauge" || what == "counter" || what == "untyped"));
                // A TYPE comes before any sample of its metric.
                for (const auto& s : out.samples) REQUIRE(s.name != name);
                out.types[name] = what;
            }
            continue;
        }
        Sample sample;
        std::size_t i = 0;
        while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
        sample.name = line.substr(0, i);
        REQUIRE(valid_name(sample.name, true));
        REQUIRE(out.types.count(sample.name) == 1);
        REQUIRE(i < line.size());
        if (line[i] == '{') {
            ++i;
            while (line.at(i) != '}') {
                const std::size_t eq = line.find('=', i);
                REQUIRE(eq != std::string::npos);
                const std::string label = line.substr(i, eq - i);
                REQUIRE(valid_name(label, false));
                REQUIRE(line.at(eq + 1) == '"');
                std::string value;
                std::size_t j = eq + 2;
                for (;; ++j) {
                    REQUIRE(j < line.size());
                    if (line[j] == '"') break;
                    if (line[j] != '\\') {
                        value += line[j];
                        continue;
                    }
                    const char escaped = line.at(++j);
                    REQUIRE((escaped == '\\' || escaped == '"' || escaped == 'n'));
                    value += escaped == 'n' ? '\n' : escaped;
                }
                REQUIRE(sample.labels.emplace(label, value).second);
                i = j + 1;
                if (line.at(i) == ',') ++i;
            }
            ++i;
        }
        REQUIRE(line.at(i) == ' ');
        const std::string number = line.substr(i + 1);
        char* stop = nullptr;
        sample.value = std::strtod(number.c_str(), &stop);
        REQUIRE((!number.empty() && *stop == '\0'));
        std::string key = sample.name;
        for (const auto& [k, v] : sample.labels) key += "\x1f" + k + "=" + v;
        REQUIRE(series.insert(key).second);  // no series twice
        out.samples.push_back(std::move(sample));
    }
    return out;
}

ReportEntry cell(const std::string& model, std::int64_t n, core::Status status,
                 const std::string& determinism = "", core::Source source = core::Source::Live) {
    core::CertContext c = testing::fixed_cert_context();
    c.cell.model = model;
    c.cell.dispatch_n = n;
    c.source = source;
    core::Throughput t;
    t.arms.push_back({"A", 100, 1.0, std::nullopt, std::nullopt});
    t.arms.push_back({"C", 250, 1.0, std::nullopt, std::nullopt});
    c.throughput = t;
    if (!determinism.empty()) c.run->determinism = determinism;
    c.server = core::ServerRecord{};
    c.server->kind = core::ServerKindRecord{};
    c.server->kind->name = "vllm";
    ReportEntry entry;
    entry.path = "c.json";
    entry.kind = trust::FileKind::Cert;
    entry.loaded.cert = core::build_cert(c, core::decide_verdict(testing::clean_cell(6, 2)));
    entry.loaded.cert.verdict.status = status;
    entry.loaded.digest_intact = true;
    entry.promotion = core::check_promotable(entry.loaded.cert, true);
    return entry;
}

const Sample* find(const Exposition& e, const std::string& name, const std::string& model,
                   const std::string& n, const std::string& determinism) {
    for (const auto& s : e.samples)
        if (s.name == name && s.labels.at("model") == model && s.labels.at("n") == n &&
            s.labels.at("determinism") == determinism)
            return &s;
    return nullptr;
}

}  // namespace

TEST_CASE("prometheus: a strict reader takes the file, escaped values round-trip",
          "[report][prometheus]") {
    const std::string odd = "we\"ird\\model\nname";
    ReportModel model;
    model.entries = {cell(odd, 2, core::Status::Green), cell(odd, 4, core::Status::Failed),
                     cell("m", 2, core::Status::Green, "on"),
                     cell("m", 2, core::Status::Failed, "off"),
                     cell("m", 4, core::Status::GreenUnverified, "", core::Source::Mock)};
    model.entries.push_back(cell("m", 8, core::Status::Green));
    model.entries.back().kind = trust::FileKind::DigestMismatch;
    // 2026-01-01T00:00:00Z is 1767225600; an hour later.
    const std::string text = render_prometheus(model, {"1.2.3 \"dev\"", 1767225600 + 3600});
    const Exposition e = parse_strictly(text);

    for (const char* name : {"bi_cell_verdict", "bi_cell_promotable", "bi_cell_rate_upper_bound",
                             "bi_cell_speedup", "bi_cell_cert_age_seconds", "bi_run_info"}) {
        CHECK(e.types.at(name) == "gauge");
        CHECK(e.help.count(name) == 1);
    }
    const Sample* red = find(e, "bi_cell_verdict", odd, "4", "");
    REQUIRE(red != nullptr);  // the model name came back as it went in
    CHECK(red->value == 3);
    CHECK(red->labels.at("verdict") == "RED");
    CHECK(red->labels.at("kind") == "vllm");
    CHECK(red->labels.at("source") == "live");
    CHECK(red->labels.at("ctx") == "512");
    CHECK(find(e, "bi_cell_verdict", odd, "2", "")->labels.at("verdict") == "GREEN");
    CHECK(find(e, "bi_cell_verdict", odd, "2", "")->value == 0);
    // Both determinism sides of one cell are two series.
    CHECK(find(e, "bi_cell_verdict", "m", "2", "on")->value == 0);
    CHECK(find(e, "bi_cell_verdict", "m", "2", "off")->value == 3);
    CHECK(find(e, "bi_cell_verdict", "m", "4", "")->labels.at("verdict") == "UNVERIFIED");
    CHECK(find(e, "bi_cell_verdict", "m", "4", "")->labels.at("source") == "mock");
    CHECK(find(e, "bi_cell_verdict", "m", "4", "")->value == 2);
    CHECK(find(e, "bi_cell_verdict", "m", "8", "")->labels.at("verdict") == "INVALID");
    CHECK(find(e, "bi_cell_verdict", "m", "8", "")->value == 4);
    CHECK(find(e, "bi_cell_promotable", "m", "8", "")->value == 0);
    CHECK(find(e, "bi_cell_speedup", "m", "2", "on")->value == Approx(2.5));
    CHECK(find(e, "bi_cell_cert_age_seconds", odd, "2", "")->value == 3600);
    const Sample* bound = find(e, "bi_cell_rate_upper_bound", odd, "2", "");
    REQUIRE(bound != nullptr);
    CHECK(bound->value > 0.0);
    CHECK(bound->value < 1.0);
    REQUIRE(e.samples.back().name == "bi_run_info");
    CHECK(e.samples.back().labels.at("version") == "1.2.3 \"dev\"");
    CHECK(e.samples.back().value == 1);

    // A speedup the cert does not know is no sample at all.
    model.entries[0].loaded.cert.throughput.reset();
    const Exposition without = parse_strictly(render_prometheus(model, {"v", 0}));
    CHECK(find(without, "bi_cell_speedup", odd, "2", "") == nullptr);
    CHECK(find(without, "bi_cell_verdict", odd, "2", "") != nullptr);
}

TEST_CASE("prometheus: label escaping and the cert's time", "[report][prometheus]") {
    CHECK(escape_label_value("a\\b\"c\nd") == "a\\\\b\\\"c\\nd");
    CHECK(unix_seconds("1970-01-01T00:00:00Z") == std::optional<std::int64_t>(0));
    CHECK(unix_seconds("2026-01-01T00:00:00Z") == std::optional<std::int64_t>(1767225600));
    CHECK(unix_seconds("2024-02-29T12:34:56Z") == std::optional<std::int64_t>(1709210096));
    CHECK_FALSE(unix_seconds("2026-01-01 00:00:00").has_value());
    CHECK_FALSE(unix_seconds("yesterday").has_value());
}

TEST_CASE("report --prometheus FILE writes the gauges of the certs", "[report][prometheus]") {
    testing::ScratchDir dir;
    const std::string certs = dir.file("certs");
    std::filesystem::create_directory(certs);
    REQUIRE(testing::run_command({BI_REPORT_FIXTURES, certs}).exit_code == 0);
    const std::string out = dir.file("bi.prom");
    const auto r = testing::run_command({BI_RUN_PATH, "report", "--prometheus", out, certs});
    INFO(r.err);
    CHECK(r.exit_code <= 1);  // the fixtures hold an edited cert on purpose
    const Exposition e = parse_strictly(io::read_file(out));
    CHECK_FALSE(e.samples.empty());
    CHECK(e.samples.back().name == "bi_run_info");
    // Nothing but the file itself is left in its directory: the temp file was renamed.
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
        (void)entry;
        ++files;
    }
    CHECK(files == 2);  // certs/ and bi.prom
}
