// The driver names request fields in its messages; bi-run names each as the option the user
// typed for it (an upstream alias when they typed one, else the option's own name), and every
// field the driver can name is set by some option in the table.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/option_naming.hpp"
#include "cli/option_table.hpp"
#include "cli_args.hpp"
#include "core/request_field.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::bi_run;
using testing::operator+;
using testing::run_command;
using F = core::RequestField;

namespace {

using Spellings = std::vector<std::pair<std::string, std::string>>;

cli::CommandLine command_line(std::string command, Spellings spellings = {}) {
    cli::CommandLine line;
    line.command = std::move(command);
    line.aliases.spellings = std::move(spellings);
    return line;
}

std::string names(const std::vector<F>& fields) {
    std::string text;
    for (const auto field : fields) text += std::string(core::field_name(field)) + " ";
    return text;
}

}  // namespace

TEST_CASE("option table: every request field the driver can name is set by some option",
          "[cli][option-naming]") {
    INFO("fields no option sets: " << names(cli::fields_without_option(cli::option_specs())));
    CHECK(cli::fields_without_option(cli::option_specs()).empty());

    // The check sees a field whose options are gone (renamed, or set no more).
    auto without_ctx = cli::option_specs();
    without_ctx.erase(std::remove_if(without_ctx.begin(), without_ctx.end(),
                                     [](const cli::OptionSpec& s) { return s.field == F::Ctxs; }),
                      without_ctx.end());
    CHECK(cli::fields_without_option(without_ctx) == std::vector<F>{F::Ctxs});
}

TEST_CASE("a field is named as the option of the command that sets it, as the user typed it",
          "[cli][option-naming]") {
    CHECK(cli::option_naming(F::Passes, command_line("run-mock")) == "--passes");
    CHECK(
        cli::option_naming(F::Passes, command_line("run-mock", {{"--passes", "--gate-passes"}})) ==
        "--gate-passes");
    // Typed both ways (the log keeps no spelling): the option's own name.
    CHECK(cli::option_naming(F::Passes, command_line("run-mock", {{"--passes", ""}})) ==
          "--passes");
    // The same field is another option in another command.
    CHECK(cli::option_naming(F::Out, command_line("baseline record")) == "--out");
    CHECK(cli::option_naming(F::OutDir, command_line("run-live")) == "--out-dir");
    CHECK(cli::option_naming(F::MaxN, command_line("plan-n", {{"--max-n", "--parallel"}})) ==
          "--parallel");
    // A field this command has no option for is named by the option that sets it elsewhere.
    CHECK(cli::option_naming(F::Parallels, command_line("selftest")) == "--parallel");
    CHECK(cli::option_naming(F::Shard, command_line("")) == "--shard");

    const auto line = command_line("run-mock", {{"--kv-label", "--kv"}});
    CHECK(cli::with_options_named(core::field_ref(F::KvLabel) + " q9: not a cache type (see " +
                                      core::field_ref(F::ReadyTimeout) + "), `not a field`",
                                  line) ==
          "--kv q9: not a cache type (see --ready-timeout), `not a field`");
}

TEST_CASE("the notes stream names fields line by line and passes a flushed status line on",
          "[cli][option-naming]") {
    const auto line = command_line("run-mock", {{"--passes", "--gate-passes"}});
    std::ostringstream out;
    {
        cli::OptionNamingStream notes(out, line);
        notes << "bi-run: " << core::field_ref(F::Passes);
        CHECK(out.str().empty());  // an unfinished line waits
        notes << " 2\nbi-run: " << core::field_ref(F::StopOnRed) << ": stopping" << std::endl;
        CHECK(out.str() == "bi-run: --gate-passes 2\nbi-run: --stop-on-red: stopping\n");
        notes << "\rA  3/8" << std::flush;
        CHECK_THAT(out.str(), Catch::EndsWith("stopping\n\rA  3/8"));
        notes << "\nleft over";
    }
    CHECK_THAT(out.str(), Catch::EndsWith("3/8\nleft over"));  // written when it ends
}

TEST_CASE("a refusal names the alias the user typed for the field, else the option",
          "[cli][option-naming][errors]") {
    testing::ScratchDir dir;
    // --logprobs is checked by the driver (a request field), typed as upstream's --n-probs.
    auto r = run_command(bi_run({"run-mock", "--n-probs", "21", "--out-dir", dir.path()}));
    CHECK(r.exit_code == 2);
    CHECK(r.err == "bi-run run-mock: --n-probs must be at most 20\n");
    r = run_command(bi_run({"run-mock", "--logprobs", "21", "--out-dir", dir.path()}));
    CHECK(r.err == "bi-run run-mock: --logprobs must be at most 20\n");
    // --kv for --kv-label, in a message that names two fields.
    r = run_command(bi_run({"run-mock", "--kv", "q9_9", "--out-dir", dir.path()}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("bi-run run-mock: --kv q9_9: not a llama.cpp cache type"));
    // plan-n's --parallel is its --max-n.
    const std::vector<std::string> shape{"--gguf-gb",   "1", "--n-layer",  "2",
                                         "--n-head-kv", "2", "--head-dim", "64"};
    r = run_command(bi_run({"plan-n", "--parallel", "0"}) + shape);
    CHECK(r.err == "bi-run plan-n: --parallel must be between 1 and 1024\n");
    r = run_command(bi_run({"plan-n", "--max-n", "0"}) + shape);
    CHECK(r.err == "bi-run plan-n: --max-n must be between 1 and 1024\n");
    // Nothing the driver writes reaches the user as a field's own name.
    r = run_command(
        bi_run({"run-mock", "--target-rate", "0.1", "--passes", "3", "--out-dir", dir.path()}));
    CHECK(r.err == "bi-run run-mock: --target-rate plans the passes itself: leave out --passes\n");
}
