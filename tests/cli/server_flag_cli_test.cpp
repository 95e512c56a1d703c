// --server-flag values are server argv tokens: each one stays whole, commas included.
#include <catch2/catch.hpp>

#include <filesystem>

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

TEST_CASE("run-live --dry-run plans the passes of --target-rate", "[cli][run-live]") {
    testing::ScratchDir dir;
    io::write_file_atomically(dir.file("model.gguf"), "not really a model");
    io::write_file_atomically(dir.file("ws.json"),
                              R"([{"family":"f","fill":0.1,"prompt":"p1","expected_answer":"x"},)"
                              R"({"family":"f","fill":0.1,"prompt":"p2","expected_answer":"y"}])");
    const std::vector<std::string> base{BI_RUN_PATH,
                                        "run-live",
                                        "--dry-run",
                                        "--server-bin",
                                        BI_MOCK_SERVER_PATH,
                                        "--model",
                                        dir.file("model.gguf"),
                                        "--out-dir",
                                        dir.file("out"),
                                        "--parallel",
                                        "2",
                                        "--workset",
                                        dir.file("ws.json"),
                                        "--n-predict",
                                        "50"};
    auto argv = base;
    argv.insert(argv.end(), {"--target-rate", "0.01", "--max-passes", "200"});
    auto r = run_command(argv);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    // 299 trials from 2 items: at least 150 passes; 50 tokens x 20 ms = 1 s a request, 6 serial
    // requests and 150 passes of one round.
    CHECK_THAT(r.out, Catch::Contains("299 counted trials needed; 2 items give at least 150 "
                                      "pass(es), capped at 200"));
    CHECK_THAT(r.out, Catch::Contains("wall time N=2  ~156 s"));
    argv = base;
    argv.insert(argv.end(), {"--target-rate", "0.01"});
    r = run_command(argv);
    CHECK_THAT(r.out, Catch::Contains("the cap comes first: the target cannot be reached"));
    r = run_command(base);
    CHECK_THAT(r.out, Catch::Contains("C passes       4 fixed"));
    CHECK_FALSE(std::filesystem::exists(dir.file("out")));
}
