#include "sion/da/sampling.hpp"

#include <bit>
#include <cstring>
#include <set>
#include <string>

#include "sion/base/endian.hpp"
#include "sion/base/random.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::da {
namespace {

std::string where(std::uint32_t row, std::uint32_t col) {
  return "share (" + std::to_string(row) + ", " + std::to_string(col) + ")";
}

}  // namespace

ShareProof prove_share(const ExtendedSquare& square, const SquareCommitment& commitment, Axis axis, std::uint32_t row,
                       std::uint32_t col) {
  ShareProof proof;
  proof.axis = axis;
  const std::uint32_t line = axis == Axis::row ? row : col;
  const std::uint32_t position = axis == Axis::row ? col : row;
  proof.line = static_cast<std::uint16_t>(line);
  proof.position = static_cast<std::uint16_t>(position);
  std::memcpy(proof.share.data(), square.share(row, col).data(), kShareBytes);
  proof.share_path = commitment.line_path(axis, line, position);
  proof.line_root = commitment.line_root(axis, line);
  proof.root_path = commitment.root_path(axis, line);
  return proof;
}

base::Status verify_share(const ShareProof& proof, const DataCommitment& commitment) {
  if (auto ok = check_commitment(commitment); !ok) return ok;
  const std::uint32_t k = commitment.original_width;
  const std::uint32_t width = 2 * k;
  // Built only on failure: samplers verify many proofs.
  const auto name = [&proof] { return where(proof.row(), proof.column()); };
  if (proof.line >= width || proof.position >= width) {
    return base::fail(base::Errc::invalid_value,
                      name() + " is outside the " + std::to_string(width) + "x" + std::to_string(width) + " square");
  }
  const auto line_depth = static_cast<std::size_t>(std::countr_zero(width));
  if (proof.share_path.size() != line_depth) {
    return base::fail(base::Errc::invalid_value, name() + ": the path to its " + axis_name(proof.axis) + " root has " +
                                                     std::to_string(proof.share_path.size()) + " hashes; a line of " +
                                                     std::to_string(width) + " shares needs " +
                                                     std::to_string(line_depth));
  }
  const auto root_depth = line_depth + 1;
  if (proof.root_path.size() != root_depth) {
    return base::fail(base::Errc::invalid_value,
                      name() + ": the path from its " + axis_name(proof.axis) + " root to the data root has " +
                          std::to_string(proof.root_path.size()) + " hashes; " + std::to_string(2 * width) +
                          " line roots need " + std::to_string(root_depth));
  }
  const auto line_root = line_root_from_path(k, proof.position, proof.share, proof.share_path);
  if (!line_root || *line_root != proof.line_root) {
    return base::fail(base::Errc::invalid_value,
                      name() + " and its path do not give the proof's " + axis_name(proof.axis) + " root");
  }
  const auto data_root = data_root_from_path(k, proof.axis, proof.line, proof.line_root, proof.root_path);
  if (!data_root || *data_root != commitment.data_root) {
    return base::fail(base::Errc::invalid_value, name() + ": its " + std::string(axis_name(proof.axis)) + " root (" +
                                                     std::to_string(proof.line) + ") is not under the data root");
  }
  return {};
}

base::Result<std::vector<Coordinate>> sample_coordinates(std::uint32_t k, std::uint32_t count,
                                                         const base::ByteArray<32>& seed) {
  SION_TRY_STATUS(check_original_width(k));
  const std::uint32_t width = 2 * k;
  const std::uint64_t shares = std::uint64_t{width} * width;
  if (count > shares) {
    return base::fail(base::Errc::invalid_argument, "cannot draw " + std::to_string(count) + " distinct samples from " +
                                                        std::to_string(shares) + " shares");
  }
  // (2k)^2 is a power of two <= 2^16: the low bits of a 16-bit word are a
  // uniform index. Duplicates are skipped, so the stream may need to be
  // longer than 2 bytes a sample; doubling it keeps the draw a prefix of
  // one SHAKE256 output.
  std::vector<Coordinate> out;
  std::set<std::uint32_t> seen;
  std::size_t stream_bytes = 2 * std::size_t{count} + 64;
  base::Bytes stream;
  std::size_t used = 0;
  while (out.size() < count) {
    if (used + 2 > stream.size()) {
      stream.assign(stream_bytes, 0);
      crypto::shake256(seed, stream);
      stream_bytes *= 2;
    }
    const std::uint32_t word = base::load_le<std::uint16_t>(stream.data() + used);
    used += 2;
    const auto index = static_cast<std::uint32_t>(word & (shares - 1));
    if (!seen.insert(index).second) continue;
    out.push_back({index / width, index % width});
  }
  return out;
}

base::Status sample_availability(const DataCommitment& commitment, std::uint32_t samples,
                                 const base::ByteArray<32>& seed, const ShareFetcher& fetch) {
  if (auto ok = check_commitment(commitment); !ok) return ok;
  if (samples == 0) return base::fail(base::Errc::invalid_argument, "sampling needs at least one sample");
  SION_TRY(const auto coordinates, sample_coordinates(commitment.original_width, samples, seed));
  for (const Coordinate& c : coordinates) {
    auto proof = fetch(c.row, c.column);
    if (!proof) {
      return base::fail(base::Errc::not_found, where(c.row, c.column) + " was not served: " + proof.error().reason);
    }
    if (proof->row() != c.row || proof->column() != c.column) {
      return base::fail(base::Errc::invalid_value,
                        "asked for " + where(c.row, c.column) + ", got " + where(proof->row(), proof->column()));
    }
    if (auto ok = verify_share(*proof, commitment); !ok) return ok;
  }
  return {};
}

base::Status sample_availability(const DataCommitment& commitment, std::uint32_t samples, const ShareFetcher& fetch) {
  SION_TRY(const auto seed, base::random_array<32>());
  return sample_availability(commitment, samples, seed, fetch);
}

}  // namespace sion::da
