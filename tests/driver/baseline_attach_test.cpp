// A stored baseline recorded in process over the mock, read back as every reader reads it, and
// attached to a run: the settings must be the baseline's, and a run with no work-set of its own
// runs the stored rows.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "driver/baseline_run.hpp"
#include "mock_cell.hpp"
#include "scratch_dir.hpp"

using bi::testing::lines;
using bi::testing::mock_cell;
using bi::testing::mock_request;
using bi::testing::ScratchDir;
using Catch::Matchers::Contains;

namespace {

// A live run hashes its model file; the in-process mock has none, so one stands in, its sha256
// 64 times `digit`.
void stand_in_model(bi::testing::MockCell& cell, char digit) {
    cell.setup.plan.options.model_file =
        bi::core::ModelFileRecord{"bi-mock.gguf", 1, std::string(64, digit), {}, {}, {}, {}};
}

// Records arm A and A' of the mock at ctx 512 into `path`; returns why it cannot stand as a
// reference (with the run's log), or "" when it can.
std::string record(const std::string& out_dir, const std::string& path) {
    auto request = mock_request(out_dir);
    request.parallels = {1};
    auto cell = mock_cell(request);
    stand_in_model(*cell, 'a');
    const auto outcome = bi::driver::record_baseline(
        cell->setup.plan, *cell->setup.scorer, cell->setup.rows, *cell->progress, path, false);
    CHECK(outcome.path == path);
    return outcome.problems.empty() ? "" : cell->log.str() + lines(outcome.problems);
}

}  // namespace

TEST_CASE("a baseline recorded over the mock attaches to a run with its settings", "[baseline]") {
    const ScratchDir dir;
    const std::string path = dir.file("baseline.json");
    REQUIRE(record(dir.path(), path) == "");

    const auto stored = bi::driver::load_baseline(path, {});
    CHECK(stored.value.ctx == 512);
    CHECK(stored.value.model == "bi-mock");

    // The run checks its arm A against the baseline: the same mock and model are SAME, another
    // model is NOT COMPARABLE. The verdict is the run's own either way.
    for (const char digit : {'a', 'b'}) {
        const ScratchDir out;
        const auto request = mock_request(out.path());
        auto cell = mock_cell(request);
        stand_in_model(*cell, digit);
        bi::driver::attach_baseline(cell->setup, request, stored);
        REQUIRE(cell->setup.plan.baseline != nullptr);
        CHECK_THAT(cell->setup.plan.options.run_labels.workset.value_or(""),
                   Contains("the rows of --baseline"));
        const auto results = bi::testing::run(*cell);
        REQUIRE(results.size() == 1);
        const auto& cert = results.front().outcome.cert;
        REQUIRE(cert.baseline_check.has_value());
        INFO(cell->log.str());
        CHECK(cert.baseline_check->status == (digit == 'a'
                                                  ? bi::core::BaselineStatus::Same
                                                  : bi::core::BaselineStatus::NotComparable));
    }
}

TEST_CASE("a run whose settings differ from the baseline's is refused, naming each", "[baseline]") {
    const ScratchDir dir;
    const std::string path = dir.file("baseline.json");
    REQUIRE(record(dir.path(), path) == "");

    const ScratchDir out;
    auto request = mock_request(out.path());
    request.n_predict = 9;
    request.ctxs = {1024};
    auto cell = mock_cell(request);
    try {
        bi::driver::attach_baseline(cell->setup, request, bi::driver::load_baseline(path, {}));
        FAIL("attached");
    } catch (const bi::Error& e) {
        CHECK(e.category() == bi::ErrorCategory::Usage);
        CHECK_THAT(e.what(), Contains("`n_predict` 32 (this run: 9)"));
        CHECK_THAT(e.what(), Contains("`ctxs` 512 (not among this run's)"));
    }
    CHECK(cell->setup.plan.baseline == nullptr);
}

TEST_CASE("a baseline edited after it was written is not loaded", "[baseline]") {
    const ScratchDir dir;
    const std::string path = dir.file("baseline.json");
    REQUIRE(record(dir.path(), path) == "");
    std::string text = bi::testing::read_text(path);
    const auto at = text.find("\"bi-mock\"");
    REQUIRE(at != std::string::npos);
    text.replace(at, 9, "\"bi-moch\"");
    dir.write("baseline.json", text);
    CHECK_THROWS_AS(bi::driver::load_baseline(path, {}), bi::Error);
}

TEST_CASE("the request derived from a baseline runs exactly its settings", "[baseline]") {
    const ScratchDir dir;
    const std::string path = dir.file("baseline.json");
    REQUIRE(record(dir.path(), path) == "");
    const auto stored = bi::driver::load_baseline(path, {});

    const ScratchDir out;
    bi::core::RunRequest base;
    base.out_dir = out.path();
    base.parallels = {1};
    const auto request = bi::driver::request_from_baseline(stored.value, path, base);
    CHECK(request.model_alias == "bi-mock");
    CHECK(request.ctxs == std::vector<std::int64_t>{512});
    CHECK(request.kv_label == std::optional<std::string>("f16"));
    // Derive, then diff: a run prepared from the derived request differs in nothing.
    auto cell = mock_cell(request);
    const auto recorded = bi::driver::baseline_settings(stored.value, path);
    CHECK(bi::driver::setting_differences(recorded, bi::driver::run_settings(cell->setup.plan))
              .empty());

    // A label of the caller's, or server flags that set the cache type, are not overridden.
    base.kv_label = "q8_0";
    CHECK(bi::driver::request_from_baseline(stored.value, path, base).kv_label ==
          std::optional<std::string>("q8_0"));
    base.kv_label.reset();
    base.target.server_flags = {"-ctk", "q4_0"};
    CHECK_FALSE(bi::driver::request_from_baseline(stored.value, path, base).kv_label.has_value());

    auto changed = recorded;
    changed.n_predict = 9;
    changed.ctxs = {1024};
    const auto differ = bi::driver::setting_differences(recorded, changed);
    REQUIRE(differ.size() == 2);
    CHECK(differ[0] == "`ctxs` 512 (not among this run's)");
    CHECK(differ[1] == "`n_predict` 32 (this run: 9)");
}
