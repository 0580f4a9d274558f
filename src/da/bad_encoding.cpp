#include "sion/da/bad_encoding.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "sion/da/reed_solomon.hpp"

namespace sion::da {
namespace {

// The root of the codeword through the shares at `positions` (k of them,
// ascending), `shares[i]` at positions[i]. The decoder keeps its plans, so
// a prover that checks every line pays for one per pattern.
Hash decoded_line_root(LineDecoder& decoder, std::span<const std::uint32_t> positions,
                       std::span<const base::ByteView> shares) {
  const std::uint32_t width = 2 * decoder.code().k();
  std::vector<std::uint8_t> buffer(std::size_t{width} * kShareBytes, 0);
  std::vector<std::uint8_t*> line(width);
  std::vector<std::uint8_t> known(width, 0);
  for (std::uint32_t p = 0; p < width; ++p) line[p] = buffer.data() + std::size_t{p} * kShareBytes;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    std::memcpy(line[positions[i]], shares[i].data(), kShareBytes);
    known[positions[i]] = 1;
  }
  [[maybe_unused]] const auto ok = decoder.decode(line, known, kShareBytes);  // k known: cannot fail
  return line_root_of(line);
}

}  // namespace

base::Result<std::optional<BadEncodingProof>> prove_bad_encoding(const ExtendedSquare& square,
                                                                 const AvailabilityHeader& header) {
  const std::uint32_t k = square.original_width();
  const std::uint32_t width = square.width();
  if (!square.complete()) {
    return base::fail(base::Errc::invalid_argument,
                      "the square lacks " + std::to_string(square.missing()) + " shares; repair it first");
  }
  if (header.row_roots.size() != width || header.column_roots.size() != width) {
    return base::fail(base::Errc::invalid_argument, "the header is not for a square of width " + std::to_string(width));
  }
  const SquareCommitment actual = SquareCommitment::compute(square);
  const DataRootTree committed(header);
  LineDecoder decoder(LineCode::for_width(k));
  std::vector<std::uint32_t> positions;
  std::vector<base::ByteView> shares;
  for (const Axis axis : {Axis::row, Axis::column}) {
    for (std::uint32_t l = 0; l < width; ++l) {
      // Shares whose lines across this one are as committed: their paths
      // in those lines verify against the header.
      positions.clear();
      shares.clear();
      for (std::uint32_t p = 0; p < width && positions.size() < k; ++p) {
        if (actual.line_root(other(axis), p) != header.line_root(other(axis), p)) continue;
        positions.push_back(p);
        shares.push_back(square.line_share(axis, l, p));
      }
      if (positions.size() < k) continue;
      if (decoded_line_root(decoder, positions, shares) == header.line_root(axis, l)) continue;
      BadEncodingProof proof;
      proof.axis = axis;
      proof.line = static_cast<std::uint16_t>(l);
      proof.line_root = header.line_root(axis, l);
      proof.root_path = committed.path(axis, l);
      for (const std::uint32_t p : positions) {
        // Proven in its crossing line, whose root is the committed one; the
        // path above it is the header's (the square's own data root differs).
        const Coordinate at = on_line(axis, l, p);
        ShareProof share = prove_share(square, actual, other(axis), at.row, at.column);
        share.root_path = committed.path(other(axis), p);
        proof.shares.push_back(std::move(share));
      }
      return std::optional<BadEncodingProof>(std::move(proof));
    }
  }
  return std::optional<BadEncodingProof>();
}

base::Status verify_bad_encoding(const BadEncodingProof& proof, const DataCommitment& commitment) {
  if (auto ok = check_commitment(commitment); !ok) return ok;
  const std::uint32_t k = commitment.original_width;
  const std::uint32_t width = 2 * k;
  const std::string name = std::string(axis_name(proof.axis)) + " " + std::to_string(proof.line);
  if (proof.line >= width) {
    return base::fail(base::Errc::invalid_value,
                      name + " is outside the " + std::to_string(width) + "x" + std::to_string(width) + " square");
  }
  const auto root = data_root_from_path(k, proof.axis, proof.line, proof.line_root, proof.root_path);
  if (!root || *root != commitment.data_root) {
    return base::fail(base::Errc::invalid_value, name + ": the proof's root for it is not under the data root");
  }
  if (proof.shares.size() != k) {
    return base::fail(base::Errc::invalid_value, name + ": the proof holds " + std::to_string(proof.shares.size()) +
                                                     " shares; exactly k = " + std::to_string(k) + " are needed");
  }
  std::vector<std::uint32_t> positions;
  std::vector<base::ByteView> shares;
  for (std::size_t i = 0; i < proof.shares.size(); ++i) {
    const ShareProof& share = proof.shares[i];
    if (share.axis != other(proof.axis) || share.position != proof.line) {
      return base::fail(base::Errc::invalid_value, name + ": share " + std::to_string(i) + " at (" +
                                                       std::to_string(share.row()) + ", " +
                                                       std::to_string(share.column()) + ") is not on the line, " +
                                                       "proven in a " + axis_name(other(proof.axis)));
    }
    if (!positions.empty() && share.line <= positions.back()) {
      return base::fail(base::Errc::invalid_value,
                        name + ": share " + std::to_string(i) + " does not come after the one before it");
    }
    if (auto ok = verify_share(share, commitment); !ok) return ok;
    positions.push_back(share.line);
    shares.emplace_back(share.share);
  }
  LineDecoder decoder(LineCode::for_width(k));
  if (decoded_line_root(decoder, positions, shares) == proof.line_root) {
    return base::fail(base::Errc::invalid_value, name + " is the codeword its root commits to: no bad encoding");
  }
  return {};
}

}  // namespace sion::da
