#include "sion/wallet/tx_batch.hpp"

namespace sion::wallet {

base::Bytes encode_tx_batch(std::span<const base::ByteView> encodings) {
  // TxBatchBody's encoding, written from the views (no copy of each element first).
  std::size_t size = 5;
  for (const base::ByteView encoding : encodings) size += 5 + encoding.size();
  base::Bytes out;
  out.reserve(size);
  codec::Writer writer(out);
  writer.length(encodings.size());
  for (const base::ByteView encoding : encodings) {
    writer.length(encoding.size());
    writer.bytes(encoding);
  }
  return out;
}

}  // namespace sion::wallet
