#pragma once
// The line code (docs/data-availability.md, "The line code"): a systematic
// Reed-Solomon code over GF(2^8) (polynomial x^8 + x^4 + x^3 + x^2 + 1) of
// length 2k and dimension k. A line's first k symbols are its data d_0 ..
// d_{k-1}; parity symbol i (position k + i) is
//
//   p_i = sum over j < k of  d_j / ((k + i) xor j)
//
// a Cauchy matrix under the identity, so any k of the 2k positions
// determine the line (every square submatrix of a Cauchy matrix is
// invertible). Symbols are bytes; a share is 512 independent symbols, and
// Intel ISA-L's ec_encode_data (which picks AVX-512, AVX2 or SSE at run
// time) does the multiply-accumulate for all 512 at once.

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "sion/base/result.hpp"

namespace sion::da {

class LineCode {
 public:
  // The code for original width k (a power of two, 1..128); built once per
  // k, kept for the life of the process. Thread-safe.
  static const LineCode& for_width(std::uint32_t k);

  std::uint32_t k() const noexcept { return k_; }
  // The parity coefficient of data position j in parity position i, both
  // below k: 1 / ((k + i) xor j) in GF(2^8).
  std::uint8_t coefficient(std::uint32_t i, std::uint32_t j) const noexcept { return parity_[i * k_ + j]; }

  // parity[i][b] = sum_j coefficient(i, j) * data[j][b] for b < length:
  // k data vectors in, k parity vectors out. One call encodes every line
  // whose symbols are laid out this way (a row's shares, or whole rows of
  // the square for all its columns at once).
  void encode(const std::uint8_t* const* data, std::uint8_t* const* parity, std::size_t length) const;

 private:
  explicit LineCode(std::uint32_t k);

  std::uint32_t k_;
  std::vector<std::uint8_t> parity_;  // k x k, row i = parity position k + i
  std::vector<std::uint8_t> tables_;  // ec_init_tables() of parity_
};

// Restores the missing symbols of lines of one code that share one pattern
// of known positions. Keeps the inverted matrices it built, by pattern, so
// lines with the same pattern (whole quadrants, typically) pay one
// inversion. Not thread-safe: one per thread.
class LineDecoder {
 public:
  explicit LineDecoder(const LineCode& code) : code_(code) {}

  const LineCode& code() const noexcept { return code_; }

  // `line` holds 2k pointers to vectors of `length` symbols each, position
  // order; known[p] says whether position p holds its symbols. Fills every
  // unknown position from the first k known ones. invalid_argument when
  // fewer than k positions are known.
  base::Status decode(std::span<std::uint8_t* const> line, std::span<const std::uint8_t> known, std::size_t length);

 private:
  using Pattern = std::array<std::uint64_t, 4>;  // bit p: position p known (2k <= 256)
  struct Plan {
    std::vector<std::uint32_t> sources;  // the first k known positions
    std::vector<std::uint32_t> targets;  // the unknown positions
    std::vector<std::uint8_t> tables;    // ec_init_tables() of the decode matrix
  };
  const Plan& plan_for(const Pattern& pattern);

  const LineCode& code_;
  std::map<Pattern, Plan> plans_;
};

}  // namespace sion::da
