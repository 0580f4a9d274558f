#include "sion/da/square.hpp"

#include <sys/mman.h>
#include <algorithm>
#include <bit>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

#include "sion/da/reed_solomon.hpp"

namespace sion::da {

base::Status check_original_width(std::uint64_t k, const char* what, base::Errc code) {
  if (k == 0 || k > kMaxOriginalWidth || !std::has_single_bit(k)) {
    return base::fail(code, std::string(what) + " " + std::to_string(k) + " is not a power of two from 1 to " +
                                std::to_string(kMaxOriginalWidth));
  }
  return {};
}

unsigned workers_for(std::uint32_t k, const base::Executor* executor) noexcept {
  return k < 32 ? 1U : std::min(base::concurrency(executor), k);
}

base::Result<std::uint32_t> original_width_for(std::size_t data_bytes) {
  if (data_bytes > kMaxDataBytes) {
    return base::fail(base::Errc::invalid_argument, "data of " + std::to_string(data_bytes) +
                                                        " bytes does not fit the largest square (" +
                                                        std::to_string(kMaxDataBytes) + " bytes)");
  }
  const std::size_t shares = std::max<std::size_t>(1, (data_bytes + kShareBytes - 1) / kShareBytes);
  std::uint32_t k = 1;
  while (std::size_t{k} * k < shares) k *= 2;
  return k;
}

SquarePool::~SquarePool() {
  for (const Block& block : blocks_) std::free(block.memory);
}

void* SquarePool::take(std::size_t rounded) {
  const std::lock_guard lock(mutex_);
  for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
    if (it->rounded != rounded) continue;
    void* memory = it->memory;
    blocks_.erase(it);
    return memory;
  }
  return nullptr;
}

void SquarePool::give(void* memory, std::size_t rounded) {
  {
    const std::lock_guard lock(mutex_);
    if (blocks_.size() < kKept) {
      blocks_.push_back({memory, rounded});
      return;
    }
  }
  std::free(memory);
}

namespace detail {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::size_t huge_rounded(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

}  // namespace

void SquareMemory::Free::operator()(std::uint8_t* p) const noexcept {
  if (bytes >= kHugePage && pool != nullptr) {
    pool->give(p, huge_rounded(bytes));
  } else {
    std::free(p);
  }
}

SquareMemory::SquareMemory(std::size_t bytes, SquarePool* pool) : data_(nullptr, Free{bytes, pool}), size_(bytes) {
  void* p = nullptr;
  if (bytes >= kHugePage) {
    const std::size_t rounded = huge_rounded(bytes);
    p = pool != nullptr ? pool->take(rounded) : nullptr;
    if (p == nullptr) {
      p = std::aligned_alloc(kHugePage, rounded);
      // Advice only: without huge pages the memory is the same, just
      // slower to fault in.
      if (p != nullptr) (void)madvise(p, rounded, MADV_HUGEPAGE);
    }
  } else {
    p = std::malloc(std::max<std::size_t>(bytes, 1));
  }
  if (p == nullptr) throw std::bad_alloc();  // as std::vector would
  data_.reset(static_cast<std::uint8_t*>(p));
}

SquareMemory::SquareMemory(const SquareMemory& other) : SquareMemory(other.size_, other.data_.get_deleter().pool) {
  std::memcpy(data(), other.data(), size_);
}

SquareMemory& SquareMemory::operator=(const SquareMemory& other) {
  if (this != &other) *this = SquareMemory(other);
  return *this;
}

}  // namespace detail

// Shares are left unwritten: the factories write every byte (data and
// padding into Q0, the code into the rest; zeros for an empty square).
ExtendedSquare::ExtendedSquare(std::uint32_t k, SquarePool* pool)
    : k_(k), shares_(std::size_t{4} * k * k * kShareBytes, pool), present_(std::size_t{4} * k * k, 1) {}

ExtendedSquare ExtendedSquare::laid_out(std::uint32_t k, base::ByteView data, base::Executor* executor,
                                        SquarePool* pool) {
  ExtendedSquare square(k, pool);
  // Q0's rows are the first k * 512 bytes of each 2k * 512-byte row.
  const std::size_t row_bytes = std::size_t{k} * kShareBytes;
  for (std::uint32_t row = 0; row < k; ++row) {
    const std::size_t offset = std::min(data.size(), row * row_bytes);
    const std::size_t n = std::min(row_bytes, data.size() - offset);
    if (n != 0) std::memcpy(square.share_data(row, 0), data.data() + offset, n);  // data.data() may be null
    std::memset(square.share_data(row, 0) + n, 0, row_bytes - n);
  }
  square.extend(executor);
  return square;
}

base::Result<ExtendedSquare> ExtendedSquare::from_data(base::ByteView data, base::Executor* executor,
                                                       SquarePool* pool) {
  SION_TRY(const auto k, original_width_for(data.size()));
  return laid_out(k, data, executor, pool);
}

base::Result<ExtendedSquare> ExtendedSquare::from_original(std::uint32_t k, base::ByteView shares,
                                                           base::Executor* executor, SquarePool* pool) {
  SION_TRY_STATUS(check_original_width(k));
  const std::size_t expected = std::size_t{k} * k * kShareBytes;
  if (shares.size() != expected) {
    return base::fail(base::Errc::invalid_argument, "the original shares of a " + std::to_string(k) + "x" +
                                                        std::to_string(k) + " square are " + std::to_string(expected) +
                                                        " bytes, not " + std::to_string(shares.size()));
  }
  return laid_out(k, shares, executor, pool);
}

base::Result<ExtendedSquare> ExtendedSquare::empty(std::uint32_t k, SquarePool* pool) {
  SION_TRY_STATUS(check_original_width(k));
  ExtendedSquare square(k, pool);
  std::memset(square.shares_.data(), 0, square.shares_.size());
  std::fill(square.present_.begin(), square.present_.end(), 0);
  square.missing_ = square.share_count();
  return square;
}

void ExtendedSquare::extend(base::Executor* executor) {
  const LineCode& code = LineCode::for_width(k_);
  const std::uint32_t k = k_;
  const unsigned workers = workers_for(k, executor);
  // Rows of Q0 -> Q1: one call per row, its k data shares to its k parity
  // shares.
  base::for_slices(executor, k, workers, [&](unsigned, std::size_t begin, std::size_t end) {
    std::vector<const std::uint8_t*> data(k);
    std::vector<std::uint8_t*> parity(k);
    for (std::size_t row = begin; row < end; ++row) {
      for (std::uint32_t j = 0; j < k; ++j) {
        data[j] = share_data(static_cast<std::uint32_t>(row), j);
        parity[j] = share_data(static_cast<std::uint32_t>(row), k + j);
      }
      code.encode(data.data(), parity.data(), kShareBytes);
    }
  });
  // Columns of Q0|Q1 -> Q2|Q3: every column applies the same coefficients
  // down its rows, so rows are the vectors: row k + i = sum_j c(i, j) *
  // row j, a band of columns per call. The band's pieces of the k rows
  // sit a row (2k * 512 bytes, a power of two) apart, so in place they
  // would all fall in the same cache sets and evict each other on every
  // pass the encoder makes over them; they are copied into a contiguous
  // buffer (about 64 KiB, L2-resident). The parity is written in place:
  // each output is written once per pass, a few streams at a time. Threads
  // take bands.
  const std::size_t row_bytes = std::size_t{width()} * kShareBytes;
  const std::size_t band = std::clamp<std::size_t>((std::size_t{64} << 10) / k, kShareBytes, row_bytes);
  const std::size_t bands = row_bytes / band;
  base::for_slices(executor, bands, workers, [&](unsigned, std::size_t begin, std::size_t end) {
    std::vector<std::uint8_t> buffer(std::size_t{k} * band);
    std::vector<const std::uint8_t*> data(k);
    std::vector<std::uint8_t*> parity(k);
    for (std::uint32_t j = 0; j < k; ++j) data[j] = buffer.data() + j * band;
    for (std::size_t b = begin; b < end; ++b) {
      for (std::uint32_t j = 0; j < k; ++j) {
        std::memcpy(buffer.data() + j * band, shares_.data() + j * row_bytes + b * band, band);
        parity[j] = shares_.data() + (k + j) * row_bytes + b * band;
      }
      code.encode(data.data(), parity.data(), band);
    }
  });
}

base::ByteView ExtendedSquare::share(std::uint32_t row, std::uint32_t col) const noexcept {
  return base::ByteView(shares_.data() + index(row, col) * kShareBytes, kShareBytes);
}

std::uint8_t* ExtendedSquare::share_data(std::uint32_t row, std::uint32_t col) noexcept {
  return shares_.data() + index(row, col) * kShareBytes;
}

base::Status ExtendedSquare::set_share(std::uint32_t row, std::uint32_t col, base::ByteView bytes) {
  if (row >= width() || col >= width()) {
    return base::fail(base::Errc::invalid_argument, "share (" + std::to_string(row) + ", " + std::to_string(col) +
                                                        ") is outside the " + std::to_string(width()) + "x" +
                                                        std::to_string(width()) + " square");
  }
  if (bytes.size() != kShareBytes) {
    return base::fail(base::Errc::invalid_argument,
                      "a share is " + std::to_string(kShareBytes) + " bytes, not " + std::to_string(bytes.size()));
  }
  std::memcpy(share_data(row, col), bytes.data(), kShareBytes);
  mark_present(row, col);
  return {};
}

void ExtendedSquare::erase(std::uint32_t row, std::uint32_t col) noexcept {
  const std::size_t i = index(row, col);
  std::memset(shares_.data() + i * kShareBytes, 0, kShareBytes);
  if (present_[i] != 0) {
    present_[i] = 0;
    ++missing_;
  }
}

void ExtendedSquare::mark_present(std::uint32_t row, std::uint32_t col) noexcept {
  const std::size_t i = index(row, col);
  if (present_[i] == 0) {
    present_[i] = 1;
    --missing_;
  }
}

base::Bytes ExtendedSquare::original() const {
  base::Bytes out(std::size_t{k_} * k_ * kShareBytes);
  const std::size_t row_bytes = std::size_t{k_} * kShareBytes;
  for (std::uint32_t row = 0; row < k_; ++row) {
    std::memcpy(out.data() + row * row_bytes, share(row, 0).data(), row_bytes);
  }
  return out;
}

}  // namespace sion::da
