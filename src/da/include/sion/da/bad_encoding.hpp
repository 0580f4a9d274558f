#pragma once
// Bad-encoding proofs (docs/data-availability.md, "Bad-encoding proofs"):
// a row or column whose committed root is not the root of the codeword
// through k of its shares. The proof carries those k shares, each proven
// in its line of the other axis, so any node checks it against the data
// root alone: it decodes the line from the k shares, hashes it, and finds a
// root other than the committed one.

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>

#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/da/commitment.hpp"
#include "sion/da/sampling.hpp"
#include "sion/da/square.hpp"

namespace sion::da {

struct BadEncodingProof {
  Axis axis = Axis::row;                      // the badly encoded line's axis
  std::uint16_t line = 0;                     // and index
  Hash line_root{};                           // its committed root
  codec::List<Hash, kMaxRootPath> root_path;  // line_root to the data root
  // k shares of the line, positions ascending, each proven in its line of
  // the other axis: shares[i].line is the position along this line, and
  // shares[i].position == line.
  codec::List<ShareProof, kMaxOriginalWidth> shares;

  static constexpr std::string_view codec_name = "BadEncodingProof";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("axis", &BadEncodingProof::axis), codec::field("line", &BadEncodingProof::line),
                      codec::field("line_root", &BadEncodingProof::line_root),
                      codec::field("root_path", &BadEncodingProof::root_path),
                      codec::field("shares", &BadEncodingProof::shares)};
  }
  bool operator==(const BadEncodingProof&) const = default;
};

// Looks for a badly encoded line in a complete square received (or
// rebuilt) under `header`, rows first: a line whose committed root differs
// from the root of the codeword through k of its shares whose lines on the
// other axis match their committed roots. The proof of the first such
// line, or nullopt when there is none (a well-encoded square never has
// one). invalid_argument when the square is incomplete or the header is
// for another width.
base::Result<std::optional<BadEncodingProof>> prove_bad_encoding(const ExtendedSquare& square,
                                                                 const AvailabilityHeader& header);

// OK when `proof` shows that its line is badly encoded under the data
// root; otherwise invalid_value naming what failed: a path or a share that
// does not verify, shares of the wrong number, order or place, or a line
// that is in fact the codeword its root commits to.
base::Status verify_bad_encoding(const BadEncodingProof& proof, const DataCommitment& commitment);

}  // namespace sion::da
