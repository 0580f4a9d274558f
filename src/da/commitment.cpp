#include "sion/da/commitment.hpp"

#include <bit>
#include <cassert>
#include <string>

#include "sion/base/executor.hpp"

namespace sion::da {
namespace {

using Levels = std::vector<std::vector<Hash>>;

// Lifts levels[0] (lines of `width` leaves each, line after line) to the
// lines' roots, for lines [first, last): pairs never cross a line because
// every width on the way is even.
void build_lines(const commit::TreeHasher& hasher, Levels& levels, std::uint32_t width, std::size_t first,
                 std::size_t last) {
  for (std::size_t l = 1, w = width / 2; w >= 1; ++l, w /= 2) {
    hasher.pairs(levels[l - 1].data() + first * 2 * w, levels[l].data() + first * w, (last - first) * w);
  }
}

Levels allocate_levels(std::size_t lines, std::uint32_t width) {
  Levels levels;
  for (std::size_t w = width; w >= 1; w /= 2) levels.emplace_back(lines * w);
  return levels;
}

std::vector<Hash> path_in(const Levels& levels, std::uint32_t width, std::uint32_t line, std::uint32_t position) {
  std::vector<Hash> path;
  for (std::size_t l = 0; (width >> l) > 1; ++l) {
    path.push_back(levels[l][std::size_t{line} * (width >> l) + ((position >> l) ^ 1U)]);
  }
  return path;
}

template <class Leaf>
std::optional<Hash> root_from_path(const commit::TreeHasher& hasher, std::uint32_t width, std::uint32_t index,
                                   const Leaf& leaf, std::span<const Hash> path) {
  if (index >= width || path.size() != static_cast<std::size_t>(std::countr_zero(width))) return std::nullopt;
  return commit::shape::root_from_inclusion_path<Hash>(index, width, leaf, path,
                                                       [&](const Hash& left, const Hash& right, Hash& out) {
                                                         out = hasher.node(left, right);
                                                         return true;
                                                       });
}

}  // namespace

base::Status check_commitment(const DataCommitment& commitment) {
  const auto invalid = base::Errc::invalid_value;
  if (auto ok = check_original_width(commitment.original_width, "original width", invalid); !ok) return ok;
  const std::uint64_t k = commitment.original_width;
  const std::string square = std::to_string(k) + "x" + std::to_string(k) + " square";
  if (commitment.data_bytes > k * k * kShareBytes) {
    return base::fail(invalid, "data of " + std::to_string(commitment.data_bytes) + " bytes does not fit a " + square);
  }
  if (const std::uint32_t smallest = original_width_for(commitment.data_bytes).value(); smallest != k) {
    return base::fail(invalid, "data of " + std::to_string(commitment.data_bytes) + " bytes takes a " +
                                   std::to_string(smallest) + "x" + std::to_string(smallest) + " square, not a " +
                                   square);
  }
  return {};
}

base::Result<base::Bytes> published_data(const ExtendedSquare& square, const DataCommitment& commitment) {
  const auto invalid = base::Errc::invalid_value;
  SION_TRY_STATUS(check_commitment(commitment));
  const std::uint32_t k = square.original_width();
  if (k != commitment.original_width) {
    return base::fail(invalid, "the commitment is for a " + std::to_string(commitment.original_width) +
                                   "-wide square, the square is " + std::to_string(k) + " wide");
  }
  for (std::uint32_t row = 0; row < k; ++row) {
    for (std::uint32_t col = 0; col < k; ++col) {
      if (!square.has(row, col)) {
        return base::fail(invalid, "share (" + std::to_string(row) + ", " + std::to_string(col) +
                                       ") of the original quadrant is missing");
      }
    }
  }
  base::Bytes data = square.original();
  const auto padding_start = static_cast<std::size_t>(commitment.data_bytes);
  for (std::size_t i = padding_start; i < data.size(); ++i) {
    if (data[i] != 0) {
      return base::fail(invalid, "padding byte " + std::to_string(i) + " of the original quadrant is " +
                                     std::to_string(data[i]) + ", not zero (the data is " +
                                     std::to_string(padding_start) + " bytes)");
    }
  }
  data.resize(padding_start);
  return data;
}

base::Result<Hash> AvailabilityHeader::data_root() const {
  if (row_roots.size() != column_roots.size()) {
    return base::fail(base::Errc::invalid_value, std::to_string(row_roots.size()) + " row roots but " +
                                                     std::to_string(column_roots.size()) + " column roots");
  }
  if (row_roots.size() % 2 != 0) {
    return base::fail(base::Errc::invalid_value,
                      "an odd number of row roots (" + std::to_string(row_roots.size()) + ")");
  }
  if (auto ok = check_original_width(row_roots.size() / 2, "original width", base::Errc::invalid_value); !ok) {
    return base::fail(ok.error());
  }
  return Hash(DataRootTree(*this).root());
}

// Leaves: the row roots, then the column roots.
DataRootTree::DataRootTree(const AvailabilityHeader& header)
    : k_(header.original_width()), levels_(allocate_levels(1, 4 * k_)) {
  std::vector<const std::uint8_t*> inputs;
  inputs.reserve(4 * k_);
  for (const Hash& root : header.row_roots) inputs.push_back(root.data());
  for (const Hash& root : header.column_roots) inputs.push_back(root.data());
  kDataRootHasher.leaves(inputs.data(), sizeof(Hash), levels_[0].data(), inputs.size());
  build_lines(kDataRootHasher, levels_, 4 * k_, 0, 1);
}

std::vector<Hash> DataRootTree::path(Axis axis, std::uint32_t line) const {
  return path_in(levels_, 4 * k_, 0, root_leaf_index(k_, axis, line));
}

SquareCommitment::SquareCommitment(std::uint32_t k, Levels rows, Levels columns)
    : k_(k),
      rows_(std::move(rows)),
      columns_(std::move(columns)),
      header_{rows_.back(), columns_.back()},
      roots_(header_) {}

SquareCommitment SquareCommitment::compute(const ExtendedSquare& square, base::Executor* executor) {
  assert(square.complete());
  const std::uint32_t k = square.original_width();
  const std::uint32_t width = square.width();
  const std::size_t shares = square.share_count();
  const unsigned workers = workers_for(k, executor);
  Levels rows = allocate_levels(width, width);
  Levels columns = allocate_levels(width, width);

  // Each share hashed once; rows and columns both use the hash.
  base::for_slices(executor, shares, workers, [&](unsigned, std::size_t begin, std::size_t end) {
    std::vector<const std::uint8_t*> inputs(end - begin);
    for (std::size_t i = begin; i < end; ++i) inputs[i - begin] = square.bytes().data() + i * kShareBytes;
    kLineHasher.leaves(inputs.data(), kShareBytes, rows[0].data() + begin, end - begin);
  });
  // Every worker builds the trees of its own rows and columns.
  base::for_slices(executor, width, workers, [&](unsigned, std::size_t first, std::size_t last) {
    for (std::size_t col = first; col < last; ++col) {
      for (std::size_t row = 0; row < width; ++row) columns[0][col * width + row] = rows[0][row * width + col];
    }
    build_lines(kLineHasher, rows, width, first, last);
    build_lines(kLineHasher, columns, width, first, last);
  });
  return SquareCommitment(k, std::move(rows), std::move(columns));
}

const Hash& SquareCommitment::leaf_hash(std::uint32_t row, std::uint32_t col) const noexcept {
  return rows_[0][std::size_t{row} * 2 * k_ + col];
}

std::vector<Hash> SquareCommitment::line_path(Axis axis, std::uint32_t line, std::uint32_t position) const {
  return path_in(axis == Axis::row ? rows_ : columns_, 2 * k_, line, position);
}

Hash line_root_of(std::span<const std::uint8_t* const> shares) {
  const auto width = static_cast<std::uint32_t>(shares.size());
  Levels levels = allocate_levels(1, width);
  kLineHasher.leaves(shares.data(), kShareBytes, levels[0].data(), width);
  build_lines(kLineHasher, levels, width, 0, 1);
  return levels.back()[0];
}

std::optional<Hash> line_root_from_path(std::uint32_t k, std::uint32_t position, base::ByteView share,
                                        std::span<const Hash> path) {
  if (share.size() != kShareBytes) return std::nullopt;
  return root_from_path(kLineHasher, 2 * k, position, kLineHasher.leaf(share), path);
}

std::optional<Hash> data_root_from_path(std::uint32_t k, Axis axis, std::uint32_t line, const Hash& line_root,
                                        std::span<const Hash> path) {
  if (line >= 2 * k) return std::nullopt;
  return root_from_path(kDataRootHasher, 4 * k, root_leaf_index(k, axis, line), kDataRootHasher.leaf(line_root), path);
}

}  // namespace sion::da
