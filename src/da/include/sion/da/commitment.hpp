#pragma once
// Commitments to an extended square (docs/data-availability.md,
// "Commitments"). Every row and every column of the 2k x 2k square is a
// Merkle tree over its 2k shares; the data root is a Merkle tree over the
// 4k line roots, rows 0 .. 2k-1 then columns 0 .. 2k-1. All trees have the
// RFC 6962 shape (here always perfect: 2k and 4k are powers of two) on
// SHA-256, which runs on the SHA extensions where the CPU has them:
//
//   share leaf  = SHA-256(0x60 || share)            (512 bytes)
//   line node   = SHA-256(0x61 || left || right)
//   root leaf   = SHA-256(0x62 || line root)
//   root node   = SHA-256(0x63 || left || right)
//
// A share's leaf hash is computed once and serves its row and its column.

#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/hash.hpp"
#include "sion/commit/merkle_tree.hpp"
#include "sion/da/square.hpp"

namespace sion::da {

using commit::Hash;

inline constexpr commit::TreeHasher kLineHasher{commit::HashFunction::sha256, commit::Domain::da_share,
                                                commit::Domain::da_line_node};
inline constexpr commit::TreeHasher kDataRootHasher{commit::HashFunction::sha256, commit::Domain::da_root_leaf,
                                                    commit::Domain::da_root_node};

// Longest proofs: a line of 2k <= 256 shares, a data root over 4k <= 512
// line roots.
inline constexpr std::size_t kMaxLinePath = 8;
inline constexpr std::size_t kMaxRootPath = 9;

constexpr std::array<Axis, 2> codec_enum_values(Axis) { return {Axis::row, Axis::column}; }

// What a Pulse header carries about the Pulse's data: the original
// width k, the data's length (the bytes after it in the square are zero
// padding) and the data root.
struct DataCommitment {
  std::uint32_t original_width = 1;
  std::uint64_t data_bytes = 0;
  Hash data_root{};

  static constexpr std::string_view codec_name = "DataCommitment";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("original_width", &DataCommitment::original_width),
                      codec::field("data_bytes", &DataCommitment::data_bytes),
                      codec::field("data_root", &DataCommitment::data_root)};
  }
  bool operator==(const DataCommitment&) const = default;
};

// invalid_value unless original_width is the width original_width_for()
// gives data_bytes (a power of two in [1, 128], the smallest square that
// holds the data: a producer cannot inflate the square).
base::Status check_commitment(const DataCommitment& commitment);

// The data a square holds under `commitment`: the first data_bytes bytes of
// its original quadrant. invalid_value when the commitment fails
// check_commitment, names another width, a share of the original quadrant
// is missing, or a padding byte (after the data) is not zero: zero padding
// is part of validity (docs/data-availability.md, "Layout"), since other
// padding gives another data root for the same data. It does not recompute
// the data root: the square is one repair() checked against the header, or
// one the node built itself.
base::Result<base::Bytes> published_data(const ExtendedSquare& square, const DataCommitment& commitment);

// Every row and column root: what a node that rebuilds or checks a whole
// square needs besides the shares.
struct AvailabilityHeader {
  codec::List<Hash, 2 * kMaxOriginalWidth> row_roots;
  codec::List<Hash, 2 * kMaxOriginalWidth> column_roots;

  static constexpr std::string_view codec_name = "AvailabilityHeader";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("row_roots", &AvailabilityHeader::row_roots),
                      codec::field("column_roots", &AvailabilityHeader::column_roots)};
  }
  bool operator==(const AvailabilityHeader&) const = default;

  std::uint32_t original_width() const noexcept { return static_cast<std::uint32_t>(row_roots.size() / 2); }
  const Hash& line_root(Axis axis, std::uint32_t line) const noexcept {
    return axis == Axis::row ? row_roots[line] : column_roots[line];
  }
  // The tree over the 4k roots; invalid_value unless both lists hold 2k
  // roots for a valid k.
  base::Result<Hash> data_root() const;
};

// The position of a line root among the data root's 4k leaves.
constexpr std::uint32_t root_leaf_index(std::uint32_t k, Axis axis, std::uint32_t line) noexcept {
  return axis == Axis::row ? line : 2 * k + line;
}

// The data root's tree over a header's 4k line roots, kept for proving.
class DataRootTree {
 public:
  // The header must be well formed (data_root() succeeds).
  explicit DataRootTree(const AvailabilityHeader& header);

  const Hash& root() const noexcept { return levels_.back()[0]; }
  // The path from line root (axis, line) to root(), leaf side first.
  std::vector<Hash> path(Axis axis, std::uint32_t line) const;

 private:
  std::uint32_t k_;
  std::vector<std::vector<Hash>> levels_;  // level 0: the root leaves
};

// All trees of a complete square, kept for proving.
class SquareCommitment {
 public:
  // The square must be complete. On `executor` (nullptr: this thread).
  static SquareCommitment compute(const ExtendedSquare& square, base::Executor* executor = nullptr);

  std::uint32_t original_width() const noexcept { return k_; }
  const AvailabilityHeader& header() const noexcept { return header_; }
  const Hash& data_root() const noexcept { return roots_.root(); }
  const Hash& line_root(Axis axis, std::uint32_t line) const noexcept { return header_.line_root(axis, line); }
  const Hash& leaf_hash(std::uint32_t row, std::uint32_t col) const noexcept;

  // The path from the share at `position` of line `line` on `axis` to
  // that line's root, leaf side first (RFC 9162, Sec. 2.1.3.1).
  std::vector<Hash> line_path(Axis axis, std::uint32_t line, std::uint32_t position) const;
  // The path from that line's root to the data root, leaf side first.
  std::vector<Hash> root_path(Axis axis, std::uint32_t line) const { return roots_.path(axis, line); }

 private:
  using Levels = std::vector<std::vector<Hash>>;
  SquareCommitment(std::uint32_t k, Levels rows, Levels columns);

  std::uint32_t k_;
  // Level 0: the share leaf hashes, row-major in rows_ and column-major in
  // columns_; level l: every line's nodes l levels up, line after line.
  Levels rows_;
  Levels columns_;
  AvailabilityHeader header_;  // the top levels of rows_ and columns_
  DataRootTree roots_;
};

// The root of the line tree over `shares` (2k pointers to 512 bytes each).
Hash line_root_of(std::span<const std::uint8_t* const> shares);

// The root a share proves for its line, or nullopt when the path does not
// have log2(2k) hashes or the position is outside the line.
std::optional<Hash> line_root_from_path(std::uint32_t k, std::uint32_t position, base::ByteView share,
                                        std::span<const Hash> path);
// The data root a line root proves, or nullopt when the path does not have
// log2(4k) hashes.
std::optional<Hash> data_root_from_path(std::uint32_t k, Axis axis, std::uint32_t line, const Hash& line_root,
                                        std::span<const Hash> path);

}  // namespace sion::da
