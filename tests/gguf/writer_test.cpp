// GgufWriter: every metadata type, tensor infos, alignment and offsets, read back by the tests'
// independent reader; misuse and failed writes leave nothing behind.
#include <catch2/catch.hpp>

#include <dirent.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/sha256.hpp"
#include "gguf/writer.hpp"
#include "gguf_reader.hpp"
#include "io/files.hpp"
#include "scratch_dir.hpp"

using bi::gguf::GgufWriter;
using bi::gguf::TensorType;
using bi::testing::GgufFile;
using bi::testing::load_gguf;

namespace {

bi::gguf::TensorValues constant_values(std::vector<float> values) {
    return [values = std::move(values)] { return values; };
}

std::vector<std::string> directory_entries(const std::string& dir) {
    std::vector<std::string> names;
    DIR* handle = ::opendir(dir.c_str());
    REQUIRE(handle != nullptr);
    while (const dirent* entry = ::readdir(handle)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(handle);
    return names;
}

GgufWriter sample_writer(std::uint32_t alignment) {
    GgufWriter w(alignment);
    w.add_string("general.architecture", "llama");
    w.add_uint32("count.u32", 4000000000u);
    w.add_int32("count.i32", -123456);
    w.add_uint64("count.u64", 0x0123456789abcdefULL);
    w.add_float32("ratio", 0.25f);
    w.add_bool("flag.on", true);
    w.add_bool("flag.off", false);
    w.add_string("text.utf8", "caf\xc3\xa9 \xe2\x96\x81");
    w.add_string("text.empty", "");
    w.add_string_array("list.strings", {"a", "", "\xe2\x96\x81the"});
    w.add_float32_array("list.floats", {-1.5f, 0.0f, 3.25f});
    w.add_int32_array("list.ints", {-1, 0, 2147483647});
    w.add_int32_array("list.empty", {});
    // 3 f32 values (12 bytes) force padding; the f16 tensor is 2x3 with row length 3.
    w.add_tensor("first", {3}, TensorType::F32, constant_values({1.0f, -2.5f, 1e-3f}));
    w.add_tensor("second", {3, 2}, TensorType::F16,
                 constant_values({1.0f, 0.5f, -2.0f, 65504.0f, 0.1f, 0.0f}));
    w.add_tensor("third", {5, 1, 1, 2}, TensorType::F32,
                 constant_values(std::vector<float>(10, 7.0f)));
    return w;
}

}  // namespace

TEST_CASE("writer: header bytes are GGUF v3 little-endian", "[gguf][writer]") {
    bi::testing::ScratchDir dir;
    const auto summary = sample_writer(32).write(dir.file("m.gguf"));
    const std::string bytes = bi::io::read_file(dir.file("m.gguf"));
    REQUIRE(bytes.size() > 24);
    CHECK(bytes.substr(0, 4) == "GGUF");
    CHECK(bytes.substr(4, 4) == std::string("\x03\x00\x00\x00", 4));
    CHECK(bytes.substr(8, 8) == std::string("\x03\x00\x00\x00\x00\x00\x00\x00", 8));   // tensors
    CHECK(bytes.substr(16, 8) == std::string("\x0e\x00\x00\x00\x00\x00\x00\x00", 8));  // 13 + 1 kv
    CHECK(summary.bytes == bytes.size());
    CHECK(summary.sha256_hex == bi::core::sha256_hex(bytes));
}

TEST_CASE("writer: every metadata type and value reads back", "[gguf][writer]") {
    bi::testing::ScratchDir dir;
    sample_writer(32).write(dir.file("m.gguf"));
    const GgufFile f = load_gguf(dir.file("m.gguf"));
    CHECK(f.version == 3);
    CHECK(f.kv_count == 14);
    CHECK(f.keys == std::vector<std::string>{
                        "general.architecture", "count.u32", "count.i32", "count.u64", "ratio",
                        "flag.on", "flag.off", "text.utf8", "text.empty", "list.strings",
                        "list.floats", "list.ints", "list.empty", "general.alignment"});
    CHECK(f.at("general.architecture").type == 8);
    CHECK(f.at("general.architecture").s == "llama");
    CHECK(f.at("count.u32").type == 4);
    CHECK(f.at("count.u32").u == 4000000000u);
    CHECK(f.at("count.i32").type == 5);
    CHECK(f.at("count.i32").i == -123456);
    CHECK(f.at("count.u64").type == 10);
    CHECK(f.at("count.u64").u == 0x0123456789abcdefULL);
    CHECK(f.at("ratio").type == 6);
    CHECK(f.at("ratio").f == 0.25);
    CHECK(f.at("flag.on").type == 7);
    CHECK(f.at("flag.on").u == 1);
    CHECK(f.at("flag.off").u == 0);
    CHECK(f.at("text.utf8").s == "caf\xc3\xa9 \xe2\x96\x81");
    CHECK(f.at("text.empty").type == 8);
    CHECK(f.at("text.empty").s.empty());
    CHECK(f.at("list.strings").type == 9);
    CHECK(f.at("list.strings").array_type == 8);
    CHECK(f.at("list.strings").strings == std::vector<std::string>{"a", "", "\xe2\x96\x81the"});
    CHECK(f.at("list.floats").array_type == 6);
    CHECK(f.at("list.floats").numbers == std::vector<double>{-1.5, 0.0, 3.25});
    CHECK(f.at("list.ints").array_type == 5);
    CHECK(f.at("list.ints").numbers == std::vector<double>{-1, 0, 2147483647});
    CHECK(f.at("list.empty").type == 9);
    CHECK(f.at("list.empty").numbers.empty());
    CHECK(f.at("general.alignment").type == 4);
    CHECK(f.at("general.alignment").u == 32);
}

TEST_CASE("writer: tensor infos, aligned offsets and data", "[gguf][writer]") {
    for (const std::uint32_t alignment : {32u, 64u, 1u, 4096u}) {
        DYNAMIC_SECTION("alignment " << alignment) {
            bi::testing::ScratchDir dir;
            sample_writer(alignment).write(dir.file("m.gguf"));
            const GgufFile f = load_gguf(dir.file("m.gguf"));
            CHECK(f.alignment == alignment);
            REQUIRE(f.tensor_count == 3);
            REQUIRE(f.tensors.size() == 3);
            CHECK(f.tensors[0].name == "first");
            CHECK(f.tensors[0].dims == std::vector<std::int64_t>{3});
            CHECK(f.tensors[0].type == 0);
            CHECK(f.tensors[1].name == "second");
            CHECK(f.tensors[1].dims == std::vector<std::int64_t>{3, 2});
            CHECK(f.tensors[1].type == 1);
            CHECK(f.tensors[2].dims == std::vector<std::int64_t>{5, 1, 1, 2});

            CHECK(f.data_start % alignment == 0);
            // Padding between the header and the data is zeros.
            CHECK(f.bytes.substr(f.header_end, f.data_start - f.header_end) ==
                  std::string(f.data_start - f.header_end, '\0'));
            std::uint64_t expected_offset = 0;
            for (const auto& info : f.tensors) {
                CHECK(info.offset == expected_offset);
                CHECK(info.offset % alignment == 0);
                CHECK(f.data_start + info.offset + f.tensor_bytes(info) <= f.bytes.size());
                const std::uint64_t size = f.tensor_bytes(info);
                expected_offset += (size + alignment - 1) / alignment * alignment;
            }
            CHECK(f.bytes.size() == f.data_start + expected_offset);

            CHECK(f.tensor_values("first") == std::vector<float>{1.0f, -2.5f, 1e-3f});
            const auto second = f.tensor_values("second");
            REQUIRE(second.size() == 6);
            CHECK(second[0] == 1.0f);
            CHECK(second[1] == 0.5f);
            CHECK(second[2] == -2.0f);
            CHECK(second[3] == 65504.0f);
            CHECK(second[4] == Approx(0.1f).epsilon(1e-3));
            CHECK(second[5] == 0.0f);
            CHECK(f.tensor_values("third") == std::vector<float>(10, 7.0f));
        }
    }
}

TEST_CASE("writer: parameter count sums the tensors' elements", "[gguf][writer]") {
    CHECK(sample_writer(32).parameter_count() == 3 + 6 + 10);
}

TEST_CASE("writer: misuse is refused as an internal error", "[gguf][writer]") {
    const auto internal = [](auto&& action) {
        try {
            action();
        } catch (const bi::Error& e) {
            return e.category() == bi::ErrorCategory::Internal;
        }
        return false;
    };
    CHECK(internal([] { GgufWriter w(24); }));
    CHECK(internal([] { GgufWriter w(0); }));
    GgufWriter w;
    w.add_uint32("a", 1);
    CHECK(internal([&] { w.add_int32("a", 2); }));
    CHECK(internal([&] { w.add_uint32("general.alignment", 64); }));
    CHECK(internal([&] { w.add_string("", "x"); }));
    w.add_tensor("t", {2}, TensorType::F32, constant_values({1, 2}));
    CHECK(internal([&] { w.add_tensor("t", {2}, TensorType::F32, constant_values({1, 2})); }));
    CHECK(internal([&] { w.add_tensor("z", {2, 0}, TensorType::F32, constant_values({})); }));
    CHECK(internal([&] {
        w.add_tensor("five", {1, 1, 1, 1, 1}, TensorType::F32, constant_values({1}));
    }));
    CHECK(internal(
        [&] { w.add_tensor(std::string(64, 'n'), {1}, TensorType::F32, constant_values({1})); }));
}

TEST_CASE("writer: a failed write leaves the old file and no temp file", "[gguf][writer]") {
    bi::testing::ScratchDir dir;
    const std::string path = dir.file("m.gguf");
    bi::io::write_file_atomically(path, "previous");
    GgufWriter w;
    w.add_uint32("a", 1);
    w.add_tensor("ok", {4}, TensorType::F32, constant_values({1, 2, 3, 4}));
    w.add_tensor("short", {4}, TensorType::F32, constant_values({1, 2, 3}));  // one value missing
    CHECK_THROWS_AS(w.write(path), bi::Error);
    CHECK(bi::io::read_file(path) == "previous");
    CHECK(directory_entries(dir.path()) == std::vector<std::string>{"m.gguf"});
}

TEST_CASE("writer: a successful write replaces the file and leaves only it", "[gguf][writer]") {
    bi::testing::ScratchDir dir;
    const std::string path = dir.file("m.gguf");
    bi::io::write_file_atomically(path, "previous");
    sample_writer(32).write(path);
    CHECK(load_gguf(path).version == 3);
    CHECK(directory_entries(dir.path()) == std::vector<std::string>{"m.gguf"});
}

TEST_CASE("writer: a missing directory is an I/O error", "[gguf][writer]") {
    bi::testing::ScratchDir dir;
    try {
        sample_writer(32).write(dir.file("no/such/m.gguf"));
        FAIL("no error");
    } catch (const bi::Error& e) {
        CHECK(e.category() == bi::ErrorCategory::Io);
        CHECK_THAT(e.what(), Catch::Contains("no/such/m.gguf"));
    }
}
