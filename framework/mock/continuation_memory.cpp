// The sequence hash and the bounded map of continuations.
#include "continuation_memory.hpp"

#include "core/splitmix64.hpp"

namespace bi::mock {

void SequenceHash::add(std::int32_t id) {
    value_ = core::mix64(value_ ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(id)) +
                                   core::kSplitMix64Gamma));
    ++length_;
}

void SequenceHash::add(const std::vector<std::int32_t>& ids) {
    for (const auto id : ids) add(id);
}

void ContinuationMemory::remember(const SequenceHash& prompt,
                                  const std::vector<std::int32_t>& generated,
                                  const Continuation& from) {
    if (capacity_ == 0) return;
    SequenceHash sequence = prompt;
    Continuation next = from;
    for (const auto id : generated) {
        sequence.add(id);
        ++next.offset;
        const std::uint64_t stamp = next_stamp_++;
        entries_[sequence.value()] = Entry{sequence.length(), stamp, next};
        order_.emplace_back(sequence.value(), stamp);
    }
    while (entries_.size() > capacity_ || order_.size() > 2 * capacity_) {
        const auto [hash, stamp] = order_.front();
        order_.pop_front();
        const auto found = entries_.find(hash);
        if (found != entries_.end() && found->second.stamp == stamp) entries_.erase(found);
    }
}

std::optional<Continuation> ContinuationMemory::find(const SequenceHash& prompt) const {
    const auto found = entries_.find(prompt.value());
    if (found == entries_.end() || found->second.length != prompt.length()) return std::nullopt;
    return found->second.continuation;
}

}  // namespace bi::mock
