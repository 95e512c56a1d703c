// Load-time validation: every way a plugin file can be unusable gets its own exact one-line
// message, tested against a deliberately broken fixture.
#include <catch2/catch.hpp>

#include <cstddef>
#include <filesystem>
#include <string>

#include "bi/plugin.h"
#include "built_paths.hpp"
#include "core/error.hpp"
#include "fixture_path.hpp"
#include "plugin_host/plugin_set.hpp"

using bi::plugin_host::PluginSet;
using bi::testing::fixture;

namespace {

// The message load() throws for `path`; fails the test when it does not throw bi::Error(Plugin).
std::string load_error(const std::string& path) {
    PluginSet plugins;
    try {
        plugins.load(path);
    } catch (const bi::Error& e) {
        CHECK(e.category() == bi::ErrorCategory::Plugin);
        return e.what();
    }
    FAIL("loading " << path << " did not fail");
    return {};
}

std::string size_range(std::size_t minimum) {
    return "(expected " + std::to_string(minimum) + "..65536)";
}

constexpr std::size_t kDescriptorSize =
    offsetof(bi_plugin_descriptor, generator_count) + sizeof(std::uint32_t);
constexpr std::size_t kScorerSize = offsetof(bi_scorer, score) + sizeof(bi_scorer::score);

}  // namespace

TEST_CASE("a missing file is reported as such", "[loader]") {
    const std::string path = std::string(BI_FIXTURE_DIR) + "/libnowhere.so";
    CHECK(load_error(path) == "bi: " + path + ": no such file");
}

TEST_CASE("a file that is not ELF is not a shared object", "[loader]") {
    const std::string path = BI_SOURCE_FIXTURE_DIR "/not_a_plugin.so";
    CHECK(load_error(path) == "bi: " + path + ": not a shared object");
    CHECK(load_error(BI_FIXTURE_DIR) ==
          std::string("bi: ") + BI_FIXTURE_DIR + ": not a shared object");
}

TEST_CASE("an ELF file dlopen refuses reports dlopen's reason", "[loader]") {
    // This test's own executable: ELF, but not a loadable shared object.
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    CHECK(load_error(self).rfind("bi: " + self + ": cannot load: ", 0) == 0);
}

TEST_CASE("a library without bi_plugin_entry", "[loader]") {
    const auto path = fixture("broken_no_entry");
    CHECK(load_error(path) == "bi: " + path + ": missing entry symbol bi_plugin_entry");
}

TEST_CASE("an entry point that returns NULL", "[loader]") {
    const auto path = fixture("broken_null_descriptor");
    CHECK(load_error(path) == "bi: " + path + ": bi_plugin_entry returned no descriptor");
}

TEST_CASE("an ABI major mismatch names both versions", "[loader]") {
    const auto path = fixture("broken_abi_major");
    CHECK(load_error(path) == "bi: " + path + ": incompatible ABI (plugin 2, host 1)");
}

TEST_CASE("bad struct_size values are refused", "[loader]") {
    SECTION("descriptor") {
        const auto path = fixture("broken_descriptor_size");
        CHECK(load_error(path) == "bi: " + path + ": bad struct_size 8 in the plugin descriptor " +
                                      size_range(kDescriptorSize));
    }
    SECTION("scorer") {
        const auto path = fixture("broken_scorer_size");
        CHECK(load_error(path) ==
              "bi: " + path + ": bad struct_size 16 in scorer #0 " + size_range(kScorerSize));
    }
}

TEST_CASE("an implausible table length is refused before the table is read", "[loader]") {
    const auto path = fixture("broken_scorer_count");
    CHECK(load_error(path) ==
          "bi: " + path + ": scorer_count 100000 is implausible (at most 1024)");
}

TEST_CASE("NULL required functions are refused", "[loader]") {
    SECTION("scorer") {
        const auto path = fixture("broken_null_score");
        CHECK(load_error(path) ==
              "bi: " + path + ": scorer 'fixture': required function score is NULL");
    }
    SECTION("generator") {
        const auto path = fixture("broken_null_generate");
        CHECK(load_error(path) ==
              "bi: " + path + ": generator 'fixture-gen': required function generate is NULL");
    }
    SECTION("create without destroy") {
        const auto path = fixture("broken_create_without_destroy");
        CHECK(load_error(path) == "bi: " + path +
                                      ": scorer 'fixture': create and destroy must both be set "
                                      "or both be NULL");
    }
    SECTION("a NULL table entry") {
        const auto path = fixture("broken_null_scorer_entry");
        CHECK(load_error(path) == "bi: " + path + ": scorer #1 is NULL");
    }
}

TEST_CASE("empty names and ids are refused", "[loader]") {
    SECTION("scorer id") {
        const auto path = fixture("broken_empty_id");
        CHECK(load_error(path) == "bi: " + path + ": scorer #0 has an empty id");
    }
    SECTION("plugin name") {
        const auto path = fixture("broken_empty_name");
        CHECK(load_error(path) == "bi: " + path + ": the plugin name is empty");
    }
    SECTION("nothing offered") {
        const auto path = fixture("broken_no_components");
        CHECK(load_error(path) ==
              "bi: " + path + ": the plugin offers no scorers and no generators");
    }
}

TEST_CASE("duplicate ids are refused within and across plugins", "[loader]") {
    SECTION("within one plugin") {
        const auto path = fixture("broken_duplicate_id");
        CHECK(load_error(path) == "bi: " + path + ": duplicate scorer id 'fixture'");
    }
    SECTION("across plugins") {
        PluginSet plugins;
        plugins.load(fixture("good_c"));
        const auto copy = fixture("good_c_copy");
        try {
            plugins.load(copy);
            FAIL("the second plugin with scorer 'upper' loaded");
        } catch (const bi::Error& e) {
            CHECK(std::string(e.what()) == "bi: " + copy +
                                               ": duplicate scorer id 'upper' (also in " +
                                               fixture("good_c") + ")");
        }
        CHECK(plugins.list().size() == 1);  // the refused plugin left nothing behind
    }
}

TEST_CASE("the unbroken baseline of the broken fixtures loads", "[loader]") {
    PluginSet plugins;
    plugins.load(fixture("broken_baseline"));
    REQUIRE(plugins.list().size() == 1);
    CHECK(plugins.has_scorer("fixture"));
    CHECK(plugins.has_generator("fixture-gen"));
}

TEST_CASE("loading the same file twice is a no-op", "[loader]") {
    PluginSet plugins;
    plugins.load(fixture("good_c"));
    plugins.load(std::string(BI_FIXTURE_DIR) + "/./libgood_c.so");
    CHECK(plugins.list().size() == 1);
}
