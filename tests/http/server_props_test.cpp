#include <catch2/catch.hpp>

#include "http/server_props.hpp"
#include "io/files.hpp"

using namespace bi::http;

TEST_CASE("a captured /props keeps the fields a cert records", "[props]") {
    const auto props = parse_props(bi::io::read_file(std::string(BI_FIXTURES_DIR) + "/props.json"));
    const auto kept = trim_props(props);
    CHECK(kept.int_or("total_slots", 0) == 4);
    CHECK(kept.int_or("n_ctx", 0) == 1024);
    CHECK(kept.find("build_info") != nullptr);
    CHECK(kept.find("modalities") == nullptr);
    CHECK(kept.find("default_generation_settings") == nullptr);
}

TEST_CASE("a /props body that is not a JSON object keeps nothing", "[props]") {
    for (const char* body : {"", "nope", "{\"total_slots\": 4", "[1, 2]", "7", "\"x\""}) {
        const auto kept = trim_props(parse_props(body));
        CHECK(kept.is_object());
        CHECK(kept.size() == 0);
    }
    // An object whose generation settings are not an object contributes no n_ctx.
    CHECK(trim_props(parse_props(R"({"default_generation_settings": 5})")).size() == 0);
}
