#pragma once
// The leaves the tree tests share, and the independent reference
// (rfc6962_reference.py: RFC 6962's recursive definitions over hashlib) run
// on them. The test writes the leaves to a file, runs the script with
// python3 and reads its lines back.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/crypto/sha2.hpp"

namespace sion::commit::testing {

inline constexpr std::size_t kReferenceLeaves = 256;

struct ReferenceLeaf {
  base::Bytes entry;  // lengths 0..66, the empty entry included
  std::uint64_t amount = 0;
};

inline const std::vector<ReferenceLeaf>& reference_leaves() {
  static const std::vector<ReferenceLeaf> leaves = [] {
    std::vector<ReferenceLeaf> all(kReferenceLeaves);
    for (std::size_t i = 0; i < all.size(); ++i) {
      for (std::size_t j = 0; j < i % 67; ++j) all[i].entry.push_back(static_cast<std::uint8_t>(i * 7 + j));
      all[i].amount = (i * 0x9E3779B97F4A7C15ULL) % (1ULL << 40);
    }
    return all;
  }();
  return leaves;
}

inline std::string to_hex(base::ByteView bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

// The script's output, one vector of words per line.
inline const std::vector<std::vector<std::string>>& reference_lines() {
  static const std::vector<std::vector<std::string>> lines = [] {
    std::vector<std::vector<std::string>> parsed;
    const std::string input = ::testing::TempDir() + "sion_commit_reference_leaves.txt";
    {
      std::ofstream file(input);
      for (const ReferenceLeaf& leaf : reference_leaves()) {
        file << (leaf.entry.empty() ? "-" : to_hex(leaf.entry)) << ' ' << leaf.amount << '\n';
      }
    }
    const std::string command = "python3 " SION_SOURCE_DIR "/src/commit/tests/rfc6962_reference.py '" + input + "'";
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return parsed;
    std::string text;
    char buffer[4096];
    while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) text += buffer;
    if (pclose(pipe) != 0) return parsed;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) {
      std::istringstream words(line);
      std::vector<std::string> row;
      for (std::string word; words >> word;) row.push_back(word);
      parsed.push_back(std::move(row));
    }
    return parsed;
  }();
  return lines;
}

// The reference's digest of a list of proofs: SHA-256 over, per proof, one
// byte with its length and then its elements' bytes (element(e) appends them).
template <class Proofs, class Element>
std::string proofs_digest(const Proofs& proofs, const Element& element) {
  crypto::Sha256 sha;
  for (const auto& path : proofs) {
    const auto length = static_cast<std::uint8_t>(path.size());
    sha.update(base::ByteView(&length, 1));
    for (const auto& e : path) {
      base::Bytes bytes;
      element(e, bytes);
      sha.update(bytes);
    }
  }
  return to_hex(sha.finalize());
}

}  // namespace sion::commit::testing
