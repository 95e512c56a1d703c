// Input from outside is read within limits: regular files only, a size cap, UTF-8 only, and
// the per-file lock that keeps two runs apart.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "scratch_dir.hpp"

using namespace bi;

namespace {

std::string error_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.what();
    }
    FAIL("no error");
    return {};
}

}  // namespace

TEST_CASE("first_invalid_utf8 accepts RFC 3629 text and finds the first bad byte", "[utf8]") {
    using core::first_invalid_utf8;
    CHECK_FALSE(first_invalid_utf8(""));
    CHECK_FALSE(first_invalid_utf8("plain ascii"));
    CHECK_FALSE(first_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"));
    CHECK(first_invalid_utf8("ab\x80") == 2u);            // a lone continuation byte
    CHECK(first_invalid_utf8("a\xC0\xAF") == 1u);         // an overlong '/'
    CHECK(first_invalid_utf8("a\xE0\x80\xAF") == 1u);     // an overlong three-byte form
    CHECK(first_invalid_utf8("xy\xED\xA0\x80") == 2u);    // a UTF-16 surrogate
    CHECK(first_invalid_utf8("\xF4\x90\x80\x80") == 0u);  // above U+10FFFF
    CHECK(first_invalid_utf8("ok\xE2\x82") == 2u);        // truncated at the end
    CHECK(first_invalid_utf8("\xF5\x80\x80\x80") == 0u);  // no such lead byte
    CHECK(core::replace_invalid_utf8("a\xFF"
                                     "b\xC3") ==
          "a\xEF\xBF\xBD"
          "b\xEF\xBF\xBD");
    CHECK(core::replace_invalid_utf8("caf\xC3\xA9") == "caf\xC3\xA9");
}

TEST_CASE("parse_json refuses text that is not UTF-8, naming the byte offset", "[utf8][json]") {
    CHECK(error_of([] { io::parse_json("{\"a\": \"ok\xFF\"}", "r.json"); }) ==
          "r.json: invalid UTF-8 at byte offset 9");
    // An escape is decoded by the parser, so what it decodes to is checked too.
    CHECK_THAT(error_of([] { io::parse_json(R"({"a": "\udc00"})", "r.json"); }),
               Catch::Contains("a \\u escape that is not a Unicode character"));
    CHECK(io::parse_json(R"({"a": "\u00e9\ud83d\ude00"})", "r.json").find("a")->as_string() ==
          "\xC3\xA9\xF0\x9F\x98\x80");
}

TEST_CASE("to_json_text never writes a string that is not UTF-8", "[utf8][json]") {
    core::Json value = core::Json::Object{{"family", std::string("bad\xC3")}};
    CHECK_THAT(error_of([&] { io::to_json_text(value); }),
               Catch::Contains("cannot write a string that is not UTF-8 as JSON (byte 3"));
    core::Json key = core::Json::Object{{std::string("k\xFF"), 1}};
    CHECK_THROWS_AS(io::to_json_text(key), Error);
}

TEST_CASE("read_file reads regular files only, without blocking on a FIFO", "[files]") {
    testing::ScratchDir dir;
    CHECK(error_of([&] { io::read_file(dir.path()); }) ==
          "cannot read " + dir.path() + ": it is a directory; only regular files are read");
    const std::string fifo = dir.file("pipe");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(error_of([&] { io::read_file(fifo); }) ==
          "cannot read " + fifo + ": it is a FIFO; only regular files are read");
    CHECK(error_of([] { io::read_file("/dev/zero"); }) ==
          "cannot read /dev/zero: it is a character device; only regular files are read");
    CHECK_THAT(error_of([&] { io::read_file(dir.file("absent")); }),
               Catch::Contains("cannot read " + dir.file("absent") + ": No such file"));
}

TEST_CASE("read_file_or_stream reads a FIFO to its end, bounded in size and in time", "[files]") {
    testing::ScratchDir dir;
    const std::string fifo = dir.file("pipe");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // A writer (its open waits for the reader's) that writes in two pieces: all of it is read.
    std::thread writer([&] {
        std::ofstream out(fifo);
        out << "[{\"prompt\": ";
        out.flush();
        out << "\"a\"}]";
    });
    CHECK(io::read_file_or_stream(fifo, 1024, std::chrono::seconds(20)) == "[{\"prompt\": \"a\"}]");
    writer.join();
    // More than the bound: refused as a file would be.
    std::thread big([&] {
        std::ofstream out(fifo);
        out << std::string(100, 'x');
    });
    CHECK_THAT(error_of([&] { io::read_file_or_stream(fifo, 10, std::chrono::seconds(20)); }),
               Catch::Contains("larger than the limit of 10 bytes"));
    big.join();
    // No writer at all: the deadline ends the wait, naming it.
    CHECK(error_of([&] { io::read_file_or_stream(fifo, 10, std::chrono::milliseconds(200)); }) ==
          "cannot read " + fifo + ": no end within 0.2 s (BI_INPUT_STREAM_SECONDS)");
    // Directories and devices are still refused without reading them.
    CHECK_THAT(error_of([&] { io::read_file_or_stream(dir.path(), 10, std::chrono::seconds(1)); }),
               Catch::Contains("it is a directory; only regular files and streams are read"));
    CHECK_THAT(error_of([] { io::read_file_or_stream("/dev/zero", 10, std::chrono::seconds(1)); }),
               Catch::Contains("it is a character device"));
    // A regular file reads as read_file reads it.
    const std::string file = dir.write("ws.json", "[]");
    CHECK(io::read_file_or_stream(file, 10, std::chrono::seconds(1)) == "[]");
}

TEST_CASE("read_file refuses a file over the input limit", "[files]") {
    testing::ScratchDir dir;
    const std::string path = dir.write("ten.json", "0123456789");
    CHECK(io::read_file(path, 10) == "0123456789");
    CHECK(error_of([&] { io::read_file(path, 9); }) ==
          "cannot read " + path +
              ": larger than the limit of 9 bytes for an input file (BI_MAX_INPUT_BYTES)");
    CHECK(io::max_input_bytes() == io::kDefaultMaxInputBytes);
    ::setenv("BI_MAX_INPUT_BYTES", "5", 1);
    CHECK(io::max_input_bytes() == 5);
    CHECK_THROWS_AS(io::read_file(path), Error);
    ::setenv("BI_MAX_INPUT_BYTES", "5k", 1);
    CHECK(error_of([] { io::max_input_bytes(); }) ==
          "BI_MAX_INPUT_BYTES=5k: expected a whole number of bytes, at least 1");
    ::unsetenv("BI_MAX_INPUT_BYTES");
}

TEST_CASE("FileLock: one holder at a time, the holder named, the file removed", "[files]") {
    testing::ScratchDir dir;
    const std::string path = dir.file("cell.json.lock");
    std::string holder;
    auto first = io::FileLock::try_lock(path, holder);
    REQUIRE(first);
    std::string other;
    CHECK_FALSE(io::FileLock::try_lock(path, other));
    CHECK(other == std::to_string(::getpid()));
    first.reset();
    struct stat st {};
    CHECK(::stat(path.c_str(), &st) != 0);  // released and removed
    auto again = io::FileLock::try_lock(path, other);
    CHECK(again);
    CHECK_THAT(error_of([&] { io::FileLock::try_lock(dir.file("no/dir/x.lock"), other); }),
               Catch::Contains("cannot create the lock file " + dir.file("no/dir/x.lock")));
}
