#include "sion/commit/hash.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace sion::commit {
namespace {

// SHA3-256 through OpenSSL's EVP, an implementation independent of ours.
Hash openssl_sha3(const std::vector<std::uint8_t>& data) {
  Hash out{};
  unsigned int length = 0;
  EXPECT_EQ(EVP_Digest(data.data(), data.size(), out.data(), &length, EVP_sha3_256(), nullptr), 1);
  EXPECT_EQ(length, out.size());
  return out;
}

Hash filled(std::uint8_t seed) {
  Hash h;
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint8_t>(seed * 31 + i);
  return h;
}

TEST(CommitHash, TaggedHashIsSha3OfTagAndData) {
  const std::vector<std::uint8_t> data = {1, 2, 3, 4, 5};
  std::vector<std::uint8_t> tagged = {0x40, 1, 2, 3, 4, 5};
  EXPECT_EQ(tagged_hash(Domain::object, data), openssl_sha3(tagged));
}

TEST(CommitHash, TaggedHashOfEveryLengthAroundTheShortInputPath) {
  // Short inputs take a one-shot path, long ones the sponge: both sides of
  // the switch (512 bytes) and of the rate boundaries (136, 272 bytes).
  for (std::size_t length = 0; length < 700; ++length) {
    std::vector<std::uint8_t> data(length);
    for (std::size_t i = 0; i < length; ++i) data[i] = static_cast<std::uint8_t>(i * 7 + length);
    std::vector<std::uint8_t> tagged = {0x41};
    tagged.insert(tagged.end(), data.begin(), data.end());
    ASSERT_EQ(tagged_hash(Domain::transaction, data), openssl_sha3(tagged)) << length;
  }
}

TEST(CommitHash, TaggedHashesMatchOneByOne) {
  // Lengths repeated in no order, a length of its own, and the empty input.
  const std::vector<std::size_t> lengths = {45, 0, 45, 200, 45, 7, 45, 45, 200, 136, 0, 45};
  std::vector<std::vector<std::uint8_t>> data;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    data.emplace_back(lengths[i]);
    for (std::size_t b = 0; b < lengths[i]; ++b) data.back()[b] = static_cast<std::uint8_t>(i * 13 + b);
  }
  std::vector<base::ByteView> inputs(data.begin(), data.end());
  std::vector<Hash> out(inputs.size());
  tagged_hashes(Domain::receipt_leaf, inputs, out.data());
  for (std::size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(out[i], tagged_hash(Domain::receipt_leaf, inputs[i])) << i;
  tagged_hashes(Domain::receipt_leaf, {}, nullptr);  // nothing to hash
}

TEST(CommitHash, TaggedHashesAcrossChunksAndThreads) {
  // More inputs than one pass takes (256), split over an executor in
  // several slices: every result must still be its own input's hash.
  std::vector<std::vector<std::uint8_t>> data;
  for (std::size_t i = 0; i < 2000; ++i) {
    data.emplace_back(i % 7 == 0 ? 300 : 100 + i % 3);
    for (std::size_t b = 0; b < data.back().size(); ++b) data.back()[b] = static_cast<std::uint8_t>(i * 31 + b);
  }
  std::vector<base::ByteView> inputs(data.begin(), data.end());
  for (unsigned threads : {0u, 1u, 2u, 4u}) {
    std::optional<base::Executor> executor;
    if (threads != 0) executor.emplace(threads);
    std::vector<Hash> out(inputs.size());
    tagged_hashes(Domain::object, inputs, out.data(), executor ? &*executor : nullptr);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      ASSERT_EQ(out[i], tagged_hash(Domain::object, inputs[i])) << "threads " << threads << " input " << i;
    }
  }
}

TEST(CommitHash, HashOrderIsTheByteOrder) {
  // Pairs that first differ in every byte position, both ways round, and
  // in the high and low bit of the byte (unsigned: 0x80 > 0x7f).
  for (std::size_t position = 0; position < 32; ++position) {
    for (const auto& [low, high] : {std::pair<std::uint8_t, std::uint8_t>{0x7f, 0x80}, {0x00, 0x01}, {0xfe, 0xff}}) {
      Hash a = filled(9);
      Hash b = a;
      a[position] = low;
      b[position] = high;
      for (std::size_t i = position + 1; i < 32; ++i) a[i] = 0xff, b[i] = 0x00;  // later bytes must not matter
      EXPECT_TRUE(HashOrder{}(a, b)) << position;
      EXPECT_FALSE(HashOrder{}(b, a)) << position;
      EXPECT_EQ(HashOrder{}(a, b), std::less<Hash>{}(a, b));
    }
  }
  EXPECT_FALSE(HashOrder{}(filled(3), filled(3)));
}

TEST(CommitHash, NodeHashIsSha3OfTagLeftRight) {
  const Hash left = filled(1), right = filled(2);
  std::vector<std::uint8_t> input = {0x11};
  input.insert(input.end(), left.begin(), left.end());
  input.insert(input.end(), right.begin(), right.end());
  EXPECT_EQ(hash_node(Domain::state_node, left, right), openssl_sha3(input));
  // The tag separates uses: the same children under another tag differ.
  EXPECT_NE(hash_node(Domain::state_node, left, right), hash_node(Domain::batch_node, left, right));
}

TEST(CommitHash, ManyNodesMatchOneByOne) {
  for (std::size_t count : {0u, 1u, 7u, 8u, 9u, 33u}) {
    std::vector<Hash> left(count), right(count), out(count);
    for (std::size_t i = 0; i < count; ++i) {
      left[i] = filled(static_cast<std::uint8_t>(i));
      right[i] = filled(static_cast<std::uint8_t>(i + 100));
    }
    hash_nodes(Domain::log_node, left.data(), right.data(), out.data(), count);
    for (std::size_t i = 0; i < count; ++i) {
      EXPECT_EQ(out[i], hash_node(Domain::log_node, left[i], right[i])) << count << " " << i;
    }
  }
}

}  // namespace
}  // namespace sion::commit
