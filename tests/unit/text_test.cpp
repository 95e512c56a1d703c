#include <catch2/catch.hpp>

#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <locale>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/text.hpp"

using namespace bi;

namespace {

std::string printf_text(const char* format, int precision, double value) {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, format, precision, value);
    return buffer;
}

// A C++ locale whose decimal point is a comma and whose thousands are grouped, as de_DE's.
struct CommaPoint : std::numpunct<char> {
    char do_decimal_point() const override { return ','; }
    char do_thousands_sep() const override { return '.'; }
    std::string do_grouping() const override { return "\3"; }
};

// Sets the global C++ locale (and, when one is installed, a C locale with a decimal comma) for
// its lifetime; restores both after.
class CommaLocales {
public:
    CommaLocales()
        : previous_cpp_(std::locale::global(std::locale(std::locale(), new CommaPoint))) {
        const char* current = std::setlocale(LC_NUMERIC, nullptr);
        previous_c_ = current ? current : "C";
        for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "fr_FR.utf8"})
            if (std::setlocale(LC_NUMERIC, name)) {
                c_locale_ = name;
                break;
            }
    }
    ~CommaLocales() {
        std::setlocale(LC_NUMERIC, previous_c_.c_str());
        std::locale::global(previous_cpp_);
    }
    CommaLocales(const CommaLocales&) = delete;
    CommaLocales& operator=(const CommaLocales&) = delete;
    bool has_c_locale() const { return !c_locale_.empty(); }

private:
    std::locale previous_cpp_;
    std::string previous_c_;
    std::string c_locale_;
};

}  // namespace

TEST_CASE("join puts the separator between every two words", "[text]") {
    CHECK(core::join({}) == "");
    CHECK(core::join({"a"}) == "a");
    CHECK(core::join({"a", "b", "c"}) == "a b c");
    CHECK(core::join({"a", "b"}, ", ") == "a, b");
    CHECK(core::join({"", "b", ""}, ",") == ",b,");
    CHECK(core::join(std::vector<int>{1, 2, 4}, ",") == "1,2,4");
    CHECK(core::join(std::vector<std::int64_t>{-3, 2048}) == "-3 2048");
    CHECK(core::join(std::vector<int>{}) == "");
}

TEST_CASE("format_fixed rounds as printf's %.*f does", "[text]") {
    CHECK(core::format_fixed(0.35, 2) == "0.35");
    CHECK(core::format_fixed(0.125, 2) == "0.12");  // exactly half: to even
    CHECK(core::format_fixed(0.375, 2) == "0.38");
    CHECK(core::format_fixed(2.675, 2) == "2.67");  // the double is just below 2.675
    CHECK(core::format_fixed(2.5, 0) == "2");
    CHECK(core::format_fixed(3.5, 0) == "4");
    CHECK(core::format_fixed(0.05, 1) == "0.1");  // the double is just above 0.05
    CHECK(core::format_fixed(-0.0, 1) == "-0.0");
    CHECK(core::format_fixed(1e300, 0) == printf_text("%.*f", 0, 1e300));
    CHECK(core::format_fixed(-1.0 / 3.0, 6) == "-0.333333");

    std::mt19937_64 random(35);
    std::uniform_real_distribution<double> magnitude(-8.0, 8.0);
    for (int i = 0; i < 4000; ++i) {
        const double value = std::pow(10.0, magnitude(random)) * (i % 2 ? -1.0 : 1.0);
        for (const int digits : {0, 1, 2, 3, 4, 6}) {
            INFO(value << " to " << digits << " digits");
            REQUIRE(core::format_fixed(value, digits) == printf_text("%.*f", digits, value));
        }
    }
    for (int tenths = 0; tenths <= 2000; ++tenths) {  // every x.y5 (half-way in decimal)
        const double value = tenths / 100.0 + 0.005;
        INFO(value);
        REQUIRE(core::format_fixed(value, 2) == printf_text("%.*f", 2, value));
        REQUIRE(core::format_fixed(tenths / 10.0 + 0.05, 1) ==
                printf_text("%.*f", 1, tenths / 10.0 + 0.05));
    }
}

TEST_CASE("format_percent writes the ratio in hundredths", "[text]") {
    CHECK(core::format_percent(0.125, 1) == "12.5%");
    CHECK(core::format_percent(0.9, 0) == "90%");
    CHECK(core::format_percent(1.0, 1) == "100.0%");
    CHECK(core::format_percent(0.0, 0) == "0%");
}

TEST_CASE("format_general writes what printf's %.*g and a plain stream write", "[text]") {
    CHECK(core::format_general(120.0) == "120");
    CHECK(core::format_general(0.5) == "0.5");
    CHECK(core::format_general(1e6) == "1e+06");
    CHECK(core::format_general(95.0) == "95");
    CHECK(core::format_general(99.5, 3) == "99.5");
    CHECK(core::format_general(99.95, 3) == "100");
    CHECK(core::format_general(1.0 / 3.0) == "0.333333");

    std::mt19937_64 random(36);
    std::uniform_real_distribution<double> magnitude(-8.0, 8.0);
    for (int i = 0; i < 4000; ++i) {
        const double value = std::pow(10.0, magnitude(random)) * (i % 2 ? -1.0 : 1.0);
        for (const int digits : {1, 3, 6}) {
            INFO(value << " to " << digits << " significant digits");
            REQUIRE(core::format_general(value, digits) == printf_text("%.*g", digits, value));
        }
    }
}

TEST_CASE("numbers are written with a decimal point whatever the locale", "[text]") {
    const CommaLocales comma;
    CHECK(core::format_fixed(1234.5, 2) == "1234.50");
    CHECK(core::format_percent(0.125, 1) == "12.5%");
    CHECK(core::format_general(1234.5) == "1234.5");
    CHECK(core::format_general(0.5) == "0.5");
    CHECK(core::join(std::vector<int>{1234, 5}, ",") == "1234,5");
    std::ostringstream stream;  // the comma locale really is in force for streams
    stream << 1234.5;
    CHECK(stream.str() == "1.234,5");
    if (!comma.has_c_locale()) {
        WARN("no C locale with a decimal comma is installed; printf's locale is not tried");
        return;
    }
    CHECK(printf_text("%.*f", 1, 0.5) == "0,5");  // and for printf
    CHECK(core::format_fixed(0.5, 1) == "0.5");
    CHECK(core::format_general(0.5) == "0.5");
}
