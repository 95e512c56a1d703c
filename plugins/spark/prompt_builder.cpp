// Prompt assembly and sizing. The sentence count is the only knob: the needle, question and
// depth are fixed before sizing, so sizing never changes what is asked.
#include "prompt_builder.hpp"

#include <algorithm>
#include <cmath>

namespace spark {

namespace {

constexpr const char* kIntro =
    "The notes below were taken during a long working session on a shared codebase. Read them "
    "carefully, then answer the question that follows them.";
constexpr double kAcceptBelow = 0.02;  // a count within 2% under the target ends the search
constexpr std::int64_t kBytesPerToken = 4;

}  // namespace

std::string escape_echo(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

std::string assemble_prompt(const PromptPlan& plan, FillerStream& filler, std::size_t sentences) {
    const auto& walk = filler.take(sentences);
    const auto needle_at =
        static_cast<std::size_t>(std::llround(plan.depth * static_cast<double>(sentences)));
    std::string body;
    std::string paragraph;
    auto flush = [&] {
        if (paragraph.empty()) return;
        body += (body.empty() ? "" : "\n\n") + paragraph;
        paragraph.clear();
    };
    auto plant = [&] {
        flush();
        body += (body.empty() ? "" : "\n\n") + plan.needle;
    };
    for (std::size_t i = 0; i < sentences; ++i) {
        if (i == needle_at) plant();
        paragraph += (paragraph.empty() ? "" : " ") + walk[i];
        if (paragraph_break_after(i)) flush();
    }
    flush();
    if (needle_at >= sentences) plant();

    std::string prompt = std::string(kIntro) + "\n\n" + kNotesBegin + "\n" + body + "\n" +
                         kNotesEnd + "\n\n" + plan.question;
    if (!plan.echo_text.empty())
        prompt += "\n" + std::string(kEchoMarker) + escape_echo(plan.echo_text);
    return prompt;
}

TokenMeter::TokenMeter(const bi::sdk::HostServices& host)
    : host_(host), use_host_(host.can_count_tokens()) {}

std::int64_t TokenMeter::count(const std::string& text) {
    if (use_host_) {
        if (const auto counted = host_.count_tokens(text)) return *counted;
        use_host_ = false;
        host_.log(BI_LOG_WARNING,
                  "the token counter failed; sizing the rest at one token per 4 bytes");
    }
    return (static_cast<std::int64_t>(text.size()) + kBytesPerToken - 1) / kBytesPerToken;
}

namespace {

SizedPrompt measured(const PromptPlan& plan, FillerStream& filler, std::size_t sentences,
                     TokenMeter& meter) {
    SizedPrompt sized;
    sized.text = assemble_prompt(plan, filler, sentences);
    sized.tokens = meter.count(sized.text);
    sized.sentences = sentences;
    return sized;
}

// The filler's tokens per sentence by the byte estimate: a first guess at how many sentences
// reach a count, which usually brackets it in one or two counts.
double estimated_tokens_per_sentence() {
    const auto& bank = filler_sentences();
    std::size_t bank_bytes = 0;
    for (const auto& sentence : bank) bank_bytes += sentence.size() + 1;
    const double bytes_per_sentence =
        static_cast<double>(bank_bytes) / static_cast<double>(bank.size());
    return std::max(1.0, bytes_per_sentence / kBytesPerToken);
}

}  // namespace

SizedPrompt size_prompt(const PromptPlan& plan, FillerStream& filler, std::int64_t target_tokens,
                        TokenMeter& meter) {
    auto measure = [&](std::size_t sentences) { return measured(plan, filler, sentences, meter); };
    SizedPrompt best = measure(0);
    if (best.tokens >= target_tokens) return best;

    // Every sentence has at least one token, so target_tokens + 1 sentences always overshoot.
    const double tokens_per_sentence = estimated_tokens_per_sentence();
    std::size_t lo = 0;
    std::size_t hi = static_cast<std::size_t>(target_tokens) + 1;
    std::size_t guess = static_cast<std::size_t>(static_cast<double>(target_tokens - best.tokens) /
                                                 tokens_per_sentence);
    while (guess > lo && guess < hi) {
        SizedPrompt probe = measure(guess);
        if (probe.tokens > target_tokens) {
            hi = guess;
            break;
        }
        lo = guess;
        best = std::move(probe);
        if (static_cast<double>(best.tokens) >=
            static_cast<double>(target_tokens) * (1.0 - kAcceptBelow))
            return best;
        guess = std::min(hi, guess * 2);
    }
    while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        SizedPrompt probe = measure(mid);
        if (probe.tokens > target_tokens) {
            hi = mid;
            continue;
        }
        lo = mid;
        best = std::move(probe);
        if (static_cast<double>(best.tokens) >=
            static_cast<double>(target_tokens) * (1.0 - kAcceptBelow))
            break;
    }
    return best;
}

SizedPrompt size_prompt_at_least(const PromptPlan& plan, FillerStream& filler,
                                 std::int64_t min_tokens, TokenMeter& meter) {
    SizedPrompt reached = measured(plan, filler, 0, meter);
    if (reached.tokens >= min_tokens) return reached;
    // lo sentences stay under the count and `reached` (hi sentences) is at it or over; every
    // sentence has at least one token, so min_tokens sentences always reach it.
    const auto most = static_cast<std::size_t>(min_tokens);
    std::size_t lo = 0;
    std::size_t hi = std::min(
        most, std::max<std::size_t>(
                  1, static_cast<std::size_t>(static_cast<double>(min_tokens - reached.tokens) /
                                              estimated_tokens_per_sentence())));
    for (reached = measured(plan, filler, hi, meter); reached.tokens < min_tokens;
         reached = measured(plan, filler, hi, meter)) {
        lo = hi;
        hi = std::min(most, hi * 2);
    }
    while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        SizedPrompt probe = measured(plan, filler, mid, meter);
        if (probe.tokens >= min_tokens) {
            hi = mid;
            reached = std::move(probe);
        } else {
            lo = mid;
        }
    }
    return reached;
}

}  // namespace spark
