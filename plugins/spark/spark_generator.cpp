// Row generation. Needles and depths come from a stream seeded by (seed, family, fill) only, so
// every model and ctx is asked the same questions for one seed; the filler's length follows
// the ctx and the server's tokenizer.
#include "spark_generator.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "generator_params.hpp"
#include "needle.hpp"
#include "prompt_builder.hpp"

namespace spark {

namespace {

constexpr int kMaxRedraws = 64;          // a repeated needle is redrawn from the same stream
constexpr std::int64_t kDepthSteps = 9;  // depths 0.1, 0.2, ..., 0.9

std::string stream_label(const char* purpose, std::uint64_t seed, std::string_view family,
                         double fill) {
    return std::string("spark/") + purpose + "|" + std::to_string(seed) + "|" +
           std::string(family) + "|" + std::to_string(std::llround(fill * 100.0));
}

}  // namespace

void SparkGenerator::generate(const bi::sdk::GenerateRequest& request,
                              const bi::sdk::HostServices& host, bi::sdk::RowSink& rows) {
    if (request.ctx < 1)
        throw bi::sdk::Failure(BI_STATUS_INVALID_ARGUMENT, "spark: ctx must be at least 1");
    const GeneratorParams params = parse_generator_params(request.params);
    const auto most =
        static_cast<std::int64_t>(std::floor(largest_fill() * static_cast<double>(request.ctx)));
    if (params.min_prompt_tokens > most)
        throw bi::sdk::Failure(
            BI_STATUS_INVALID_ARGUMENT,
            "spark: min_prompt_tokens=" + std::to_string(params.min_prompt_tokens) +
                " does not fit ctx " + std::to_string(request.ctx) +
                ": a prompt may fill at most " + std::to_string(most) +
                " tokens of it; the rest is left for the system message, the chat template and "
                "the answer");
    TokenMeter meter(host);
    if (!meter.measured())
        host.log(BI_LOG_DEBUG, "no token counter: prompts are sized at one token per 4 bytes");

    for (const auto& family_id : params.families) {
        const FamilySpec& family = *find_family(family_id);
        std::vector<std::string> planted;  // this family's needles so far: fills never share one
        for (const double fill : params.fills) {
            Prng prng(seed_from(stream_label("needle", request.seed, family.id, fill)));
            const double depth = static_cast<double>(1 + prng.below(kDepthSteps)) / 10.0;
            Needle needle = family.make(prng);
            for (int redraw = 0;
                 std::find(planted.begin(), planted.end(), needle.text) != planted.end();
                 ++redraw) {
                if (redraw == kMaxRedraws)
                    throw bi::sdk::Failure(BI_STATUS_ERROR,
                                           "spark: could not draw a fresh needle for " + family_id);
                needle = family.make(prng);
            }
            planted.push_back(needle.text);

            PromptPlan plan;
            plan.needle = needle.text;
            plan.depth = depth;
            plan.question = needle.question;
            if (params.echo) plan.echo_text = needle.reference;
            FillerStream filler(seed_from(stream_label("filler", request.seed, family.id, fill)));
            const auto target =
                static_cast<std::int64_t>(std::floor(fill * static_cast<double>(request.ctx)));
            SizedPrompt sized = size_prompt(plan, filler, target, meter);
            if (sized.tokens < params.min_prompt_tokens)
                sized = size_prompt_at_least(plan, filler, params.min_prompt_tokens, meter);

            Json expected = std::move(needle.expected);
            set_member(expected, "depth", json_number(depth));
            bi::sdk::Row row;
            row.prompt = sized.text;
            row.system = kSystemMessage;
            row.family = family_id;
            row.fill = fill;
            row.expected_answer_json = to_json(expected);
            rows.add(row);
        }
    }
}

}  // namespace spark
