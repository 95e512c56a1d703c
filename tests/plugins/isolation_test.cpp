// PluginSet against plugins that crash or hang: each failure is a PluginFault naming the plugin,
// the call and the test id; the helper is gone afterwards and later calls say why; the timeout
// and the interrupt check end a hung call; well-behaved plugins keep working through it all.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

#include "core/work_item.hpp"
#include "fixture_path.hpp"
#include "plugin_host/plugin_fault.hpp"
#include "plugin_host/plugin_set.hpp"

using bi::plugin_host::PluginFault;
using bi::plugin_host::PluginSet;
using bi::testing::fixture;

namespace {

bi::core::WorkItem item_with_id(const std::string& test_id) {
    bi::core::WorkItem item;
    item.test_id = test_id;
    item.prompt = "2 + 2?";
    item.family = "sums";
    item.expected_answer = "4";
    return item;
}

std::string fault_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const PluginFault& e) {
        return e.what();
    }
    FAIL("no PluginFault was thrown");
    return {};
}

}  // namespace

TEST_CASE("a crash in score() is a PluginFault, and the set stays failed", "[isolation]") {
    PluginSet plugins;
    plugins.set_logger({});
    plugins.load(fixture("faulty_segv"));
    const auto scorer = plugins.create_scorer("faulty");
    const std::string path = fixture("faulty_segv");
    CHECK(fault_of([&] { scorer->evaluate(item_with_id("t-03"), "4"); }) ==
          "bi: plugin " + path + ": score() crashed (signal 11, Segmentation fault) on test t-03");
    CHECK(fault_of([&] { scorer->evaluate(item_with_id("t-04"), "4"); }) ==
          "bi: plugin " + path +
              ": score() cannot run: the plugin host ended after an earlier failure (bi: plugin " +
              path +
              ": score() crashed (signal 11, Segmentation fault) on test t-03) on test t-04");
}

TEST_CASE("a crash while loading is a PluginFault naming the file", "[isolation]") {
    PluginSet plugins;
    const std::string path = fixture("faulty_segv_entry");
    CHECK(fault_of([&] { plugins.load(path); }) ==
          "bi: plugin " + path + ": load() crashed (signal 11, Segmentation fault)");
}

TEST_CASE("a hung score() is killed at the call timeout", "[isolation]") {
    PluginSet plugins;
    plugins.set_logger({});
    plugins.set_call_timeout(std::chrono::milliseconds(300));
    plugins.load(fixture("faulty_loop"));
    const auto scorer = plugins.create_scorer("faulty");
    const auto started = std::chrono::steady_clock::now();
    CHECK(fault_of([&] { scorer->evaluate(item_with_id("t-1"), "4"); }) ==
          "bi: plugin " + fixture("faulty_loop") +
              ": score() did not return within 0.3 s (--plugin-timeout) on test t-1");
    // Bounded by the timeout, not by anything the plugin does (generous for a loaded machine).
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(20));
}

TEST_CASE("the interrupt check abandons a hung call and its exception goes on", "[isolation]") {
    PluginSet plugins;
    plugins.set_logger({});
    plugins.load(fixture("faulty_loop"));
    const auto scorer = plugins.create_scorer("faulty");
    int polls = 0;
    plugins.set_interrupt_check([&] {
        if (++polls == 5) throw std::runtime_error("interrupted");
    });
    CHECK_THROWS_WITH(scorer->evaluate(item_with_id("t-1"), "4"), "interrupted");
    CHECK(polls == 5);
    CHECK_THROWS_AS(scorer->evaluate(item_with_id("t-2"), "4"), PluginFault);
}

TEST_CASE("sets are independent: one plugin's crash leaves another set working", "[isolation]") {
    PluginSet crashing;
    crashing.set_logger({});
    crashing.load(fixture("faulty_abort"));
    const auto bad = crashing.create_scorer("faulty");
    CHECK_THROWS_AS(bad->evaluate(item_with_id("t-1"), "4"), PluginFault);

    PluginSet good;
    good.set_logger({});
    good.load(fixture("good_c"));
    const auto upper = good.create_scorer("upper");
    CHECK(upper->evaluate(item_with_id("t-1"), "4").failure_mode == bi::core::FailureMode::Ok);
}
