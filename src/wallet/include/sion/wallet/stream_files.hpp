#pragma once
// The files `sion stream` keeps (docs/wallet.md, "Streams"), as strict JSON:
//   - the payer file: the chain's secret seed, how many payments were
//     revealed, the checkpoints and the stream's terms; written before the
//     OpenStream is submitted, so the seed of an open stream is never lost;
//   - the offer file: the public part the payee needs (the stream id and the
//     checkpoints);
//   - the payee file: the stream as opened, the checkpoints and the last
//     payment accepted (streams::PayeeRecord).
// Every field is required, no other is allowed, and a malformed one is
// refused with its JSON path. Hashes are 64 lower-case hex digits, amounts
// and indices unsigned JSON integers.

#include <cstdint>
#include <string>
#include <string_view>

#include "sion/base/result.hpp"
#include "sion/exec/transaction.hpp"
#include "sion/streams/payee.hpp"
#include "sion/streams/payer.hpp"

namespace sion::wallet {

// 65,536 checkpoints of 66 characters each, and room for the rest.
inline constexpr std::size_t kMaxStreamFileBytes = 5 * 1024 * 1024;

struct PayerFile {
  exec::Id stream{};  // stream_id of the OpenStream, known once it is signed
  exec::Id payee{};
  exec::Amount price = 0;
  exec::Amount deposit = 0;
  std::uint64_t expiry_height = 0;
  streams::PayerRecord record;  // seed, length, revealed, checkpoints
  bool operator==(const PayerFile&) const = default;
};

struct OfferFile {
  exec::Id stream{};
  std::uint32_t length = 0;
  streams::Checkpoints checkpoints;
  bool operator==(const OfferFile&) const = default;
};

// The canonical JSON texts.
std::string payer_file_to_json(const PayerFile& file);
std::string offer_file_to_json(const OfferFile& file);
std::string payee_file_to_json(const streams::PayeeRecord& record);

// invalid_value "<what> file: <JSON path>: <why>" for anything malformed:
// a missing or unknown field, a wrong type, a hash that is not 32 bytes, an
// index past 2^32 - 1, more checkpoints than a chain can have, or fields
// that do not fit together (revealed past the length; a checkpoint count
// other than the length gives).
base::Result<PayerFile> parse_payer_file(std::string_view json);
base::Result<OfferFile> parse_offer_file(std::string_view json);
base::Result<streams::PayeeRecord> parse_payee_file(std::string_view json);

// New files (never replacing one): the payer file is 0600 (it holds the
// seed), the others 0644.
base::Status write_new_payer_file(const std::string& path, const PayerFile& file);
base::Status write_new_offer_file(const std::string& path, const OfferFile& file);
base::Status write_new_payee_file(const std::string& path, const streams::PayeeRecord& record);
// Atomic replacement of an existing file (a temporary file and rename(2)).
base::Status save_payer_file(const std::string& path, const PayerFile& file);
base::Status save_payee_file(const std::string& path, const streams::PayeeRecord& record);

base::Result<PayerFile> read_payer_file(const std::string& path);
base::Result<OfferFile> read_offer_file(const std::string& path);
base::Result<streams::PayeeRecord> read_payee_file(const std::string& path);

}  // namespace sion::wallet
