#include "sion/wallet/stream_files.hpp"

#include <algorithm>
#include <utility>

#include "sion/base/bytes.hpp"
#include "sion/base/file.hpp"
#include "sion/base/json.hpp"
#include "sion/streams/chain.hpp"

namespace sion::wallet {

using base::Errc;
using base::JsonValue;

namespace {

JsonValue hashes_json(const streams::Checkpoints& list) {
  JsonValue out = JsonValue::array();
  for (const streams::Hash& hash : list) out.push_back(base::to_hex(hash));
  return out;
}

JsonValue terms_json(const streams::Stream& terms) {
  JsonValue json = JsonValue::object();
  json["payer"] = base::to_hex(terms.payer);
  json["payee"] = base::to_hex(terms.payee);
  json["price"] = terms.price;
  json["length"] = terms.length;
  json["anchor"] = base::to_hex(terms.anchor);
  json["checkpoint_root"] = base::to_hex(terms.checkpoints);
  json["deposit"] = terms.deposit;
  json["expiry_height"] = terms.expiry_height;
  json["settled"] = terms.settled;
  json["settled_element"] = base::to_hex(terms.settled_element);
  return json;
}

// Errors carry "<what> file: " before the JSON path.
template <class T>
base::Result<T> in_file(std::string_view what, base::Result<T> result) {
  if (result) return result;
  return base::fail(Errc::invalid_value, std::string(what) + " file: " + result.error().reason);
}

base::Result<streams::Hash> hash_at(base::JsonObject& object, std::string_view key) {
  SION_TRY(const base::Bytes bytes, object.hex(key, base::HexRule{32, true, false}));
  streams::Hash hash{};
  std::copy(bytes.begin(), bytes.end(), hash.begin());
  return hash;
}

// The checkpoint list, as many as a chain of `length` has.
base::Result<streams::Checkpoints> checkpoints_at(base::JsonObject& object, std::uint32_t length) {
  SION_TRY(const base::JsonArray array, object.array("checkpoints"));
  const std::uint32_t expected = length == 0 ? 0 : streams::checkpoint_count(length);
  if (array.size() != expected) {
    return base::fail(Errc::invalid_value, array.path() + ": a chain of " + std::to_string(length) + " has " +
                                               std::to_string(expected) + " checkpoints, the file lists " +
                                               std::to_string(array.size()));
  }
  streams::Checkpoints list;
  list.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) {
    SION_TRY(const base::Bytes bytes, array[i].as_hex(base::HexRule{32, true, false}));
    streams::Hash hash{};
    std::copy(bytes.begin(), bytes.end(), hash.begin());
    list.push_back(hash);
  }
  return list;
}

base::Result<std::uint32_t> length_at(base::JsonObject& object) {
  SION_TRY(const base::JsonView view, object.field("length"));
  SION_TRY(const std::uint64_t length, view.as_u64(streams::kMaxLength));
  if (length == 0) return view.invalid("a stream's length is at least 1");
  return static_cast<std::uint32_t>(length);
}

base::Result<streams::Stream> parse_terms(base::JsonObject& object) {
  streams::Stream terms;
  SION_TRY(terms.payer, hash_at(object, "payer"));
  SION_TRY(terms.payee, hash_at(object, "payee"));
  SION_TRY(const base::JsonView price, object.field("price"));
  SION_TRY(terms.price, price.as_u64());
  if (terms.price == 0) return price.invalid("a stream's price is at least 1");
  SION_TRY(terms.length, length_at(object));
  SION_TRY(terms.anchor, hash_at(object, "anchor"));
  SION_TRY(terms.checkpoints, hash_at(object, "checkpoint_root"));
  SION_TRY(terms.deposit, object.u64("deposit"));
  SION_TRY(terms.expiry_height, object.u64("expiry_height"));
  SION_TRY(const base::JsonView settled, object.field("settled"));
  SION_TRY(const std::uint64_t settled_index, settled.as_u64(terms.length));
  terms.settled = static_cast<std::uint32_t>(settled_index);
  SION_TRY(terms.settled_element, hash_at(object, "settled_element"));
  SION_TRY_STATUS(object.finish());
  return terms;
}

base::Result<PayerFile> parse_payer(std::string_view text) {
  SION_TRY(const JsonValue json, base::parse_json(text));
  SION_TRY(base::JsonObject object, base::JsonView(json).as_object());
  PayerFile file;
  SION_TRY(file.stream, hash_at(object, "stream"));
  SION_TRY(file.payee, hash_at(object, "payee"));
  SION_TRY(const base::JsonView price, object.field("price"));
  SION_TRY(file.price, price.as_u64());
  if (file.price == 0) return price.invalid("a stream's price is at least 1");
  SION_TRY(file.deposit, object.u64("deposit"));
  SION_TRY(file.expiry_height, object.u64("expiry_height"));
  SION_TRY(file.record.seed, hash_at(object, "seed"));
  SION_TRY(file.record.length, length_at(object));
  SION_TRY(const base::JsonView revealed, object.field("revealed"));
  SION_TRY(const std::uint64_t revealed_count, revealed.as_u64(file.record.length));
  file.record.revealed = static_cast<std::uint32_t>(revealed_count);
  SION_TRY(file.record.checkpoints, checkpoints_at(object, file.record.length));
  SION_TRY_STATUS(object.finish());
  return file;
}

base::Result<OfferFile> parse_offer(std::string_view text) {
  SION_TRY(const JsonValue json, base::parse_json(text));
  SION_TRY(base::JsonObject object, base::JsonView(json).as_object());
  OfferFile file;
  SION_TRY(file.stream, hash_at(object, "stream"));
  SION_TRY(file.length, length_at(object));
  SION_TRY(file.checkpoints, checkpoints_at(object, file.length));
  SION_TRY_STATUS(object.finish());
  return file;
}

base::Result<streams::PayeeRecord> parse_payee(std::string_view text) {
  SION_TRY(const JsonValue json, base::parse_json(text));
  SION_TRY(base::JsonObject object, base::JsonView(json).as_object());
  streams::PayeeRecord record;
  SION_TRY(record.stream_id, hash_at(object, "stream"));
  SION_TRY(base::JsonObject terms, object.object("terms"));
  SION_TRY(record.terms, parse_terms(terms));
  SION_TRY(record.checkpoints, checkpoints_at(object, record.terms.length));
  SION_TRY(const base::JsonView accepted, object.field("accepted"));
  SION_TRY(const std::uint64_t accepted_index, accepted.as_u64(record.terms.length));
  if (accepted_index < record.terms.settled) {
    return accepted.invalid("below the settled index " + std::to_string(record.terms.settled) + " of the terms");
  }
  record.accepted = static_cast<std::uint32_t>(accepted_index);
  SION_TRY(record.element, hash_at(object, "element"));
  SION_TRY_STATUS(object.finish());
  return record;
}

template <class T>
base::Result<T> read_as(const std::string& path, std::string_view what, base::Result<T> (*parse)(std::string_view),
                        bool owner_only) {
  const std::string label = std::string(what) + " file";
  SION_TRY(
      const std::string text,
      base::read_file(
          path, {.what = label, .max_bytes = kMaxStreamFileBytes, .owner_only = owner_only, .follow_symlinks = true}));
  auto parsed = parse(text);
  if (!parsed) return base::fail(std::move(parsed).error().with_context(base::quoted_path(path)));
  return parsed;
}

constexpr base::WriteFileOptions kPayerWrite{.what = "payer file", .mode = 0600, .exact_mode = true};
constexpr base::WriteFileOptions kOfferWrite{.what = "offer file", .mode = 0644, .exact_mode = false};
constexpr base::WriteFileOptions kPayeeWrite{.what = "payee file", .mode = 0644, .exact_mode = false};

}  // namespace

std::string payer_file_to_json(const PayerFile& file) {
  JsonValue json = JsonValue::object();
  json["stream"] = base::to_hex(file.stream);
  json["payee"] = base::to_hex(file.payee);
  json["price"] = file.price;
  json["deposit"] = file.deposit;
  json["expiry_height"] = file.expiry_height;
  json["seed"] = base::to_hex(file.record.seed);
  json["length"] = file.record.length;
  json["revealed"] = file.record.revealed;
  json["checkpoints"] = hashes_json(file.record.checkpoints);
  return json.dump(2) + "\n";
}

std::string offer_file_to_json(const OfferFile& file) {
  JsonValue json = JsonValue::object();
  json["stream"] = base::to_hex(file.stream);
  json["length"] = file.length;
  json["checkpoints"] = hashes_json(file.checkpoints);
  return json.dump(2) + "\n";
}

std::string payee_file_to_json(const streams::PayeeRecord& record) {
  JsonValue json = JsonValue::object();
  json["stream"] = base::to_hex(record.stream_id);
  json["terms"] = terms_json(record.terms);
  json["checkpoints"] = hashes_json(record.checkpoints);
  json["accepted"] = record.accepted;
  json["element"] = base::to_hex(record.element);
  return json.dump(2) + "\n";
}

base::Result<PayerFile> parse_payer_file(std::string_view json) { return in_file("payer", parse_payer(json)); }
base::Result<OfferFile> parse_offer_file(std::string_view json) { return in_file("offer", parse_offer(json)); }
base::Result<streams::PayeeRecord> parse_payee_file(std::string_view json) {
  return in_file("payee", parse_payee(json));
}

base::Status write_new_payer_file(const std::string& path, const PayerFile& file) {
  return base::write_new_file(path, payer_file_to_json(file), kPayerWrite);
}
base::Status write_new_offer_file(const std::string& path, const OfferFile& file) {
  return base::write_new_file(path, offer_file_to_json(file), kOfferWrite);
}
base::Status write_new_payee_file(const std::string& path, const streams::PayeeRecord& record) {
  return base::write_new_file(path, payee_file_to_json(record), kPayeeWrite);
}
base::Status save_payer_file(const std::string& path, const PayerFile& file) {
  return base::replace_file(path, payer_file_to_json(file), kPayerWrite);
}
base::Status save_payee_file(const std::string& path, const streams::PayeeRecord& record) {
  return base::replace_file(path, payee_file_to_json(record), kPayeeWrite);
}

base::Result<PayerFile> read_payer_file(const std::string& path) {
  // It holds the seed: refused if others may read it, as key files are.
  return read_as<PayerFile>(path, "payer", &parse_payer_file, true);
}
base::Result<OfferFile> read_offer_file(const std::string& path) {
  return read_as<OfferFile>(path, "offer", &parse_offer_file, false);
}
base::Result<streams::PayeeRecord> read_payee_file(const std::string& path) {
  return read_as<streams::PayeeRecord>(path, "payee", &parse_payee_file, false);
}

}  // namespace sion::wallet
