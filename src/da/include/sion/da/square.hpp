#pragma once
// The data square (docs/data-availability.md, "The square"): a Pulse's data
// cut into 512-byte shares, laid out row by row in a k x k square (k a power
// of two, 1..128, the smallest that holds the data; zero padding after the
// data), and extended to 2k x 2k with the line code of reed_solomon.hpp:
// every row of the original square first, then every column of the
// 2k-wide result. Quadrants, as in Celestia's rsmt2d:
//
//   Q0 original      | Q1 row parity
//   -----------------+------------------------------
//   Q2 column parity | Q3 parity of parity (rows of Q2 = columns of Q1)

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"

namespace sion::da {

inline constexpr std::size_t kShareBytes = 512;
// Largest original width: the extended line of 2k shares is a codeword of
// a GF(2^8) code, which has at most 256 positions (docs, "Why k <= 128").
inline constexpr std::uint32_t kMaxOriginalWidth = 128;
// Most data one square holds: 128 x 128 shares, 8 MiB.
inline constexpr std::size_t kMaxDataBytes = std::size_t{kMaxOriginalWidth} * kMaxOriginalWidth * kShareBytes;

// The smallest power of two k with k * k * 512 >= data_bytes (k >= 1);
// invalid_argument when the data is larger than 8 MiB.
base::Result<std::uint32_t> original_width_for(std::size_t data_bytes);

// Unless k is a power of two in [1, 128]: `code` (invalid_argument for a
// request, invalid_value for a received field), `what` naming the value.
base::Status check_original_width(std::uint64_t k, const char* what = "square width",
                                  base::Errc code = base::Errc::invalid_argument);

// The threads worth starting for a square of original width k, given
// `threads` (0 = one per core): below k = 32 (256 KiB) the work is less
// than starting a thread costs.
unsigned workers_for(std::uint32_t k, unsigned threads) noexcept;

namespace detail {

// Memory for a square's shares, not initialised (every byte is written
// before it is read), 2 MiB-aligned and advised to the kernel as huge-page
// backed (madvise(MADV_HUGEPAGE)) when 2 MiB or more: a fresh 32 MiB square
// would otherwise take 8192 page faults and a zeroing pass before the
// encoder writes it. Up to two freed large blocks are kept for reuse.
// Copies copy the bytes.
class SquareMemory {
 public:
  explicit SquareMemory(std::size_t bytes);
  SquareMemory(const SquareMemory& other);
  SquareMemory& operator=(const SquareMemory& other);
  SquareMemory(SquareMemory&&) noexcept = default;
  SquareMemory& operator=(SquareMemory&&) noexcept = default;
  ~SquareMemory() = default;

  std::uint8_t* data() noexcept { return data_.get(); }
  const std::uint8_t* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }

 private:
  struct Free {
    std::size_t bytes = 0;
    void operator()(std::uint8_t* p) const noexcept;  // frees, or keeps for reuse
  };
  std::unique_ptr<std::uint8_t[], Free> data_;
  std::size_t size_ = 0;
};

}  // namespace detail

enum class Axis : std::uint8_t { row = 0, column = 1 };

constexpr Axis other(Axis axis) noexcept { return axis == Axis::row ? Axis::column : Axis::row; }
constexpr const char* axis_name(Axis axis) noexcept { return axis == Axis::row ? "row" : "column"; }

// A share's place in the square.
struct Coordinate {
  std::uint32_t row = 0;
  std::uint32_t column = 0;
  bool operator==(const Coordinate&) const = default;
};

// The share at `position` along line `line` of `axis`: (line, position) on
// a row, (position, line) on a column.
constexpr Coordinate on_line(Axis axis, std::uint32_t line, std::uint32_t position) noexcept {
  return axis == Axis::row ? Coordinate{line, position} : Coordinate{position, line};
}

// A 2k x 2k square of shares, row-major, each share 512 contiguous bytes;
// a row is 2k * 512 contiguous bytes. Shares may be missing (a square being
// received or repaired); a complete square has them all.
class ExtendedSquare {
 public:
  // Lays `data` out in the smallest square that holds it and extends it.
  // threads: 0 = one per core. invalid_argument for data over 8 MiB.
  static base::Result<ExtendedSquare> from_data(base::ByteView data, unsigned threads = 1);
  // The original k x k shares, row-major (k * k * 512 bytes), extended.
  static base::Result<ExtendedSquare> from_original(std::uint32_t k, base::ByteView shares, unsigned threads = 1);
  // A 2k x 2k square with every share missing, to fill with set_share().
  static base::Result<ExtendedSquare> empty(std::uint32_t k);

  std::uint32_t original_width() const noexcept { return k_; }
  std::uint32_t width() const noexcept { return 2 * k_; }
  std::size_t share_count() const noexcept { return std::size_t{width()} * width(); }

  // Row-major index of (row, col); both below width().
  std::size_t index(std::uint32_t row, std::uint32_t col) const noexcept { return std::size_t{row} * width() + col; }
  // The share at (row, col), 512 bytes (zeros when missing).
  base::ByteView share(std::uint32_t row, std::uint32_t col) const noexcept;
  std::uint8_t* share_data(std::uint32_t row, std::uint32_t col) noexcept;
  base::ByteView share(Coordinate at) const noexcept { return share(at.row, at.column); }
  std::uint8_t* share_data(Coordinate at) noexcept { return share_data(at.row, at.column); }
  // The share at `position` along line `line` of `axis` (on_line()).
  base::ByteView line_share(Axis axis, std::uint32_t line, std::uint32_t position) const noexcept {
    return share(on_line(axis, line, position));
  }

  bool has(std::uint32_t row, std::uint32_t col) const noexcept { return present_[index(row, col)] != 0; }
  bool has(Coordinate at) const noexcept { return has(at.row, at.column); }
  // invalid_argument for a coordinate outside the square or a share that is
  // not 512 bytes.
  base::Status set_share(std::uint32_t row, std::uint32_t col, base::ByteView share);
  void erase(std::uint32_t row, std::uint32_t col) noexcept;
  // The share at (row, col) was written through share_data(): count it.
  void mark_present(std::uint32_t row, std::uint32_t col) noexcept;
  void mark_present(Coordinate at) noexcept { mark_present(at.row, at.column); }
  std::size_t missing() const noexcept { return missing_; }
  bool complete() const noexcept { return missing_ == 0; }

  // The whole square, row-major.
  base::ByteView bytes() const noexcept { return {shares_.data(), shares_.size()}; }
  // The original k x k shares, row-major: the data followed by its padding.
  base::Bytes original() const;

 private:
  explicit ExtendedSquare(std::uint32_t k);
  // `data` (at most k * k * 512 bytes) into Q0 row by row, zeros after it,
  // then extended.
  static ExtendedSquare laid_out(std::uint32_t k, base::ByteView data, unsigned threads);
  void extend(unsigned threads);

  std::uint32_t k_ = 0;
  detail::SquareMemory shares_;
  std::vector<std::uint8_t> present_;  // one flag per share, row-major
  std::size_t missing_ = 0;
};

}  // namespace sion::da
