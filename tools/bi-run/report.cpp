// bi-run report: every cert of the given files and directories, loaded once (report/
// report_model.hpp), rendered as a text table, CSV, JSON, Markdown, JUnit XML or an HTML page.
#include <cxxopts.hpp>

#include <ctime>
#include <filesystem>
#include <iostream>

#include "build_info.hpp"
#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "driver/plan_status.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "plugin_args.hpp"
#include "report/report_baselines.hpp"
#include "report/report_html.hpp"
#include "report/report_junit.hpp"
#include "report/report_markdown.hpp"
#include "report/report_model.hpp"
#include "report/report_prometheus.hpp"
#include "report/report_table.hpp"
#include "trust_options.hpp"

namespace bi::cli {

namespace {

// Only one format can own stdout.
void check_one_stdout_format(const cxxopts::ParseResult& args) {
    int formats = 0;
    for (const char* name : {"json", "csv", "markdown"}) formats += args.count(name) ? 1 : 0;
    if (formats > 1)
        throw Error(ErrorCategory::Usage,
                    "--json, --csv and --markdown all print to "
                    "stdout; choose one");
}

void write_output(const cxxopts::ParseResult& args, const char* option, const std::string& text) {
    if (!args.count(option)) return;
    const auto path = args[option].as<std::string>();
    try {
        io::write_file_atomically(path, text);
    } catch (const Error& e) {
        throw Error(ErrorCategory::Io,
                    std::string("--") + option + " " + path + ": " + without_bi_prefix(e.what()));
    }
}

}  // namespace

namespace {

// Two certs of one cell: the matrix shows the worst.
void note_conflicts(const report::ReportModel& model) {
    for (const auto& grid : report::model_grids(model))
        for (const auto& note : report::conflict_notes(grid))
            std::cerr << "bi-run report: note: " << note << "\n";
}

// Says on stderr what was skipped and what cannot be trusted; kExitError when any file cannot.
int note_files(const report::ReportModel& model) {
    int code = kExitPromotable;
    const auto problem = [&code](const std::string& line) {
        std::cerr << "bi-run report: " << line << "\n";
        code = kExitError;
    };
    for (const auto& entry : model.attestations)
        std::cerr << "bi-run report: note: " << entry.problem << ": skipped\n";
    // A baseline is the reference checks read, not a result; one that was edited is reported.
    for (const auto& entry : model.baselines)
        if (entry.kind == trust::FileKind::Baseline)
            std::cerr << "bi-run report: note: " << entry.problem << ": skipped\n";
        else
            problem(entry.problem);
    for (const auto& entry : model.checks)
        if (!entry.trusted_check()) problem(entry.problem);
    for (const auto& entry : model.entries)
        if (entry.kind == trust::FileKind::Upstream)
            std::cerr << "bi-run report: note: " << entry.problem << "\n";
        else if (!entry.trusted())
            problem(entry.problem);
    return code;
}

// The format asked for on stdout, the text tables by default.
void print_report(const cxxopts::ParseResult& args, const report::ReportModel& model) {
    if (args.count("json"))
        std::cout << io::to_json_text(report::render_json_rows(model)) << std::endl;
    else if (args.count("csv"))
        report::render_csv(model, std::cout);
    else if (args.count("markdown"))
        std::cout << report::render_markdown(model);
    else {
        // Only baseline checks given: their table alone, without an empty cell table above it.
        if (!model.entries.empty() || model.checks.empty()) report::render_text(model, std::cout);
        report::render_checks_text(model, std::cout);
    }
    std::cout.flush();
}

// --plan: the plan's cells without a cert in the first directory reported; on stderr when stdout
// holds a JSON, CSV or Markdown document.
void print_plan_status(const cxxopts::ParseResult& args, const core::SweepPlan& plan,
                       const std::vector<std::string>& paths) {
    std::string dir;
    for (const auto& path : paths)
        if (dir.empty() && std::filesystem::is_directory(path)) dir = path;
    const bool to_stderr = args.count("json") || args.count("csv") || args.count("markdown");
    (to_stderr ? std::cerr : std::cout) << driver::describe_plan_status(plan, dir) << std::flush;
}

}  // namespace

int report_main(CommandLine& line, int argc, char** argv) {
    auto command = command_options("report");
    const auto args = parse_command_line(line, command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    if (!args.count("paths") && !args.count("plan"))
        throw Error(ErrorCategory::Usage, "name certs or directories (or --plan)");
    check_one_stdout_format(args);

    std::optional<core::SweepPlan> plan;
    if (args.count("plan")) plan = driver::read_plan_option(args["plan"].as<std::string>());
    // The paths named, else (with --plan) the plan's directory.
    const auto paths = args.count("paths") ? args["paths"].as<std::vector<std::string>>()
                                           : std::vector<std::string>{plan->out_dir};
    const auto model = report::load_report(paths, judge_options(args));
    note_conflicts(model);
    const int code = note_files(model);
    write_output(args, "html", report::render_html(model));
    write_output(args, "junit", report::render_junit(model));
    if (args.count("prometheus"))
        write_output(
            args, "prometheus",
            report::render_prometheus(
                model, {build_info().version, static_cast<std::int64_t>(std::time(nullptr))}));
    print_report(args, model);
    if (plan) print_plan_status(args, *plan, paths);
    return code;
}

}  // namespace bi::cli
