// The haystack: sentences of an ordinary coding session, shipped inside the plugin so a work-set
// never depends on files beside it. Filler uses only letters, spaces, commas, periods and
// hyphens, so a needle (which always holds a digit or code punctuation) never blends into it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "prng.hpp"

namespace spark {

// The fixed sentence bank, in its shipped order.
const std::vector<std::string>& filler_sentences();

// An endless, deterministic walk through the bank that never repeats a sentence within a short
// window; take() extends the walk as needed, so a longer prompt shares its start with a shorter.
class FillerStream {
public:
    explicit FillerStream(std::uint64_t seed) : prng_(seed) {}
    // The first `count` sentences of the walk.
    const std::vector<std::string>& take(std::size_t count);

private:
    Prng prng_;
    std::vector<std::size_t> order_;
    std::vector<std::string> sentences_;
};

// Whether a paragraph ends after sentence `sentence_index` of the walk. Paragraphs hold three to
// six sentences in a fixed repeating pattern.
bool paragraph_break_after(std::size_t sentence_index);

}  // namespace spark
