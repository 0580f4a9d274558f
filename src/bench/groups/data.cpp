// Group `data`: data availability (src/da, docs/data-availability.md). The
// 2D Reed–Solomon extension and the row/column commitments at the sizes of
// docs/performance.md, 16 KiB to 2048 KiB, and 8192 KiB (the largest
// square, k = 128); then, on the 2048 KiB square, repair from the parity
// quadrants, sampling proofs and a bad-encoding proof. Targets:
// docs/performance.md, "data".

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "groups.hpp"
#include "sion/bench/cores.hpp"
#include "sion/codec/codec.hpp"
#include "sion/da/bad_encoding.hpp"
#include "sion/da/commitment.hpp"
#include "sion/da/reed_solomon.hpp"
#include "sion/da/repair.hpp"
#include "sion/da/sampling.hpp"
#include "sion/da/square.hpp"

namespace sion::bench::groups {
namespace {

using da::ExtendedSquare;
using da::SquareCommitment;

constexpr std::size_t kKiB = 1024;
// The size the repair, sampling and bad-encoding rows use.
constexpr std::size_t kProofSize = 2048;
constexpr std::uint32_t kSamples = 16;

// Random data, the same every run: the roots in the notes compare across
// runs.
base::Bytes random_data(std::size_t bytes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  base::Bytes data(bytes);
  for (std::size_t i = 0; i < bytes; i += 8) {
    const std::uint64_t word = rng();
    for (std::size_t j = 0; j < 8 && i + j < bytes; ++j) data[i + j] = static_cast<std::uint8_t>(word >> (8 * j));
  }
  return data;
}

// What the rows run on, owned here as a node owns its own: the executor of
// the two-core rows, and the pool that hands each large square the memory
// of the one freed before it (a node extends one Pulse after another).
struct Machine {
  base::Executor two_cores{2};
  da::SquarePool pool;
  base::Executor* executor(unsigned threads) noexcept { return threads == 1 ? nullptr : &two_cores; }
};

std::string square_note(std::uint32_t k, const base::Executor* executor) {
  return fmt::format("k={}: {}×{} extended square of {}-byte shares, {}", k, 2 * k, 2 * k, da::kShareBytes,
                     cores_note(executor));
}

std::string root_note(const SquareCommitment& commitment) {
  return "root " + base::to_hex(base::ByteView(commitment.data_root().data(), 4));
}

std::string row_name(std::string_view what, std::size_t kib, unsigned threads) {
  return fmt::format("{}, {} KiB{}", what, kib, threads == 1 ? "" : ", two cores");
}

// Squares of 256 KiB and less extend and commit in about a millisecond or
// less: batched. Larger ones are timed one call per sample.
template <class Fn>
Stats time_op(Fn&& fn, std::size_t kib, const MeasureOptions& options) {
  return kib <= 256 ? time_per_call(fn, options) : time_each_call(fn, options);
}

// The unit of work of an extension: ISA-L encoding one line of k = 64
// data shares into 64 parity shares. A k x k square takes 3k of them (k
// rows, then 2k columns), so this row gives the floor under the extend
// rows on the machine at hand.
double report_line_encode(Context& context) {
  constexpr std::uint32_t k = 64;
  const da::LineCode& code = da::LineCode::for_width(k);
  base::Bytes line = random_data(2 * k * da::kShareBytes, 64);
  std::vector<const std::uint8_t*> data(k);
  std::vector<std::uint8_t*> parity(k);
  for (std::uint32_t j = 0; j < k; ++j) {
    data[j] = line.data() + j * da::kShareBytes;
    parity[j] = line.data() + (k + j) * da::kShareBytes;
  }
  const Stats stats = time_per_call(
      [&] {
        code.encode(data.data(), parity.data(), da::kShareBytes);
        do_not_optimize(line);
      },
      context.measure_options());
  context.report_time("Reed–Solomon encode of one 64+64 line (ISA-L)", stats, TimeUnit::us,
                      "512-byte shares; a k=64 square (2048 KiB) extends with 192 of them, one core");
  return stats.median;
}

base::Result<Stats> time_extend(Machine& machine, const base::Bytes& data, unsigned threads, std::size_t kib,
                                const MeasureOptions& options) {
  base::Status failed;
  const Stats stats = time_op(
      [&] {
        auto square = ExtendedSquare::from_data(data, machine.executor(threads), &machine.pool);
        if (!square) failed = base::fail(std::move(square).error());
        do_not_optimize(square);
      },
      kib, options);
  if (!failed) return base::fail(std::move(failed).error());
  return stats;
}

Stats time_commit(Machine& machine, const ExtendedSquare& square, unsigned threads, std::size_t kib,
                  const MeasureOptions& options) {
  return time_op(
      [&] {
        const SquareCommitment commitment = SquareCommitment::compute(square, machine.executor(threads));
        do_not_optimize(commitment.data_root());
      },
      kib, options);
}

// Extension and commitments at one size, one core, and two cores from
// 2048 KiB on. Keeps the square and its commitment for the rows that
// follow.
base::Status report_size(Context& context, Machine& machine, std::size_t kib, double line_encode_seconds,
                         std::optional<ExtendedSquare>& square, std::optional<SquareCommitment>& commitment) {
  const MeasureOptions options = context.measure_options();
  const base::Bytes data = random_data(kib * kKiB, kib);
  SION_TRY(auto extended, ExtendedSquare::from_data(data));
  const std::uint32_t k = extended.original_width();
  const SquareCommitment committed = SquareCommitment::compute(extended);

  for (const unsigned threads : {1u, 2u}) {
    if (threads == 2 && kib < 2048) break;
    SION_TRY(const auto extend, time_extend(machine, data, threads, kib, options));
    const base::Executor* executor = machine.executor(threads);
    std::string note = square_note(k, executor);
    if (k == 64) {
      note += fmt::format("; 192 line encodes at this run's rate: {:.2f} ms",
                          192 * line_encode_seconds * 1e3 / base::concurrency(executor));
    }
    context.report_time(row_name("2D Reed–Solomon extend", kib, threads), extend, TimeUnit::ms, note);
    context.report_time(row_name("row/column commitments", kib, threads),
                        time_commit(machine, extended, threads, kib, options), TimeUnit::ms,
                        root_note(committed) + ", " + cores_note(executor));
  }
  square.emplace(std::move(extended));
  commitment.emplace(committed);
  return {};
}

// What a block producer pays: extend, then commit, both on two cores.
base::Status report_extend_and_commit(Context& context, Machine& machine, std::size_t kib) {
  base::Executor* executor = machine.executor(2);
  const base::Bytes data = random_data(kib * kKiB, kib);
  base::Status failed;
  Stats stats = time_each_call(
      [&] {
        auto square = ExtendedSquare::from_data(data, executor, &machine.pool);
        if (!square) {
          failed = base::fail(std::move(square).error());
          return;
        }
        const SquareCommitment commitment = SquareCommitment::compute(*square, executor);
        do_not_optimize(commitment.data_root());
      },
      context.measure_options());
  if (!failed) return failed;
  SION_TRY(const auto square, ExtendedSquare::from_data(data, executor, &machine.pool));
  context.report_time(
      fmt::format("extend + commitments, {} KiB, two cores", kib), stats, TimeUnit::ms,
      root_note(SquareCommitment::compute(square, executor)) + ", " + square_note(square.original_width(), executor));
  return {};
}

// Q0 erased: every row < k keeps its k parity shares (Q1) and is decoded
// from them; rows >= k are whole. Then repair recomputes every root.
base::Status report_repair(Context& context, const ExtendedSquare& square, const SquareCommitment& commitment) {
  const std::uint32_t k = square.original_width();
  std::optional<ExtendedSquare> damaged;
  base::Status failed;
  const Stats stats = time_each_call_after(
      [&] {
        damaged.emplace(square);
        for (std::uint32_t row = 0; row < k; ++row) {
          for (std::uint32_t col = 0; col < k; ++col) damaged->erase(row, col);
        }
      },
      [&] {
        if (auto status = da::repair(*damaged, commitment.header()); !status) failed = std::move(status);
      },
      context.measure_options());
  if (!failed) return base::fail(failed.error().code, "repair from the parity quadrants: " + failed.error().reason);
  // Roots rechecked already; the bytes too, once, outside the clock.
  const base::ByteView repaired = damaged->bytes();
  if (!std::equal(repaired.begin(), repaired.end(), square.bytes().begin(), square.bytes().end())) {
    return base::fail(base::Errc::internal, "repair from the parity quadrants: the square differs from the original");
  }
  context.report_time(fmt::format("repair from the three parity quadrants, {} KiB", kProofSize), stats, TimeUnit::ms,
                      fmt::format("k={} shares per row decoded, roots rechecked, one core; copy and erasure of Q0 "
                                  "not timed",
                                  k));
  return {};
}

// A light client's check of 16 sampled shares, each proven in its row.
base::Status report_sampling(Context& context, const ExtendedSquare& square, const SquareCommitment& commitment) {
  const std::uint32_t k = square.original_width();
  base::ByteArray<32> seed{};
  seed.fill(0x5a);
  SION_TRY(const auto coordinates, da::sample_coordinates(k, kSamples, seed));
  std::vector<da::ShareProof> proofs;
  for (const da::Coordinate& c : coordinates) {
    proofs.push_back(da::prove_share(square, commitment, da::Axis::row, c.row, c.column));
  }
  const da::DataCommitment header{k, kProofSize * kKiB, commitment.data_root()};
  base::Status failed;
  const Stats stats = time_per_call(
      [&] {
        for (const da::ShareProof& proof : proofs) {
          if (auto status = da::verify_share(proof, header); !status) failed = std::move(status);
        }
      },
      context.measure_options());
  if (!failed)
    return base::fail(failed.error().code, "sampling: a valid share proof did not verify: " + failed.error().reason);
  context.report_time(fmt::format("sample {} shares: verify", kSamples), stats, TimeUnit::us,
                      fmt::format("{:.2f} µs per share; row proofs, k={}, {} B encoded each",
                                  stats.median * 1e6 / kSamples, k, codec::encode(proofs.front()).size()));
  return {};
}

// An honest extension with one original share changed afterwards, then
// committed as it is: row 3 no longer is a codeword, and its proof shows it.
base::Status report_bad_encoding(Context& context, const ExtendedSquare& square) {
  ExtendedSquare corrupted = square;
  std::uint8_t* share = corrupted.share_data(3, 5);
  for (std::size_t i = 0; i < da::kShareBytes; i += 64) share[i] ^= 0xff;
  const SquareCommitment commitment = SquareCommitment::compute(corrupted);
  SION_TRY(const auto proof, da::prove_bad_encoding(corrupted, commitment.header()));
  if (!proof.has_value())
    return base::fail(base::Errc::internal, "bad-encoding proof: none found in a corrupted square");
  const da::BadEncodingProof& bad = *proof;
  const da::DataCommitment header{square.original_width(), kProofSize * kKiB, commitment.data_root()};
  base::Status failed;
  const Stats stats = time_per_call(
      [&] {
        if (auto status = da::verify_bad_encoding(bad, header); !status) failed = std::move(status);
      },
      context.measure_options());
  if (!failed) return base::fail(failed.error().code, "bad-encoding proof did not verify: " + failed.error().reason);
  context.report_time(
      "bad-encoding proof: verify", stats, TimeUnit::us,
      fmt::format("{} {}: {} shares, {:.1f} KiB encoded", bad.axis == da::Axis::row ? "row" : "column", bad.line,
                  bad.shares.size(), static_cast<double>(codec::encode(bad).size()) / static_cast<double>(kKiB)));
  return {};
}

base::Status run(Context& context) {
  Machine machine;  // outlives every square below
  // --quick leaves out the largest square (8192 KiB: 32 MiB extended).
  std::vector<std::size_t> sizes = {16, 256, 2048};
  if (!context.quick()) sizes.push_back(8192);
  std::optional<ExtendedSquare> proof_square;
  std::optional<SquareCommitment> proof_commitment;
  const double line_encode = report_line_encode(context);
  for (const std::size_t kib : sizes) {
    std::optional<ExtendedSquare> square;
    std::optional<SquareCommitment> commitment;
    if (auto status = report_size(context, machine, kib, line_encode, square, commitment); !status) return status;
    if (kib == kProofSize) {
      proof_square = std::move(square);
      proof_commitment = std::move(commitment);
    }
  }
  if (!context.quick()) {
    if (auto status = report_extend_and_commit(context, machine, 8192); !status) return status;
  }
  if (auto status = report_repair(context, *proof_square, *proof_commitment); !status) return status;
  if (auto status = report_sampling(context, *proof_square, *proof_commitment); !status) return status;
  return report_bad_encoding(context, *proof_square);
}

}  // namespace

Group data() {
  return {"data", "data availability: 2D Reed–Solomon extension, commitments, repair, sampling and bad-encoding proofs",
          &run};
}

}  // namespace sion::bench::groups
