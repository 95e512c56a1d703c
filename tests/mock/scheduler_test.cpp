// The scheduler driven tick by tick (no thread), plus one threaded run: slots, FIFO queueing,
// co-batching, stale task ids, stop reasons and cancellation.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "mock/scheduler.hpp"

using namespace bi::mock;

namespace {

CompletionJob job_for(const std::string& prompt, int n_predict, int n_probs = 0) {
    CompletionJob job;
    job.prompt = tokenize_prompt(prompt);
    job.n_predict = n_predict;
    job.n_probs = n_probs;
    job.params = bi::core::Json::Object{{"n_predict", n_predict}};
    for (const auto& piece : tokenize(prompt))
        if (piece.text.size() > 2) job.prompt_words.push_back(piece.text.substr(1));
    return job;
}

SchedulerOptions options(int slots, Divergence divergence = Divergence::None) {
    SchedulerOptions o;
    o.slots = slots;
    o.n_ctx = 512;
    o.tick_ms = 0.0;
    o.divergence = divergence;
    return o;
}

void drain(Scheduler& scheduler) {
    while (scheduler.step()) {
    }
}

// The reference: the same job alone on a one-slot scheduler.
CompletionOutcome alone(const CompletionJob& job, Divergence divergence = Divergence::None) {
    Scheduler scheduler(options(1, divergence));
    auto ticket = scheduler.submit(job);
    drain(scheduler);
    return scheduler.wait(ticket);
}

std::vector<std::int32_t> token_ids(const CompletionOutcome& outcome) {
    std::vector<std::int32_t> ids;
    for (const auto& token : outcome.tokens) ids.push_back(token.chosen.id);
    return ids;
}

}  // namespace

TEST_CASE("one request: a prompt step, then one token per step", "[mock][scheduler]") {
    Scheduler scheduler(options(2));
    auto ticket = scheduler.submit(job_for("The quick brown fox", 6, 2));
    for (int i = 0; i < 7; ++i) CHECK(scheduler.step());
    CHECK_FALSE(scheduler.step());
    const auto outcome = scheduler.wait(ticket);
    CHECK_FALSE(outcome.cancelled);
    CHECK(outcome.id_slot == 0);
    CHECK(outcome.id_task == 0);
    CHECK(outcome.n_prompt == 5);
    CHECK(outcome.stop_type == "limit");
    REQUIRE(outcome.tokens.size() == 6);
    const auto key = prompt_key(ids_of(tokenize_prompt("The quick brown fox")));
    std::string content;
    for (int i = 0; i < 6; ++i) {
        CHECK(outcome.tokens[static_cast<std::size_t>(i)].chosen.id ==
              base_token(key, i, 2).chosen.id);
        content += outcome.tokens[static_cast<std::size_t>(i)].chosen.piece;
    }
    CHECK(outcome.content == content);
    const auto stats = scheduler.stats();
    CHECK(stats.n_decode_total == 7);
    CHECK(stats.n_busy_slots_total == 7);
    CHECK(stats.prompt_tokens_total == 5);
    CHECK(stats.tokens_predicted_total == 6);
    CHECK(stats.n_tokens_max == 11);
}

TEST_CASE("more requests than slots queue in arrival order", "[mock][scheduler]") {
    Scheduler scheduler(options(1));
    auto first = scheduler.submit(job_for("one", 2));
    auto second = scheduler.submit(job_for("two", 2));
    auto third = scheduler.submit(job_for("three", 2));
    auto stats = scheduler.stats();
    CHECK(stats.requests_processing == 1);
    CHECK(stats.requests_deferred == 2);
    REQUIRE(scheduler.slots().size() == 1);
    CHECK(scheduler.slots()[0].id_task == 0);
    drain(scheduler);
    CHECK(scheduler.wait(first).id_task == 0);
    CHECK(scheduler.wait(second).id_task == 1);
    CHECK(scheduler.wait(third).id_task == 2);
    stats = scheduler.stats();
    CHECK(stats.requests_deferred == 0);
    CHECK(stats.n_decode_total == 9);  // never co-batched: 3 x (prompt + 2 tokens)
    CHECK(stats.n_busy_slots_total == 9);
}

TEST_CASE("a finished slot keeps its stale task id and stops processing", "[mock][scheduler]") {
    Scheduler scheduler(options(2));
    auto ticket = scheduler.submit(job_for("hello there", 3));
    scheduler.step();
    auto view = scheduler.slots()[0];
    CHECK(view.is_processing);
    CHECK(view.n_prompt_tokens_processed == view.n_prompt_tokens);
    CHECK(view.n_decoded == 0);
    CHECK(view.n_remain == 3);
    scheduler.step();
    CHECK(scheduler.slots()[0].n_decoded == 1);
    drain(scheduler);
    scheduler.wait(ticket);
    view = scheduler.slots()[0];
    CHECK_FALSE(view.is_processing);
    CHECK(view.id_task == 0);
    CHECK(view.n_decoded == 0);
    CHECK(view.params.int_or("n_predict", 0) == 3);
    CHECK(scheduler.slots()[1].id_task == -1);
}

TEST_CASE("co-batched requests share steps and, without divergence, match serial runs",
          "[mock][scheduler]") {
    Scheduler scheduler(options(3));
    const std::vector<CompletionJob> jobs{job_for("alpha beta", 8, 1), job_for("gamma delta", 8, 1),
                                          job_for("epsilon", 8, 1)};
    std::vector<Scheduler::Ticket> tickets;
    for (const auto& job : jobs) tickets.push_back(scheduler.submit(job));
    drain(scheduler);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const auto batched = scheduler.wait(tickets[i]);
        const auto serial = alone(jobs[i]);
        CHECK(batched.content == serial.content);
        CHECK(token_ids(batched) == token_ids(serial));
        CHECK(batched.tokens.back().chosen.logprob == serial.tokens.back().chosen.logprob);
    }
    const auto stats = scheduler.stats();
    CHECK(stats.n_decode_total == 9);
    CHECK(stats.n_busy_slots_total == 27);
}

TEST_CASE("score divergence changes co-batched output but not serial output", "[mock][scheduler]") {
    const auto job = job_for("What is two plus two?", 12);
    CHECK(alone(job, Divergence::Score).content == alone(job).content);
    Scheduler scheduler(options(2, Divergence::Score));
    auto a = scheduler.submit(job);
    auto b = scheduler.submit(job_for("Name a colour.", 12));
    drain(scheduler);
    CHECK(scheduler.wait(a).content != alone(job).content);
    scheduler.wait(b);
}

TEST_CASE("the stochastic coin is reproducible for a seed and arrival order", "[mock][scheduler]") {
    auto run_all = [](double p, std::uint64_t seed) {
        auto o = options(4, Divergence::Stochastic);
        o.divergence_p = p;
        o.seed = seed;
        Scheduler scheduler(o);
        std::vector<Scheduler::Ticket> tickets;
        for (int i = 0; i < 4; ++i)
            tickets.push_back(scheduler.submit(job_for("prompt " + std::to_string(i), 10)));
        drain(scheduler);
        std::vector<bool> changed;
        for (int i = 0; i < 4; ++i)
            changed.push_back(scheduler.wait(tickets[static_cast<std::size_t>(i)]).content !=
                              alone(job_for("prompt " + std::to_string(i), 10)).content);
        return changed;
    };
    CHECK(run_all(0.5, 7) == run_all(0.5, 7));
    CHECK(run_all(1.0, 7) == std::vector<bool>(4, true));
    CHECK(run_all(0.0, 7) == std::vector<bool>(4, false));
}

TEST_CASE("limits: context, natural EOS, empty, stop strings", "[mock][scheduler]") {
    SECTION("generation stops when the slot's context is full") {
        auto o = options(1);
        o.n_ctx = 10;
        Scheduler scheduler(o);
        auto ticket = scheduler.submit(job_for("one two three four", 100));  // 5 prompt tokens
        drain(scheduler);
        const auto outcome = scheduler.wait(ticket);
        CHECK(outcome.tokens.size() == 5);
        CHECK(outcome.stop_type == "limit");
    }
    SECTION("no n_predict: the mock's EOS ends it") {
        Scheduler scheduler(options(1));
        const auto job = job_for("open ended", -1);
        auto ticket = scheduler.submit(job);
        drain(scheduler);
        const auto outcome = scheduler.wait(ticket);
        CHECK(outcome.stop_type == "eos");
        CHECK(static_cast<int>(outcome.tokens.size()) ==
              natural_length(prompt_key(ids_of(job.prompt))));
    }
    SECTION("the empty knob answers nothing") {
        auto o = options(1);
        o.empty = true;
        Scheduler scheduler(o);
        auto ticket = scheduler.submit(job_for("anything", 16));
        drain(scheduler);
        const auto outcome = scheduler.wait(ticket);
        CHECK(outcome.tokens.empty());
        CHECK(outcome.content.empty());
        CHECK(outcome.stop_type == "eos");
    }
    SECTION("a stop string ends generation and is cut from the content") {
        auto job = job_for("stop here", 40);
        const auto full = alone(job).content;
        const auto cut = full.find(' ', 3);
        REQUIRE(cut != std::string::npos);
        job.stop = {full.substr(cut, 3)};
        Scheduler scheduler(options(1));
        auto ticket = scheduler.submit(job);
        drain(scheduler);
        const auto outcome = scheduler.wait(ticket);
        CHECK(outcome.stop_type == "word");
        CHECK(outcome.stopping_word == job.stop[0]);
        CHECK(outcome.content == full.substr(0, full.find(job.stop[0])));
    }
}

TEST_CASE("stop cancels queued and running requests", "[mock][scheduler]") {
    Scheduler scheduler(options(1));
    auto running = scheduler.submit(job_for("a", 5));
    auto queued = scheduler.submit(job_for("b", 5));
    scheduler.step();
    scheduler.stop();
    CHECK(scheduler.wait(running).cancelled);
    CHECK(scheduler.wait(queued).cancelled);
    CHECK(scheduler.submit(job_for("c", 1)) != nullptr);
    CHECK(scheduler.wait(scheduler.submit(job_for("c", 1))).cancelled);
}

TEST_CASE("the tick thread serves concurrent callers deterministically", "[mock][scheduler]") {
    Scheduler scheduler(options(3));
    scheduler.start();
    std::vector<CompletionOutcome> outcomes(8);
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i)
        threads.emplace_back([&, i] {
            outcomes[static_cast<std::size_t>(i)] =
                scheduler.run(job_for("request number " + std::to_string(i), 20, 2));
        });
    for (auto& thread : threads) thread.join();
    for (int i = 0; i < 8; ++i) {
        const auto serial = alone(job_for("request number " + std::to_string(i), 20, 2));
        CHECK(outcomes[static_cast<std::size_t>(i)].content == serial.content);
        CHECK(token_ids(outcomes[static_cast<std::size_t>(i)]) == token_ids(serial));
    }
    scheduler.stop();
    CHECK(scheduler.stats().tokens_predicted_total == 160);
}

TEST_CASE("a request alone past fast_solo_after_ticks runs on unpaced, company stays paced",
          "[mock][scheduler]") {
    using Clock = std::chrono::steady_clock;
    auto o = options(2);
    o.tick_ms = 20.0;
    o.fast_solo_after_ticks = 2;
    {
        Scheduler scheduler(o);
        scheduler.start();
        const auto start = Clock::now();
        const auto outcome = scheduler.run(job_for("alone in the batch", 100));
        CHECK(outcome.tokens.size() == 100);
        // Paced, 101 steps of 20 ms would take two seconds; three paced steps, then flat out.
        CHECK(Clock::now() - start < std::chrono::seconds(1));
        scheduler.stop();
    }
    Scheduler scheduler(o);
    auto first = scheduler.submit(job_for("first of two", 10));
    auto second = scheduler.submit(job_for("second of two", 10));
    const auto start = Clock::now();
    scheduler.start();  // both share every step from the first: each one is paced
    CHECK(scheduler.wait(first).tokens.size() == 10);
    CHECK(scheduler.wait(second).tokens.size() == 10);
    CHECK(Clock::now() - start >= std::chrono::milliseconds(200));
    scheduler.stop();
}

TEST_CASE("a request left alone right after a shared step waits for the client's next one",
          "[mock][scheduler]") {
    // The turnaround-paced mock (run-mock's pacing): the client turns around in about 15 ms,
    // so a request whose partner has just ended waits up to twice that for the next one before
    // it runs its last two steps alone.
    using namespace std::chrono_literals;
    auto o = options(2);
    o.tick_ms = 1.0;
    o.tick_per_turnaround = 0.5;
    Scheduler scheduler(o);
    scheduler.start();
    CHECK(scheduler.run(job_for("the first answer", 1)).tokens.size() == 1);
    std::this_thread::sleep_for(15ms);  // the client's turnaround: the next two sent together
    auto long_one = scheduler.submit(job_for("three tokens long", 3));
    auto short_one = scheduler.submit(job_for("one token", 1));
    CHECK(scheduler.wait(short_one).tokens.size() == 1);
    std::this_thread::sleep_for(12ms);  // the client turns around again
    const auto company = scheduler.run(job_for("the next request", 2));
    const auto waited = scheduler.wait(long_one);
    CHECK(company.tokens.size() == 2);
    REQUIRE(waited.tokens.size() == 3);
    // Unpaced by company, its last two tokens would have come within a few ms of its first.
    CHECK(waited.predicted_ms >= 12.0);
    scheduler.stop();
}

TEST_CASE("a long prompt is prefilled over several steps: a chunk of it a step",
          "[mock][scheduler]") {
    // One step for the whole prompt with the default chunk; with a chunk of 4 (llama-server -ub
    // 4) a step for every 4 prompt tokens, then one token a step; /slots shows the prompt
    // evaluated a chunk at a time.
    const auto job = job_for(
        "one two three four five six seven eight nine ten eleven twelve "
        "thirteen fourteen fifteen sixteen seventeen eighteen nineteen",
        3);
    const auto n_prompt = static_cast<int>(job.prompt.size());
    REQUIRE(n_prompt > 16);
    auto steps_to_finish = [&job, n_prompt](int chunk) {
        auto o = options(1);
        o.prompt_tokens_per_step = chunk;
        Scheduler scheduler(o);
        auto ticket = scheduler.submit(job);
        int steps = 0;
        std::vector<int> evaluated;
        while (scheduler.step()) {
            ++steps;
            evaluated.push_back(scheduler.slots()[0].n_prompt_tokens_processed);
        }
        const auto outcome = scheduler.wait(ticket);
        CHECK(outcome.n_prompt == n_prompt);
        CHECK(outcome.tokens.size() == 3);
        return std::make_pair(steps, evaluated);
    };
    CHECK(steps_to_finish(512).first == 1 + 3);
    const auto [steps, evaluated] = steps_to_finish(4);
    CHECK(steps == (n_prompt + 3) / 4 + 3);
    REQUIRE(evaluated.size() >= 4);
    CHECK(std::vector<int>(evaluated.begin(), evaluated.begin() + 4) ==
          std::vector<int>{4, 8, 12, 16});
    CHECK(steps_to_finish(6).first == (n_prompt + 5) / 6 + 3);
    // The answer does not depend on how its prompt was chunked.
    auto o = options(1);
    o.prompt_tokens_per_step = 4;
    Scheduler chunked(o);
    auto ticket = chunked.submit(job);
    drain(chunked);
    CHECK(token_ids(chunked.wait(ticket)) == token_ids(alone(job)));
}
