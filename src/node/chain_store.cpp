#include "sion/node/chain_store.hpp"

#include <array>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>

#include "sion/base/endian.hpp"
#include "sion/codec/codec.hpp"
#include "sion/state/blob_files.hpp"
#include "sion/state/kv_store.hpp"

namespace sion::node {
namespace {

// The chain's columns (docs/state.md, "The node's chain"), after the object
// store's own.
const std::vector<std::string> kChainColumns = {"chain", "headers", "bodies", "receipts", "tx_index", "coins_by_owner"};
constexpr state::Column kChain = state::extra_column(0);
constexpr state::Column kHeaders = state::extra_column(1);
constexpr state::Column kBodies = state::extra_column(2);
constexpr state::Column kReceipts = state::extra_column(3);
constexpr state::Column kTxIndex = state::extra_column(4);
// owner id || coin id -> amount (u64 BE): what the API lists as an account's
// coins. Not consensus: derived from the state, in the same batch.
constexpr state::Column kCoinsByOwner = state::extra_column(5);

constexpr std::string_view kLatestKey = "latest";     // u64 BE: the latest height
constexpr std::string_view kParamsKey = "params";     // encode(ChainParams)
constexpr std::string_view kLogHeadKey = "log_head";  // encode(TreeHead) of the header log
// "1": bodies live in body files, the bodies column holding their BlobRefs.
constexpr std::string_view kBodyFilesKey = "body_files";
constexpr std::string_view kBodyFilesFolder = "bodies";

using Body = codec::List<exec::Transaction, exec::kMaxPublishedTransactions>;
using Receipts = codec::List<exec::Receipt, exec::kMaxPublishedTransactions>;

std::array<std::uint8_t, 8> height_key(std::uint64_t height) {
  std::array<std::uint8_t, 8> key{};
  base::store_be(key.data(), height);
  return key;
}

std::array<std::uint8_t, 64> owner_coin_key(const exec::Id& owner, const exec::Id& coin) {
  std::array<std::uint8_t, 64> key{};
  std::copy(owner.begin(), owner.end(), key.begin());
  std::copy(coin.begin(), coin.end(), key.begin() + 32);
  return key;
}

// The coin an object is, if it is one.
std::optional<exec::Coin> as_coin(const std::optional<state::Object>& object) {
  if (!object || object->type != static_cast<std::uint32_t>(exec::ObjectType::coin)) return std::nullopt;
  auto coin = exec::coin_from(*object);
  if (!coin) return std::nullopt;
  return *coin;
}

base::Failure corrupt(const std::string& what) { return base::fail(base::Errc::corrupt_store, "chain store: " + what); }

// A store version is a height plus one: version 0 is the object store's
// empty state, version 1 the genesis state (height 0).
std::uint64_t version_of(std::uint64_t height) { return height + 1; }

// The index operations for `writes`: the coins they create, and those
// they delete or replace (their owners read from the state before).
base::Status index_coins(const state::ObjectStore& store, std::span<const state::ObjectWrite> writes,
                         state::KvBatch& extra) {
  for (const state::ObjectWrite& write : writes) {
    SION_TRY(const std::optional<state::Object> before, store.get(write.id));
    if (const auto old = as_coin(before)) extra.erase(kCoinsByOwner, owner_coin_key(old->owner, write.id));
    if (const auto coin = as_coin(write.object)) {
      std::array<std::uint8_t, 8> amount{};
      base::store_be(amount.data(), coin->amount);
      extra.put(kCoinsByOwner, owner_coin_key(coin->owner, write.id), amount);
    }
  }
  return {};
}

base::Status check_outcome(const exec::Pulse& pulse, const exec::PulseOutcome& outcome) {
  if (outcome.receipts.size() != pulse.body.size() || outcome.receipts_root != pulse.header.receipts_root) {
    return base::fail(base::Errc::invalid_argument, "the outcome is not the Pulse's (receipts differ)");
  }
  return {};
}

}  // namespace

struct ChainStore::Impl {
  std::unique_ptr<state::ObjectStore> store;
  std::unique_ptr<state::BlobFiles> bodies;
  bool initialized = false;
  exec::ChainParams params;
  exec::PulseHeader head;  // the latest header
  commit::MerkleLog log{commit::kLogSha3};
  std::optional<base::Error> failed;  // a commit's write failed: refuse the rest
  bool read_only = false;
  mutable std::shared_mutex mutex;

  template <class T>
  base::Result<T> read(state::Column column, base::ByteView key, const std::string& what) const {
    SION_TRY(const auto bytes, store->read_extra(column, key));
    if (!bytes) return base::fail(base::Errc::not_found, what + " is not stored");
    auto value = codec::decode<T>(*bytes);
    if (!value) return corrupt(what + " does not decode: " + value.error().reason);
    return std::move(*value);
  }

  base::Result<exec::PulseHeader> read_header(std::uint64_t height) const {
    if (!initialized || height > head.height) {
      return base::fail(base::Errc::not_found, "no Pulse at height " + std::to_string(height) + " (latest " +
                                                   std::to_string(initialized ? head.height : 0) + ")");
    }
    return read<exec::PulseHeader>(kHeaders, height_key(height), "the header at height " + std::to_string(height));
  }

  base::Result<state::BlobRef> body_ref(std::uint64_t height) const {
    const std::string what = "the body reference at height " + std::to_string(height);
    SION_TRY(const auto bytes, store->read_extra(kBodies, height_key(height)));
    if (!bytes) return base::fail(base::Errc::not_found, what + " is not stored");
    auto ref = state::BlobRef::decode(*bytes);
    if (!ref) return corrupt(what + " does not decode: " + ref.error().reason);
    return *ref;
  }

  // Appends a body to the body files: durable, but unnamed until the batch
  // holding its reference lands (open cuts an unnamed tail).
  base::Result<base::Bytes> append_body(base::ByteView encoded) {
    auto ref = bodies->append(encoded);
    if (!ref) {
      failed = ref.error();
      return base::fail(std::move(ref).error());
    }
    return ref->encode();
  }

  // The Pulse with `header` may be committed next.
  base::Status check_next(const exec::PulseHeader& header) const;

  base::Status check_height(std::uint64_t height) const {
    if (!initialized || height > head.height) {
      return base::fail(base::Errc::not_found, "no Pulse at height " + std::to_string(height));
    }
    return {};
  }

  // Rebuilds the header log from the stored headers, checking their links.
  base::Status load(std::uint64_t latest) {
    log.reserve(latest + 1);
    std::optional<exec::PulseHeader> previous;
    base::Status status;
    std::vector<commit::Hash> leaves;
    leaves.reserve(latest + 1);
    SION_TRY_STATUS(store->scan_extra(
        kHeaders, height_key(0), height_key(latest + 1), [&](base::ByteView key, base::ByteView value) {
          const std::uint64_t height = leaves.size();
          auto header = codec::decode<exec::PulseHeader>(value);
          if (key.size() != 8 || base::load_be<std::uint64_t>(key.data()) != height) {
            status = corrupt("the header at height " + std::to_string(height) + " is missing");
          } else if (!header) {
            status = corrupt("the header at height " + std::to_string(height) + " does not decode");
          } else if (header->height != height || (previous && header->parent != exec::pulse_hash(*previous))) {
            status = corrupt("the header at height " + std::to_string(height) + " does not link to its parent");
          }
          if (!status) return false;
          leaves.push_back(commit::kLogSha3.leaf(exec::pulse_hash(*header)));
          previous = std::move(*header);
          return true;
        }));
    SION_TRY_STATUS(std::move(status));
    if (leaves.size() != latest + 1 || !previous) return corrupt("headers end before the latest height");
    log.append_leaf_hashes(leaves);
    head = std::move(*previous);
    SION_TRY(const auto stored_head, read<commit::TreeHead>(kChain, base::as_bytes(kLogHeadKey), "the log head"));
    if (stored_head != log.head())
      return corrupt("the header log rebuilt from the headers differs from its stored head");
    if (store->version() != version_of(latest)) {
      return corrupt("the state is at version " + std::to_string(store->version()) + ", not at height " +
                     std::to_string(latest));
    }
    if (store->root() != head.state_root) return corrupt("the state root differs from the latest header's");
    return {};
  }
};

ChainStore::ChainStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ChainStore::~ChainStore() = default;

base::Result<std::unique_ptr<ChainStore>> ChainStore::open(const std::string& directory,
                                                           const ChainStoreOptions& options) {
  state::ObjectStoreOptions store_options;
  store_options.retain_versions = options.retain_heights;
  store_options.sync_writes = options.sync_writes;
  store_options.executor = options.executor;
  store_options.extra_columns = kChainColumns;
  store_options.write_fault = options.write_fault;
  store_options.read_only = options.read_only;
  auto impl = std::make_unique<Impl>();
  impl->read_only = options.read_only;
  SION_TRY(impl->store, state::ObjectStore::open(directory, store_options));

  SION_TRY(const auto latest_bytes, impl->store->read_extra(kChain, base::as_bytes(kLatestKey)));
  state::BlobFilesOptions body_options;
  body_options.sync = options.sync_writes;
  body_options.read_only = options.read_only;
  SION_TRY(impl->bodies, state::BlobFiles::open(directory + "/" + std::string(kBodyFilesFolder), body_options));
  if (latest_bytes) {
    if (latest_bytes->size() != 8) return corrupt("the latest height is not 8 bytes");
    SION_TRY(const auto marker, impl->store->read_extra(kChain, base::as_bytes(kBodyFilesKey)));
    if (!marker) {
      return base::fail(base::Errc::unsupported, "the chain in " + directory +
                                                     " keeps its bodies in RocksDB, an older format this build does "
                                                     "not read; start a new data directory");
    }
    SION_TRY(impl->params, impl->read<exec::ChainParams>(kChain, base::as_bytes(kParamsKey), "the chain parameters"));
    impl->initialized = true;
    const std::uint64_t latest = base::load_be<std::uint64_t>(latest_bytes->data());
    SION_TRY_STATUS(impl->load(latest));
    // A body appended for a Pulse whose batch never landed is cut here.
    SION_TRY(const state::BlobRef last, impl->body_ref(latest));
    if (!options.read_only) SION_TRY_STATUS(impl->bodies->discard_after(last));
  } else if (impl->store->version() != 0) {
    return corrupt("the state holds versions but no chain");
  } else if (options.read_only) {
    return base::fail(base::Errc::not_found, "no chain in " + directory);
  } else {
    SION_TRY_STATUS(impl->bodies->discard_after(std::nullopt));
  }
  return std::unique_ptr<ChainStore>(new ChainStore(std::move(impl)));
}

base::Status ChainStore::initialize(std::span<const state::ObjectWrite> genesis, const commit::Hash& genesis_root,
                                    const exec::ChainParams& params) {
  std::unique_lock lock(impl_->mutex);
  const exec::PulseHeader header = exec::genesis_header(genesis_root, params);
  if (impl_->initialized) {
    SION_TRY(const auto stored, impl_->read_header(0));
    if (stored == header) return {};
    return base::fail(base::Errc::invalid_value,
                      "the chain store holds another chain: genesis root " + base::to_hex(stored.state_root) +
                          " and params hash " + base::to_hex(stored.params_hash) + ", not genesis root " +
                          base::to_hex(genesis_root) + " and params hash " + base::to_hex(header.params_hash));
  }
  if (impl_->read_only) return base::fail(base::Errc::invalid_argument, "the chain store is open read-only");
  if (impl_->failed) return base::fail(*impl_->failed);
  SION_TRY(const auto root, impl_->store->root_after(genesis));
  if (root != genesis_root) {
    return base::fail(base::Errc::invalid_argument,
                      "the genesis writes give root " + base::to_hex(root) + ", not " + base::to_hex(genesis_root));
  }
  commit::MerkleLog log(commit::kLogSha3);
  log.append(exec::pulse_hash(header));
  state::KvBatch extra;
  SION_TRY(const base::Bytes body_ref, impl_->append_body(codec::encode(Body{})));
  extra.put(kHeaders, height_key(0), codec::encode(header));
  extra.put(kBodies, height_key(0), body_ref);
  extra.put(kChain, base::as_bytes(kBodyFilesKey), base::as_bytes(std::string_view("1")));
  extra.put(kReceipts, height_key(0), codec::encode(Receipts{}));
  extra.put(kChain, base::as_bytes(kParamsKey), codec::encode(params));
  extra.put(kChain, base::as_bytes(kLogHeadKey), codec::encode(log.head()));
  extra.put(kChain, base::as_bytes(kLatestKey), height_key(0));
  SION_TRY_STATUS(index_coins(*impl_->store, genesis, extra));
  if (auto applied = impl_->store->apply(genesis, std::move(extra)); !applied) {
    impl_->failed = applied.error();
    return base::fail(std::move(applied).error());
  }
  impl_->initialized = true;
  impl_->params = params;
  impl_->head = header;
  impl_->log = std::move(log);
  return {};
}

bool ChainStore::initialized() const noexcept {
  std::shared_lock lock(impl_->mutex);
  return impl_->initialized;
}

base::Status ChainStore::Impl::check_next(const exec::PulseHeader& header) const {
  if (read_only) return base::fail(base::Errc::invalid_argument, "the chain store is open read-only");
  if (failed) return base::fail(*failed);
  if (!initialized) return base::fail(base::Errc::invalid_argument, "the chain store is not initialized");
  if (header.height != head.height + 1 || header.parent != exec::pulse_hash(head)) {
    return base::fail(base::Errc::invalid_argument, "the Pulse at height " + std::to_string(header.height) +
                                                        " does not extend the latest header (height " +
                                                        std::to_string(head.height) + ")");
  }
  return {};
}

base::Result<ChainStore::StagedBody> ChainStore::stage_body(const exec::Pulse& pulse) {
  {
    std::shared_lock lock(impl_->mutex);
    SION_TRY_STATUS(impl_->check_next(pulse.header));
  }
  auto body_bytes = codec::encode_checked(pulse.body);
  if (!body_bytes) return base::fail(base::Errc::invalid_argument, "the Pulse's body is not encodable");
  auto ref = impl_->bodies->append(*body_bytes);
  if (!ref) {
    std::unique_lock lock(impl_->mutex);
    if (!impl_->failed) impl_->failed = ref.error();
    return base::fail(std::move(ref).error());
  }
  return StagedBody{exec::pulse_hash(pulse.header), ref->encode()};
}

base::Status ChainStore::commit(const exec::Pulse& pulse, const exec::PulseOutcome& outcome) {
  // Refused input appends nothing.
  SION_TRY_STATUS(check_outcome(pulse, outcome));
  SION_TRY(const StagedBody staged, stage_body(pulse));
  return commit(pulse, outcome, staged);
}

base::Status ChainStore::commit(const exec::Pulse& pulse, const exec::PulseOutcome& outcome, const StagedBody& staged) {
  std::unique_lock lock(impl_->mutex);
  const exec::PulseHeader& header = pulse.header;
  SION_TRY_STATUS(impl_->check_next(header));
  const std::uint64_t height = header.height;
  if (staged.pulse_hash != exec::pulse_hash(header)) {
    return base::fail(base::Errc::invalid_argument, "the staged body is another Pulse's");
  }
  SION_TRY_STATUS(check_outcome(pulse, outcome));
  const Receipts receipts(outcome.receipts);
  auto receipts_bytes = codec::encode_checked(receipts);
  auto header_bytes = codec::encode_checked(header);
  if (!receipts_bytes || !header_bytes) {
    return base::fail(base::Errc::invalid_argument, "the Pulse is not encodable");
  }
  // A read failure here leaves nothing changed.
  state::KvBatch extra;
  SION_TRY_STATUS(index_coins(*impl_->store, outcome.writes, extra));
  const commit::Hash leaf = commit::kLogSha3.leaf(exec::pulse_hash(header));
  // The log head after this Pulse, computed on a copy of nothing: append,
  // and take it back out below only if the write fails (then the store is
  // refusing commits anyway).
  impl_->log.append_leaf_hash(leaf);
  const commit::TreeHead log_head = impl_->log.head();

  extra.put(kHeaders, height_key(height), *header_bytes);
  extra.put(kReceipts, height_key(height), *receipts_bytes);
  std::array<std::uint8_t, 12> location{};
  base::store_be(location.data(), height);
  for (std::size_t i = 0; i < outcome.receipts.size(); ++i) {
    base::store_be(location.data() + 8, static_cast<std::uint32_t>(i));
    extra.put(kTxIndex, outcome.receipts[i].tx_id, location);
  }
  extra.put(kChain, base::as_bytes(kLogHeadKey), codec::encode(log_head));
  extra.put(kChain, base::as_bytes(kLatestKey), height_key(height));
  extra.put(kBodies, height_key(height), staged.body_ref);
  auto applied = impl_->store->apply(outcome.writes, std::move(extra));
  if (!applied) {
    // A refused write set (invalid_value) wrote nothing either, but the
    // outcome then did not come from execution: stop all the same.
    impl_->failed = applied.error();
    return base::fail(std::move(applied).error());
  }
  if (impl_->store->root() != header.state_root) {
    impl_->failed = corrupt("the committed state root differs from the header of height " + std::to_string(height) +
                            "; the outcome was not the Pulse's")
                        .error;
    return base::fail(*impl_->failed);
  }
  impl_->head = header;
  return {};
}

base::Result<std::vector<std::pair<exec::Id, exec::Amount>>> ChainStore::coins_of(const exec::Id& owner) const {
  std::shared_lock lock(impl_->mutex);
  std::array<std::uint8_t, 64> first = owner_coin_key(owner, exec::Id{});
  exec::Id next_owner = owner;
  // The first key of the next owner ends the range (or the column, after all-ones).
  bool last_owner = true;
  for (std::size_t i = next_owner.size(); i-- > 0;) {
    if (next_owner[i] != 0xff) {
      ++next_owner[i];
      last_owner = false;
      break;
    }
    next_owner[i] = 0;
  }
  std::array<std::uint8_t, 65> last{};
  if (last_owner) {
    last.fill(0xff);
  } else {
    std::copy(next_owner.begin(), next_owner.end(), last.begin());
  }
  std::vector<std::pair<exec::Id, exec::Amount>> coins;
  base::Status bad;
  SION_TRY_STATUS(impl_->store->scan_extra(kCoinsByOwner, first, base::ByteView(last.data(), last_owner ? 65 : 32),
                                           [&](base::ByteView key, base::ByteView value) {
                                             if (key.size() != 64 || value.size() != 8) {
                                               bad = corrupt("a coins-by-owner record has the wrong size");
                                               return false;
                                             }
                                             exec::Id coin{};
                                             std::copy(key.begin() + 32, key.end(), coin.begin());
                                             coins.emplace_back(coin, base::load_be<std::uint64_t>(value.data()));
                                             return true;
                                           }));
  SION_TRY_STATUS(bad);
  return coins;
}

const exec::ChainParams& ChainStore::params() const noexcept { return impl_->params; }

std::uint64_t ChainStore::height() const noexcept {
  std::shared_lock lock(impl_->mutex);
  return impl_->head.height;
}

exec::PulseHeader ChainStore::head() const {
  std::shared_lock lock(impl_->mutex);
  return impl_->head;
}

base::Result<exec::PulseHeader> ChainStore::header(std::uint64_t height) const {
  std::shared_lock lock(impl_->mutex);
  return impl_->read_header(height);
}

base::Result<std::vector<exec::Transaction>> ChainStore::body(std::uint64_t height) const {
  std::shared_lock lock(impl_->mutex);
  SION_TRY_STATUS(impl_->check_height(height));
  SION_TRY(const state::BlobRef ref, impl_->body_ref(height));
  SION_TRY(const base::Bytes bytes, impl_->bodies->read(ref));
  auto body = codec::decode<Body>(bytes);
  if (!body)
    return corrupt("the body at height " + std::to_string(height) + " does not decode: " + body.error().reason);
  return std::vector<exec::Transaction>(std::move(*body));
}

base::Result<std::vector<exec::Receipt>> ChainStore::receipts(std::uint64_t height) const {
  std::shared_lock lock(impl_->mutex);
  SION_TRY_STATUS(impl_->check_height(height));
  SION_TRY(auto receipts,
           impl_->read<Receipts>(kReceipts, height_key(height), "the receipts at height " + std::to_string(height)));
  return std::vector<exec::Receipt>(std::move(receipts));
}

base::Result<std::optional<TxRecord>> ChainStore::find_transaction(const exec::Id& tx_id) const {
  std::shared_lock lock(impl_->mutex);
  SION_TRY(const auto bytes, impl_->store->read_extra(kTxIndex, tx_id));
  if (!bytes) return std::optional<TxRecord>{};
  if (bytes->size() != 12) return corrupt("a transaction index entry is not 12 bytes");
  TxRecord record;
  record.location.height = base::load_be<std::uint64_t>(bytes->data());
  record.location.position = base::load_be<std::uint32_t>(bytes->data() + 8);
  const std::string what = "the receipts at height " + std::to_string(record.location.height);
  SION_TRY(const auto receipts, impl_->read<Receipts>(kReceipts, height_key(record.location.height), what));
  if (record.location.position >= receipts.size() || receipts[record.location.position].tx_id != tx_id) {
    return corrupt("the transaction index names a receipt that is not the transaction's");
  }
  record.receipt = receipts[record.location.position];
  return std::optional<TxRecord>(record);
}

commit::TreeHead ChainStore::log_head() const {
  std::shared_lock lock(impl_->mutex);
  return impl_->log.head();
}

base::Result<commit::TreeHead> ChainStore::log_head(std::uint64_t size) const {
  std::shared_lock lock(impl_->mutex);
  return impl_->log.head(size);
}

base::Result<commit::InclusionProof> ChainStore::header_proof(std::uint64_t height, std::uint64_t log_size) const {
  std::shared_lock lock(impl_->mutex);
  return impl_->log.inclusion_proof(height, log_size);
}

base::Result<commit::ConsistencyProof> ChainStore::log_consistency(std::uint64_t first_size,
                                                                   std::uint64_t second_size) const {
  std::shared_lock lock(impl_->mutex);
  return impl_->log.consistency_proof(first_size, second_size);
}

base::Result<state::ProvenObject> ChainStore::get_with_proof(const exec::Id& id) const {
  return impl_->store->get_with_proof(id);
}

base::Result<commit::StateProof> ChainStore::prove_at(const exec::Id& id, std::uint64_t height) const {
  return impl_->store->prove_at(id, version_of(height));
}

base::Result<commit::Hash> ChainStore::state_root_at(std::uint64_t height) const {
  return impl_->store->root_at(version_of(height));
}

const state::ObjectStore& ChainStore::state() const noexcept { return *impl_->store; }

}  // namespace sion::node
