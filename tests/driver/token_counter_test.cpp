// The one server token counter: counts through the server's tokenizer, counts nothing for a
// kind without one, and after the first failed count counts nothing more and refuses the rows.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "driver/token_counter.hpp"
#include "fake_llama_server.hpp"

using bi::driver::ServerTokenCounter;
using bi::test::FakeLlamaServer;
using Catch::Matchers::Contains;

TEST_CASE("a server's tokenizer sizes the text, and no route is no failure", "[tokens]") {
    FakeLlamaServer server({});
    const bi::http::Endpoint at{"127.0.0.1", server.port()};
    ServerTokenCounter tokens(at, "/tokenize", 1 << 20);
    const auto count = tokens.counter();
    CHECK(count("three plain words") == 3);
    CHECK(tokens.failure().empty());
    CHECK_NOTHROW(tokens.throw_if_failed("sizing"));

    ServerTokenCounter none(at, "", 1 << 20);
    CHECK_FALSE(none.counter()("three plain words").has_value());
    CHECK(none.failure().empty());
    CHECK_NOTHROW(none.throw_if_failed("sizing"));
}

TEST_CASE("after a failed count the server is not asked again", "[tokens]") {
    // A route the stand-in counts but answers 501 on: every count there fails.
    FakeLlamaServer server({});
    ServerTokenCounter tokens({"127.0.0.1", server.port()}, "/slots", 1 << 20);
    const auto count = tokens.counter();
    CHECK_FALSE(count("one").has_value());
    REQUIRE_FALSE(tokens.failure().empty());
    CHECK_FALSE(count("two").has_value());
    CHECK(server.slots_calls() == 1);
}

TEST_CASE("the first failed count ends the counting and the rows are refused", "[tokens]") {
    ServerTokenCounter tokens({"127.0.0.1", bi::test::unused_port()}, "/tokenize", 1 << 20);
    const auto count = tokens.counter();
    CHECK_FALSE(count("one").has_value());
    REQUIRE_FALSE(tokens.failure().empty());
    const std::string first = tokens.failure();
    CHECK_FALSE(count("two").has_value());
    CHECK(tokens.failure() == first);
    try {
        tokens.throw_if_failed("sizing the work-set");
        FAIL("not refused");
    } catch (const bi::Error& e) {
        CHECK(e.category() == bi::ErrorCategory::Server);
        CHECK_THAT(e.what(), Contains("sizing the work-set: /tokenize failed: " + first));
    }
}
