#pragma once
// Proofs of single shares and light-client sampling
// (docs/data-availability.md, "Share proofs" and "Sampling").

#include <cstdint>
#include <functional>
#include <string_view>
#include <tuple>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/codec.hpp"
#include "sion/da/commitment.hpp"
#include "sion/da/square.hpp"

namespace sion::da {

// A share, proven to the root of one of its lines (its row for a sample;
// its column in a bad-encoding proof against a row), and that line root
// proven to the data root.
struct ShareProof {
  Axis axis = Axis::row;       // the line the share is proven in
  std::uint16_t line = 0;      // that line's index
  std::uint16_t position = 0;  // the share's index along it
  base::ByteArray<kShareBytes> share{};
  codec::List<Hash, kMaxLinePath> share_path;  // to line_root, leaf side first
  Hash line_root{};
  codec::List<Hash, kMaxRootPath> root_path;  // line_root to the data root, leaf side first

  static constexpr std::string_view codec_name = "ShareProof";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("axis", &ShareProof::axis),
                      codec::field("line", &ShareProof::line),
                      codec::field("position", &ShareProof::position),
                      codec::field("share", &ShareProof::share),
                      codec::field("share_path", &ShareProof::share_path),
                      codec::field("line_root", &ShareProof::line_root),
                      codec::field("root_path", &ShareProof::root_path)};
  }
  bool operator==(const ShareProof&) const = default;

  Coordinate at() const noexcept { return on_line(axis, line, position); }
  std::uint32_t row() const noexcept { return at().row; }
  std::uint32_t column() const noexcept { return at().column; }
};

// The proof of the share at (row, col) in its line on `axis`. The square
// must be complete and `commitment` computed from it.
ShareProof prove_share(const ExtendedSquare& square, const SquareCommitment& commitment, Axis axis, std::uint32_t row,
                       std::uint32_t col);

// OK when `proof` shows its share at its place under commitment.data_root;
// otherwise invalid_value naming what failed (a coordinate outside the
// square, a path of the wrong length, a share that does not hash to the
// line root, a line root not under the data root), or the commitment's own
// error.
base::Status verify_share(const ShareProof& proof, const DataCommitment& commitment);

// `count` distinct coordinates of the 2k x 2k square, uniform, drawn from
// SHAKE256(seed): reproducible from the seed, unpredictable without it.
// invalid_argument when count exceeds the square's (2k)^2 shares.
base::Result<std::vector<Coordinate>> sample_coordinates(std::uint32_t k, std::uint32_t count,
                                                         const base::ByteArray<32>& seed);

// Asks a full node for the share at (row, column) with its proof.
using ShareFetcher = std::function<base::Result<ShareProof>(std::uint32_t row, std::uint32_t column)>;

// A light client's availability check: fetches the shares at `samples`
// coordinates drawn from `seed` and verifies each against the commitment.
// OK only when every one arrives and verifies. not_found when a share is
// not served ("share (r, c) was not served: <why>"); invalid_value when
// one fails to verify, or arrives for another coordinate; invalid_argument
// for no samples (which would check nothing) or more than the square has.
base::Status sample_availability(const DataCommitment& commitment, std::uint32_t samples,
                                 const base::ByteArray<32>& seed, const ShareFetcher& fetch);
// The same with a seed from the operating system (never reused).
base::Status sample_availability(const DataCommitment& commitment, std::uint32_t samples, const ShareFetcher& fetch);

}  // namespace sion::da
