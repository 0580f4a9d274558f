#include "sion/wallet/light_client.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "sion/da/sampling.hpp"
#include "sion/exec/pulse_header.hpp"
#include "sion/wallet/log_head.hpp"

namespace sion::wallet {
namespace {

using base::Errc;

std::string head_text(const commit::TreeHead& head) {
  return "size " + std::to_string(head.size) + ", root " + base::to_hex(head.root);
}

}  // namespace

commit::Hash header_log_leaf_hash(const commit::Hash& pulse_hash) noexcept { return kHeaderLogHasher.leaf(pulse_hash); }

std::string describe(const SyncReport& report) {
  std::string out = "log head: " + head_text(report.head) + "\n";
  out += "  signed by genesis validator " + base::to_hex(report.signer) + "\n";
  if (!report.previous || report.genesis_checked) {
    out += "  first head trusted (nothing earlier to be consistent with)\n";
    if (report.genesis_checked) out += "  entry 0 is this chain's genesis header\n";
  } else if (report.behind) {
    out += "  the node is behind the trusted head (" + head_text(*report.previous) + "), which is kept\n";
  } else if (report.consistency_checked) {
    out += "  consistent with the trusted head of size " + std::to_string(report.previous->size) + "\n";
  } else {
    out += "  equal to the trusted head\n";
  }
  return out;
}

std::string describe(const PulseCheck& check) {
  std::string out = "Pulse " + std::to_string(check.height) + ": hash " + base::to_hex(check.pulse_hash) + "\n";
  out += "  in the signed header log of size " + std::to_string(check.log_head.size) + "\n";
  out += "  data: width " + std::to_string(check.data.original_width) + ", " + std::to_string(check.data.data_bytes) +
         " bytes, root " + base::to_hex(check.data.data_root) + "\n";
  if (check.availability_header) out += "  row and column roots hash to the data root\n";
  out += "  " + std::to_string(check.samples) + " sampled shares verified\n";
  out += "  state root " + base::to_hex(check.state_root) + "\n";
  out += "  object " + base::to_hex(check.object_id) + ": ";
  if (check.object) {
    out += "present, type " + std::to_string(check.object->type) + ", version " +
           std::to_string(check.object->version) + ", " + std::to_string(check.object->data.size()) + " bytes\n";
  } else if (check.object_hash) {
    out += "present, value hash " + base::to_hex(*check.object_hash) + " (its bytes are no longer served)\n";
  } else {
    out += "absent (proven)\n";
  }
  return out;
}

base::Result<LightClient> LightClient::create(exec::Genesis genesis) {
  if (genesis.validators.empty()) {
    return base::fail(Errc::invalid_argument,
                      "light client: the genesis names no validators, so no log head can be checked");
  }
  SION_TRY_STATUS_CONTEXT("light client", exec::check_genesis(genesis));
  SION_TRY_CONTEXT(const auto root, "light client", exec::genesis_state_root(genesis));
  const commit::Hash genesis_hash = exec::pulse_hash(exec::genesis_header(root, genesis.params));
  return LightClient(std::move(genesis), root, genesis_hash);
}

base::Status LightClient::check_genesis_entry(NodeApi& api, const commit::TreeHead& head) const {
  SION_TRY(const auto inclusion, api.inclusion(0, head.size));
  if (inclusion.pulse_hash != genesis_hash_) {
    return base::fail(Errc::invalid_value, "the node's log entry 0 is " + base::to_hex(inclusion.pulse_hash) +
                                               ", not this genesis's header " + base::to_hex(genesis_hash_) +
                                               ": the log of another chain");
  }
  if (!commit::verify_inclusion(kHeaderLogHasher, header_log_leaf_hash(genesis_hash_), inclusion.proof, head)) {
    return base::fail(
        Errc::invalid_value,
        "the proof of the genesis header as entry 0 does not lead to the log head (" + head_text(head) + ")");
  }
  return {};
}

base::Result<SyncReport> LightClient::sync(NodeApi& api) {
  SION_TRY(const auto status, api.status());
  if (status.chain_id != genesis_.params.chain_id || status.genesis_state_root != genesis_root_) {
    return base::fail(Errc::invalid_value, "the node is on another chain: chain id " + std::to_string(status.chain_id) +
                                               ", genesis state root " + base::to_hex(status.genesis_state_root) +
                                               "; the genesis file says " + std::to_string(genesis_.params.chain_id) +
                                               ", " + base::to_hex(genesis_root_));
  }
  SION_TRY(const auto reply, api.log_head());
  const crypto::KeyBundle* keys = find_validator(genesis_.validators, reply.signer);
  if (keys == nullptr) {
    return base::fail(Errc::bad_signature,
                      "log head signed by " + base::to_hex(reply.signer) + ", which is not a genesis validator");
  }
  if (!verify_log_head(*keys, reply.head, reply.signature)) {
    return base::fail(Errc::bad_signature, "the signature of log head (" + head_text(reply.head) + ") by validator " +
                                               base::to_hex(reply.signer) + " does not verify");
  }
  SyncReport report;
  report.previous = trusted_;
  report.head = reply.head;
  report.signer = reply.signer;
  if (reply.head.size == 0) {
    return base::fail(Errc::invalid_value, "the node's signed log head is empty: it lacks the genesis header");
  }
  if (!trusted_ || trusted_->size == 0) {
    SION_TRY_STATUS(check_genesis_entry(api, reply.head));
    report.genesis_checked = true;
    trusted_ = reply.head;
    return report;
  }
  const commit::TreeHead& old = *trusted_;
  const commit::TreeHead& got = reply.head;
  if (got.size == old.size) {
    if (got.root != old.root) {
      return base::fail(Errc::invalid_value, "the node's signed log head (" + head_text(got) +
                                                 ") differs from the trusted head of the same size (" + head_text(old) +
                                                 "): two histories");
    }
    return report;
  }
  if (got.size < old.size) {
    // A node behind the trusted head cannot prove a tree it does not have
    // yet; the trusted head is kept, and proofs are asked against it.
    report.behind = true;
    return report;
  }
  SION_TRY(const auto proof, api.consistency(old.size, got.size));
  if (!commit::verify_consistency(kHeaderLogHasher, proof, old, got)) {
    return base::fail(Errc::invalid_value, "the node's log head (" + head_text(got) +
                                               ") is not consistent with the trusted head (" + head_text(old) + ")");
  }
  report.consistency_checked = true;
  trusted_ = got;
  return report;
}

base::Result<PulseCheck> LightClient::check_pulse(NodeApi& api, std::uint64_t height, const exec::Id& object_id,
                                                  const PulseCheckOptions& options) {
  const std::string what = "Pulse " + std::to_string(height);
  if (!trusted_) return base::fail(Errc::invalid_argument, what + ": no trusted log head yet (sync first)");
  // Entry h is Pulse h; entry 0 is the genesis header, which has no Pulse.
  if (height == 0 || height >= trusted_->size) {
    return base::fail(Errc::invalid_argument, what + ": not in the trusted log head of size " +
                                                  std::to_string(trusted_->size) + " (sync again, or ask for 1 .. " +
                                                  std::to_string(trusted_->size - 1) + ")");
  }
  PulseCheck check;
  check.height = height;
  check.log_head = *trusted_;
  check.object_id = object_id;

  // The header: decoded from the bytes served (NodeApi::pulse, which also
  // refuses JSON fields that disagree with them), its hash, then its entry
  // in the log. Everything below is checked against this header alone.
  SION_TRY(const auto pulse, api.pulse(height));
  if (pulse.header.height != height) {
    return base::fail(Errc::invalid_value,
                      what + ": header_hex is the header of height " + std::to_string(pulse.header.height));
  }
  check.pulse_hash = exec::pulse_hash(pulse.header);
  if (check.pulse_hash != pulse.hash) {
    return base::fail(Errc::invalid_value, what + ": header_hex hashes to " + base::to_hex(check.pulse_hash) +
                                               ", but the node says " + base::to_hex(pulse.hash));
  }
  SION_TRY(const auto inclusion, api.inclusion(height, trusted_->size));
  if (inclusion.pulse_hash != check.pulse_hash) {
    return base::fail(Errc::invalid_value, what + ": the log's entry " + std::to_string(height) + " is " +
                                               base::to_hex(inclusion.pulse_hash) + ", not the header's hash " +
                                               base::to_hex(check.pulse_hash));
  }
  if (!commit::verify_inclusion(kHeaderLogHasher, header_log_leaf_hash(check.pulse_hash), inclusion.proof, *trusted_)) {
    return base::fail(Errc::invalid_value, what + ": the inclusion proof does not lead to the trusted log head (" +
                                               head_text(*trusted_) + ")");
  }

  // Its data: the commitment's form, the line roots, random shares.
  check.data = pulse.header.data;
  check.state_root = pulse.header.state_root;
  SION_TRY_STATUS_CONTEXT(what, da::check_commitment(check.data));
  if (options.availability_header) {
    SION_TRY(const auto availability, api.availability(height));
    if (!(availability.data == check.data)) {
      return base::fail(Errc::invalid_value, what + ": the availability reply names another data commitment");
    }
    SION_TRY_CONTEXT(const auto root, what + ": availability header", availability.availability.data_root());
    if (root != check.data.data_root) {
      return base::fail(Errc::invalid_value, what + ": the row and column roots hash to " + base::to_hex(root) +
                                                 ", not the data root " + base::to_hex(check.data.data_root));
    }
    check.availability_header = true;
  }
  if (options.samples > 0) {
    const std::uint64_t width = 2 * std::uint64_t{check.data.original_width};
    const auto samples = static_cast<std::uint32_t>(std::min<std::uint64_t>(options.samples, width * width));
    const da::ShareFetcher fetch = [&](std::uint32_t row, std::uint32_t column) {
      return api.share(height, row, column);
    };
    if (options.seed) {
      SION_TRY_STATUS_CONTEXT(what, da::sample_availability(check.data, samples, *options.seed, fetch));
    } else {
      SION_TRY_STATUS_CONTEXT(what, da::sample_availability(check.data, samples, fetch));
    }
    check.samples = samples;
  }

  // The object, present or absent, under the header's state root.
  SION_TRY(auto object, api.object(object_id, true, height));
  if (object.state_root != check.state_root) {
    return base::fail(Errc::invalid_value, what + ": the object's proof is against state root " +
                                               base::to_hex(object.state_root) + ", not the header's " +
                                               base::to_hex(check.state_root));
  }
  // Below the latest height the node serves no object bytes: the proof's
  // leaf says whether the object was there, and with which value hash.
  std::optional<commit::Hash> value_hash;
  if (object.object) {
    value_hash = state::object_hash(*object.object);
  } else if (!object.object_served && object.proof->leaf && object.proof->leaf->key == object_id) {
    value_hash = object.proof->leaf->value_hash;
  }
  if (!commit::verify_state_proof(check.state_root, object_id, value_hash, *object.proof)) {
    return base::fail(Errc::invalid_value, what + ": the state proof does not show object " + base::to_hex(object_id) +
                                               (value_hash ? " present" : " absent") + " under the state root");
  }
  check.object = std::move(object.object);
  check.object_hash = value_hash;
  return check;
}

}  // namespace sion::wallet
