#pragma once
// Hashing for commitments: every hash that feeds a root starts with a one-byte
// domain tag naming its use, so a leaf can never be read as a node, nor a
// state-tree node as a log node (docs/commit.md, "Domain tags"). SHA3-256
// (FIPS 202) unless a structure says otherwise; the RFC 6962 log keeps the
// RFC's own 0x00 / 0x01 prefixes so that standard verifiers can check it.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "sion/base/bytes.hpp"
#include "sion/base/endian.hpp"
#include "sion/base/executor.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::commit {

using Hash = crypto::Hash256;

// Orders hashes as std::less<Hash> does (bytes unsigned, the first most
// significant), a word at a time: ordered maps keyed by ids spend most of
// their time comparing, and the first word of two hashes almost always
// differs.
struct HashOrder {
  bool operator()(const Hash& a, const Hash& b) const noexcept {
    for (std::size_t i = 0; i < a.size(); i += 8) {
      const std::uint64_t x = base::load_be<std::uint64_t>(a.data() + i);
      const std::uint64_t y = base::load_be<std::uint64_t>(b.data() + i);
      if (x != y) return x < y;
    }
    return false;
  }
};

// The tags, one per use. Values are part of the consensus format: never
// reuse or renumber one.
enum class Domain : std::uint8_t {
  log_leaf = 0x00,          // RFC 6962, Sec. 2.1: MTH({d}) = HASH(0x00 || d)
  log_node = 0x01,          // RFC 6962, Sec. 2.1: HASH(0x01 || left || right)
  state_leaf = 0x10,        // sparse Merkle state tree: (key, value hash)
  state_node = 0x11,        // sparse Merkle state tree: (left, right)
  sum_leaf = 0x20,          // Merkle sum tree: (hash, amount)
  sum_node = 0x21,          // Merkle sum tree: (left, right, sum)
  batch_leaf = 0x30,        // batch root: one item
  batch_node = 0x31,        // batch root: (left, right)
  object = 0x40,            // an object's bytes, as stored in the state tree
  transaction = 0x41,       // a transaction's id
  account = 0x42,           // an account's id, from its key bundle's id
  coin = 0x43,              // a coin's id, from the creating transaction and output index
  pulse_header = 0x44,      // a Pulse header's encoding: the Pulse's hash
  chain_params = 0x45,      // the chain parameters' encoding: the params hash a header carries
  lineage = 0x46,           // an agent's Lineage encoding: its lineage id, the agent's id
  allotment = 0x47,         // a lineage id: where the agent's allotment is stored
  overlay = 0x48,           // a lineage id: where the restrictions on the agent are stored
  cohort_member = 0x49,     // a cohort member's terms: the hash in its sum-tree leaf
  auth_batch = 0x4a,        // the id of the transaction opening a batch: where the batch is stored
  stream_step = 0x4b,       // a payment stream's chain: x[i-1] = H(0x4b || x[i])
  checkpoint_leaf = 0x4c,   // a stream's checkpoint tree: one checkpoint element
  checkpoint_node = 0x4d,   // a stream's checkpoint tree: (left, right)
  stream = 0x4e,            // the id of the transaction opening a stream: where the stream is stored
  receipt_leaf = 0x50,      // receipts root: one receipt's encoding
  receipt_node = 0x51,      // receipts root: (left, right)
  tx_leaf = 0x52,           // transactions root: one transaction id
  tx_node = 0x53,           // transactions root: (left, right)
  da_share = 0x60,          // data availability: one 512-byte share (a line tree's leaf)
  da_line_node = 0x61,      // data availability: a row or column tree's (left, right)
  da_root_leaf = 0x62,      // data root: one row or column root
  da_root_node = 0x63,      // data root: (left, right)
  batch_header = 0x70,      // consensus: a lane batch's header, its digest
  batch_payload = 0x71,     // consensus: a lane batch's payload bytes
  consensus_block = 0x72,   // consensus: an ordering block's encoding, its hash
  leader_seed = 0x73,       // consensus: a round number, whose hash picks the leader
  consensus_signed = 0x74,  // consensus: what a validator signs (kind, chain id, body)
};

// SHA3-256(tag || data).
Hash tagged_hash(Domain domain, base::ByteView data) noexcept;

// out[i] = tagged_hash(domain, inputs[i]) for every i: inputs of equal
// length (the usual case: ids, objects of one kind, receipts) are hashed
// together in Keccak lanes (crypto::sha3_256_many), a few hundred at a
// time so the tagged copies stay in cache; split over `executor` when given
// (nullptr: the calling thread).
void tagged_hashes(Domain domain, std::span<const base::ByteView> inputs, Hash* out,
                   base::Executor* executor = nullptr);

// SHA3-256(tag || left || right): 65 bytes, one Keccak-f[1600] call.
Hash hash_node(Domain domain, const Hash& left, const Hash& right) noexcept;

// out[i] = hash_node(domain, left[i], right[i]) for i < count, in Keccak
// lanes (crypto::sha3_256_many). out may alias neither input.
void hash_nodes(Domain domain, const Hash* left, const Hash* right, Hash* out, std::size_t count) noexcept;

}  // namespace sion::commit
