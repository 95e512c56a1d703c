// Example work-set generator: rows that plant a code in filler text at a seeded depth and ask
// for it back. Deterministic: a specified PRNG (splitmix64) and no library distributions, so
// the same request gives byte-identical rows on every machine.
//
// Parameters: rows=N (default 4), fill=F (fraction of ctx, default 0.25).
#include <bi/plugin.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace {

const char* const kFiller[] = {
    "The archive room smelled of dust and old paper.",
    "A courier left three parcels at the front desk before noon.",
    "Rain had been forecast, but the afternoon stayed dry and bright.",
    "Someone had pinned a faded map of the harbour above the kettle.",
    "The lift was out of order again, so everyone took the stairs.",
    "Two visitors argued politely about the best route to the station.",
};

// splitmix64: every bit of its output is specified.
std::uint64_t next(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

std::string make_code(std::uint64_t& state) {
    static const char kLetters[] = "ABCDEFGHJKLMNPQRSTUVWXYZ";
    std::string code(1, kLetters[next(state) % 24]);
    code += std::to_string(next(state) % 10);
    code += '-';
    for (int i = 0; i < 4; ++i) code += kLetters[next(state) % 24];
    return code;
}

// Without a tokenizer (e.g. `bi-run workset`), one token per 4 bytes is the estimate.
std::int64_t tokens_in(const bi::sdk::HostServices& host, const std::string& text) {
    return host.count_tokens(text).value_or(static_cast<std::int64_t>(text.size() / 4));
}

class NeedleRows final : public bi::sdk::WorksetGenerator {
public:
    void generate(const bi::sdk::GenerateRequest& request, const bi::sdk::HostServices& host,
                  bi::sdk::RowSink& rows) override {
        const int count = std::stoi(request.param("rows").value_or("4"));
        const double fill = std::stod(request.param("fill").value_or("0.25"));
        if (count < 1 || !(fill > 0.0 && fill <= 1.0))
            throw bi::sdk::Failure(BI_STATUS_INVALID_ARGUMENT,
                                   "rows must be >= 1 and fill in (0, 1]");
        const auto target = static_cast<std::size_t>(fill * static_cast<double>(request.ctx) * 4);
        std::uint64_t state = request.seed;
        for (int i = 0; i < count; ++i) {
            const std::string code = make_code(state);
            // Filler up to the byte budget, with the needle at a seeded depth.
            std::vector<std::string> sentences;
            std::size_t bytes = 0;
            while (bytes < target) {
                sentences.emplace_back(kFiller[next(state) % 6]);
                bytes += sentences.back().size() + 1;
            }
            const std::size_t depth = sentences.empty() ? 0 : next(state) % sentences.size();
            sentences.insert(sentences.begin() + static_cast<std::ptrdiff_t>(depth),
                             "The access code is " + code + ".");
            std::string prompt;
            for (const auto& sentence : sentences) prompt += sentence + " ";
            prompt += "\n\nWhat is the access code? Reply with the code only.";

            bi::sdk::Row row;
            row.prompt = prompt;
            row.family = "needle";
            row.fill =
                static_cast<double>(tokens_in(host, prompt)) / static_cast<double>(request.ctx);
            if (row.fill > 1.0) row.fill = 1.0;
            row.expected_answer_json = bi::sdk::json_string(code);
            rows.add(row);
        }
        host.log(BI_LOG_INFO, "generated " + std::to_string(count) + " needle rows");
    }
};

bi::sdk::PluginDefinition define_plugin() {
    return bi::sdk::PluginDefinition("needle-rows", "1.0.0", "example work-set generator")
        .add_generator<NeedleRows>("needle-rows", "a planted code in filler text, asked back");
}

}  // namespace

BI_SDK_EXPORT_PLUGIN(define_plugin)
