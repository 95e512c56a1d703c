// --server-flag values are server argv tokens: each one stays whole, commas included.
#include <catch2/catch.hpp>

#include "io/files.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::run_command;

TEST_CASE("run-live --dry-run keeps a comma inside one --server-flag token", "[cli][run-live]") {
    testing::ScratchDir dir;
    io::write_file_atomically(dir.file("model.gguf"), "not really a model");
    auto r = run_command({BI_RUN_PATH, "run-live", "--dry-run", "--server-bin", BI_MOCK_SERVER_PATH,
                          "--model", dir.file("model.gguf"), "--out-dir", dir.file("out"),
                          "--parallel", "2", "--ctx", "512", "--server-flag=--tensor-split",
                          "--server-flag=3,1", "--reserved-port", "9,10"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("--slots --tensor-split 3,1\n"));
    CHECK_THAT(r.out, !Catch::Contains("--tensor-split 3 1"));
    // Other vector options still take comma lists.
    CHECK_THAT(r.out, Catch::Contains("reserved ports 9 10"));
}
