// What makes the mock's model autoregressive: an earlier request's prompt followed by the first
// k of the ids it generated continues as that request did, with its tokens k, k+1, ... A bounded
// map, per mock server, from such a token sequence to where the earlier generation stood there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "tokenizer.hpp"

namespace bi::mock {

// Where a generation stands: the key its tokens are drawn with (the prompt key of the request
// that began it) and the position of its next token; the echoed text, when it echoes one.
struct Continuation {
    std::uint64_t token_key = 0;
    int offset = 0;
    std::shared_ptr<const std::vector<Piece>> echo;  // null: no echo marker
};

// A hash of a token sequence that grows token by token, so that every prefix of prompt +
// generated ids is hashed in one pass.
class SequenceHash {
public:
    void add(std::int32_t id);
    void add(const std::vector<std::int32_t>& ids);
    std::uint64_t value() const { return value_; }
    std::size_t length() const { return length_; }

private:
    std::uint64_t value_ = 0x5e9e4ce5e9e4ce5eULL;
    std::size_t length_ = 0;
};

class ContinuationMemory {
public:
    // At most `capacity` sequences are remembered; the oldest are forgotten first.
    explicit ContinuationMemory(std::size_t capacity) : capacity_(capacity) {}

    // A request whose prompt hashed to `prompt` generated `generated`, continuing `from`: every
    // prompt + generated[0:j], 1 <= j <= all, continues `from` j tokens further on.
    void remember(const SequenceHash& prompt, const std::vector<std::int32_t>& generated,
                  const Continuation& from);
    // The generation a prompt of this hash continues, if it is one remembered.
    std::optional<Continuation> find(const SequenceHash& prompt) const;

    std::size_t size() const { return entries_.size(); }

private:
    struct Entry {
        std::size_t length = 0;
        std::uint64_t stamp = 0;  // when it was remembered: the eviction queue's record of it
        Continuation continuation;
    };

    std::size_t capacity_;
    std::unordered_map<std::uint64_t, Entry> entries_;
    std::deque<std::pair<std::uint64_t, std::uint64_t>> order_;  // (hash, stamp), oldest first
    std::uint64_t next_stamp_ = 0;
};

}  // namespace bi::mock
