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
#include <mutex>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/executor.hpp"
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

// The tasks worth splitting a square of original width k into on
// `executor`: below k = 32 (256 KiB) the work is less than handing it out
// costs.
unsigned workers_for(std::uint32_t k, const base::Executor* executor) noexcept;

namespace detail {
class SquareMemory;
}  // namespace detail

// Freed large squares, kept for the next square of the same size: a node
// extends one Pulse after another, and fresh memory costs a fault per page
// and the kernel's zeroing of every byte (7% of extending 2 MiB). Its owner
// passes it to the factories below and keeps it alive longer than every
// square drawn from it. At most two blocks (64 MiB) are kept; thread-safe.
class SquarePool {
 public:
  SquarePool() = default;
  ~SquarePool();
  SquarePool(const SquarePool&) = delete;
  SquarePool& operator=(const SquarePool&) = delete;

 private:
  friend class detail::SquareMemory;
  void* take(std::size_t rounded);
  void give(void* memory, std::size_t rounded);

  static constexpr std::size_t kKept = 2;
  struct Block {
    void* memory;
    std::size_t rounded;
  };
  std::mutex mutex_;
  std::vector<Block> blocks_;
};

namespace detail {

// Memory for a square's shares, not initialised (every byte is written
// before it is read), 2 MiB-aligned and advised to the kernel as huge-page
// backed (madvise(MADV_HUGEPAGE)) when 2 MiB or more: a fresh 32 MiB square
// would otherwise take 8192 page faults and a zeroing pass before the
// encoder writes it. Large blocks come from, and return to, `pool` when
// one is given. Copies copy the bytes (into memory of the same pool).
class SquareMemory {
 public:
  explicit SquareMemory(std::size_t bytes, SquarePool* pool = nullptr);
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
    SquarePool* pool = nullptr;
    void operator()(std::uint8_t* p) const noexcept;  // frees, or gives back to the pool
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
  // Lays `data` out in the smallest square that holds it and extends it, on
  // `executor` (nullptr: this thread), in memory from `pool` if given.
  // invalid_argument for data over 8 MiB.
  static base::Result<ExtendedSquare> from_data(base::ByteView data, base::Executor* executor = nullptr,
                                                SquarePool* pool = nullptr);
  // The original k x k shares, row-major (k * k * 512 bytes), extended.
  static base::Result<ExtendedSquare> from_original(std::uint32_t k, base::ByteView shares,
                                                    base::Executor* executor = nullptr, SquarePool* pool = nullptr);
  // A 2k x 2k square with every share missing, to fill with set_share().
  static base::Result<ExtendedSquare> empty(std::uint32_t k, SquarePool* pool = nullptr);

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
  explicit ExtendedSquare(std::uint32_t k, SquarePool* pool = nullptr);
  // `data` (at most k * k * 512 bytes) into Q0 row by row, zeros after it,
  // then extended.
  static ExtendedSquare laid_out(std::uint32_t k, base::ByteView data, base::Executor* executor, SquarePool* pool);
  void extend(base::Executor* executor);

  std::uint32_t k_ = 0;
  detail::SquareMemory shares_;
  std::vector<std::uint8_t> present_;  // one flag per share, row-major
  std::size_t missing_ = 0;
};

}  // namespace sion::da
