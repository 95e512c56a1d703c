// The one Plugins interface over both sets: a caller holding it gets the same answers whether the
// calls run in bi-plugin-host (PluginSet) or in this process (LocalPluginSet).
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "core/work_item.hpp"
#include "fixture_path.hpp"
#include "plugin_host/local_plugin_set.hpp"
#include "plugin_host/plugin_set.hpp"

using bi::core::Json;
using bi::plugin_host::Plugins;
using bi::testing::fixture;

namespace {

std::unique_ptr<Plugins> loaded(std::unique_ptr<Plugins> plugins) {
    plugins->set_logger({});
    plugins->load(fixture("good_c"));
    plugins->load(fixture("good_c"));  // the same file again does nothing
    return plugins;
}

}  // namespace

TEST_CASE("PluginSet and LocalPluginSet answer alike through Plugins", "[plugins-interface]") {
    const auto isolated = loaded(std::make_unique<bi::plugin_host::PluginSet>());
    const auto local = loaded(std::make_unique<bi::plugin_host::LocalPluginSet>());

    const auto a = isolated->list();
    const auto b = local->list();
    REQUIRE(a.size() == 1);
    REQUIRE(b.size() == 1);
    CHECK(a[0].path == b[0].path);
    CHECK(a[0].name == b[0].name);
    CHECK(a[0].version == b[0].version);
    CHECK(a[0].scorers.size() == b[0].scorers.size());
    for (const Plugins* plugins : {isolated.get(), local.get()}) {
        CHECK(plugins->has_scorer("upper"));
        CHECK_FALSE(plugins->has_scorer("nope"));
        CHECK(plugins->has_generator("counting"));
    }

    bi::core::WorkItem item;
    item.test_id = "m|4096|fam|0.500000|0|fill0.10";
    item.prompt = "What is the capital of France?";
    item.expected_answer = Json("PARIS");
    const auto x = isolated->create_scorer("upper")->evaluate(item, "  paris\n");
    const auto y = local->create_scorer("upper")->evaluate(item, "  paris\n");
    CHECK(x.extracted_answer == y.extracted_answer);
    CHECK(x.failure_mode == y.failure_mode);
    CHECK(x.score == y.score);
    CHECK(x.passed == y.passed);

    bi::plugin_host::GenerationRequest request;
    request.model_id = "m";
    request.ctx = 1000;
    request.seed = 7;
    CHECK(isolated->generate("counting", request) == local->generate("counting", request));
    const auto rows = local->generate_rows("counting", request);
    REQUIRE(rows.size() == 3);
    CHECK(rows[1].expected_answer ==
          isolated->generate_rows("counting", request)[1].expected_answer);
}
