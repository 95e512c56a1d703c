// The mock's opt-in echo marker, which spark end-to-end runs rely on: "ECHO: <text>" in the user
// prompt makes the completion <text> then EOS; co-batching divergence still changes it; prompts
// without the marker are untouched.
#include <catch2/catch.hpp>

#include "mock/echo_marker.hpp"
#include "mock/request_parsing.hpp"
#include "mock/scheduler.hpp"

using namespace bi::mock;

namespace {

SchedulerOptions options(int slots, Divergence divergence = Divergence::None) {
    SchedulerOptions o;
    o.slots = slots;
    o.n_ctx = 1024;
    o.tick_ms = 0.0;
    o.divergence = divergence;
    return o;
}

CompletionJob job_for(const std::string& user_text, int n_predict) {
    CompletionJob job;
    job.prompt = tokenize_prompt(user_text);
    job.echo = echo_pieces(user_text);
    job.n_predict = n_predict;
    return job;
}

std::vector<CompletionOutcome> run_together(const std::vector<CompletionJob>& jobs,
                                            Divergence divergence = Divergence::None) {
    Scheduler scheduler(options(static_cast<int>(jobs.size()), divergence));
    std::vector<Scheduler::Ticket> tickets;
    for (const auto& job : jobs) tickets.push_back(scheduler.submit(job));
    while (scheduler.step()) {
    }
    std::vector<CompletionOutcome> outcomes;
    for (const auto& ticket : tickets) outcomes.push_back(scheduler.wait(ticket));
    return outcomes;
}

const std::string kPrompt = "Question: what is the key?\nECHO: \"KT-4821-QZ\"";

}  // namespace

TEST_CASE("mock echo: the marker line is found and unescaped", "[mock][echo]") {
    CHECK(find_echo_text(kPrompt) == std::optional<std::string>("\"KT-4821-QZ\""));
    CHECK(find_echo_text("ECHO: - a\\n- b\\\\c\\t\nmore") ==
          std::optional<std::string>("- a\n- b\\c\\t"));
    CHECK_FALSE(find_echo_text("no marker here"));
    CHECK_FALSE(find_echo_text("say ECHO: not at the start of a line"));
    CHECK_FALSE(find_echo_text("ECHO: "));
}

TEST_CASE("mock echo: the completion is the echoed text, then EOS", "[mock][echo]") {
    const auto outcome = run_together({job_for(kPrompt, 64)}).front();
    CHECK(outcome.content == "\"KT-4821-QZ\"");
    CHECK(outcome.stop_type == "eos");
    CHECK(outcome.tokens.size() == tokenize("\"KT-4821-QZ\"").size());
    // Without a limit the echo ends it too.
    CHECK(run_together({job_for(kPrompt, -1)}).front().content == "\"KT-4821-QZ\"");
}

TEST_CASE("mock echo: n_predict still cuts the echo short", "[mock][echo]") {
    const auto outcome = run_together({job_for(kPrompt, 2)}).front();
    CHECK(outcome.stop_type == "limit");
    CHECK(outcome.tokens.size() == 2);
    CHECK(outcome.content == "\"KT");
}

TEST_CASE("mock echo: prompts without the marker generate as before", "[mock][echo]") {
    const std::string plain = "Question: what is the key?";
    CompletionJob with_field = job_for(plain, 8);
    CHECK(with_field.echo.empty());
    const auto outcome = run_together({with_field}).front();
    CHECK(outcome.tokens.size() == 8);
    CHECK(outcome.content.find("KT") == std::string::npos);
}

TEST_CASE("mock echo: co-batching divergence still changes echoed answers", "[mock][echo]") {
    const auto quiet = run_together({job_for(kPrompt, 64), job_for("Another " + kPrompt, 64)});
    CHECK(quiet[0].content == "\"KT-4821-QZ\"");
    CHECK(quiet[1].content == "\"KT-4821-QZ\"");
    const auto diverged =
        run_together({job_for(kPrompt, 64), job_for("Another " + kPrompt, 64)}, Divergence::Score);
    CHECK(diverged[0].content != "\"KT-4821-QZ\"");
    // Alone, the same scheduler mode echoes faithfully: the change comes from co-batching.
    CHECK(run_together({job_for(kPrompt, 64)}, Divergence::Score).front().content ==
          "\"KT-4821-QZ\"");
}

TEST_CASE("mock echo: chat requests carry the marker from the user message", "[mock][echo]") {
    const bi::core::Json body = bi::core::Json::Object{
        {"messages",
         bi::core::Json::Array{bi::core::Json::Object{{"role", "system"}, {"content", "Be brief."}},
                               bi::core::Json::Object{{"role", "user"}, {"content", kPrompt}}}}};
    const auto request = parse_completion_request(Endpoint::OaiChat, body);
    CHECK(request.echo.size() == tokenize("\"KT-4821-QZ\"").size());
    const bi::core::Json plain = bi::core::Json::Object{
        {"messages",
         bi::core::Json::Array{bi::core::Json::Object{{"role", "user"}, {"content", "hi"}}}}};
    CHECK(parse_completion_request(Endpoint::OaiChat, plain).echo.empty());
}
