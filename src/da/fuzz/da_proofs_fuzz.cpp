// libFuzzer target: data-availability proofs and headers decoded from
// untrusted bytes and verified against fixed squares. The first byte picks
// the kind; the rest is the encoding. Decoding must fail with a reason or
// give a value that re-encodes to the same bytes; verification must
// return, and:
//  - a share proof accepted under the honest square is the one the square
//    itself gives (a share's proof is unique);
//  - no bad-encoding proof is ever accepted under the honest square;
//  - one accepted under the corrupted square (share (2, 1) altered after
//    extension) names row 2 or column 1, the only bad lines;
//  - a data commitment is accepted or refused with a reason, and the data
//    published_data() takes under it from the honest square is exactly
//    the square's first data_bytes bytes, with only zeros after them.
// Built with SION_FUZZ_CORPUS_TOOL, the same file writes the seed corpus.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sion/codec/codec.hpp"
#include "sion/codec/testing/fuzzing.hpp"
#include "sion/da/bad_encoding.hpp"
#include "sion/da/commitment.hpp"
#include "sion/da/sampling.hpp"

namespace {

using namespace sion;
using namespace sion::da;

constexpr std::uint32_t kWidth = 4;  // original width of both squares

enum Kind : std::uint8_t {
  share_proof,
  bad_encoding_honest,
  bad_encoding_corrupted,
  availability_header,
  data_commitment,
  kKinds
};

struct Fixed {
  ExtendedSquare square;
  SquareCommitment commitment;
  DataCommitment header;
};

Fixed make_fixed(bool corrupt) {
  base::Bytes data(kWidth * kWidth * kShareBytes);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 131 + (i >> 9));
  ExtendedSquare square = std::move(ExtendedSquare::from_original(kWidth, data).value());
  if (corrupt) square.share_data(2, 1)[3] ^= 0x40;
  SquareCommitment commitment = SquareCommitment::compute(square);
  const DataCommitment header{kWidth, data.size(), commitment.data_root()};
  return {std::move(square), std::move(commitment), header};
}

const Fixed& honest() {
  static const Fixed fixed = make_fixed(false);
  return fixed;
}

const Fixed& corrupted() {
  static const Fixed fixed = make_fixed(true);
  return fixed;
}

using codec::testing::decode_exactly;

[[maybe_unused]] void fuzz_one(std::uint8_t kind, base::ByteView bytes) {
  if (kind == share_proof) {
    ShareProof proof;
    if (!decode_exactly(bytes, proof)) return;
    const auto status = verify_share(proof, honest().header);
    if (!status && status.error().reason.empty()) std::abort();
    if (status &&
        !(prove_share(honest().square, honest().commitment, proof.axis, proof.row(), proof.column()) == proof)) {
      std::abort();
    }
    return;
  }
  if (kind == data_commitment) {
    DataCommitment commitment;
    if (!decode_exactly(bytes, commitment)) return;
    const auto ok = check_commitment(commitment);
    if (!ok && ok.error().reason.empty()) std::abort();
    const auto data = published_data(honest().square, commitment);
    if (!data) {
      if (data.error().reason.empty()) std::abort();
      return;
    }
    if (!ok) std::abort();
    const base::Bytes original = honest().square.original();
    if (data->size() != commitment.data_bytes) std::abort();
    if (!std::equal(data->begin(), data->end(), original.begin())) std::abort();
    for (std::size_t i = data->size(); i < original.size(); ++i) {
      if (original[i] != 0) std::abort();
    }
    return;
  }
  if (kind == availability_header) {
    AvailabilityHeader header;
    if (!decode_exactly(bytes, header)) return;
    const auto root = header.data_root();
    if (!root && root.error().reason.empty()) std::abort();
    return;
  }
  BadEncodingProof proof;
  if (!decode_exactly(bytes, proof)) return;
  const Fixed& fixed = kind == bad_encoding_honest ? honest() : corrupted();
  const auto status = verify_bad_encoding(proof, fixed.header);
  if (!status && status.error().reason.empty()) std::abort();
  if (!status) return;
  if (kind == bad_encoding_honest) std::abort();
  const bool bad_line = (proof.axis == Axis::row && proof.line == 2) || (proof.axis == Axis::column && proof.line == 1);
  if (!bad_line) std::abort();
}

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
int main(int argc, char** argv) {
  if (argc != 2) return 2;
  codec::testing::CorpusWriter corpus(argv[1], "proof");
  const auto write = [&](std::uint8_t kind, const base::Bytes& bytes) { corpus.write(kind, bytes); };
  for (const auto& [row, col] : {std::pair{0U, 0U}, std::pair{2U, 1U}, std::pair{7U, 3U}}) {
    write(share_proof, codec::encode(prove_share(honest().square, honest().commitment, Axis::row, row, col)));
    write(share_proof, codec::encode(prove_share(honest().square, honest().commitment, Axis::column, row, col)));
  }
  const BadEncodingProof proof = prove_bad_encoding(corrupted().square, corrupted().commitment.header())->value();
  write(bad_encoding_corrupted, codec::encode(proof));
  write(bad_encoding_honest, codec::encode(proof));
  write(availability_header, codec::encode(honest().commitment.header()));
  write(data_commitment, codec::encode(honest().header));
  return 0;
}
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  codec::testing::dispatch_by_kind(data, size, kKinds, fuzz_one);
  return 0;
}
#endif
