// docs/streams.md, "Known answers": a chain of 50 steps from the seed
// 5e x 32, its checkpoints and their tree, the opened stream and its id,
// settlements built by the payee (from the anchor, by checkpoint, walked,
// and one that uses the stream up) applied to the ledger's state one after
// the other, a close, and the payer's record. The values are read from the
// page, so an edit that breaks one fails here.

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sion/base/testing/doc_values.hpp"
#include "sion/ledger/state_view.hpp"
#include "sion/streams/chain.hpp"
#include "sion/streams/kinds.hpp"
#include "sion/streams/objects.hpp"
#include "sion/streams/payee.hpp"
#include "sion/streams/payer.hpp"

namespace sion::streams {
namespace {

using ledger::TxStatus;

const base::testing::DocValues& doc() {
  static const base::testing::DocValues values(std::string(SION_SOURCE_DIR) + "/docs/streams.md");
  return values;
}

base::Bytes documented(const std::string& label) {
  auto bytes = doc().bytes(label);
  if (!bytes) ADD_FAILURE() << "docs/streams.md has no hex value '" << label << "'";
  return bytes.value_or(base::Bytes{});
}

// A value named "... units": decimal.
std::uint64_t documented_units(const std::string& label) {
  const std::string text = doc().hex(label);
  if (text.empty()) {
    ADD_FAILURE() << "docs/streams.md has no value '" << label << "'";
    return 0;
  }
  return std::stoull(text);
}

base::Bytes bytes_of(const Hash& hash) { return base::Bytes(hash.begin(), hash.end()); }

base::Bytes joined(const std::vector<Hash>& hashes) {
  base::Bytes out;
  for (const Hash& hash : hashes) out.insert(out.end(), hash.begin(), hash.end());
  return out;
}

Hash hash_n(std::uint8_t n) {
  Hash h{};
  h.fill(n);
  return h;
}

// The page's example, as its text describes it.
constexpr std::uint32_t kLength = 50;
constexpr Amount kPrice = 1'000;
constexpr Amount kDeposit = 45'500;
constexpr std::uint64_t kExpiry = 5'000;
Hash seed() { return hash_n(0x5e); }
Id opening_tx() { return hash_n(0x6f); }
Id payer_id() { return hash_n(0xa1); }
Id payee_id() { return hash_n(0xb2); }

Chain example_chain() { return build_chain(seed(), kLength).value(); }

OpenStream example_open(const Chain& chain) {
  OpenStream open;
  open.payee = payee_id();
  open.price = kPrice;
  open.length = kLength;
  open.anchor = chain.anchor;
  open.checkpoints = chain.root;
  open.deposit = kDeposit;
  open.expiry_height = kExpiry;
  open.coins = {hash_n(0xc1)};
  return open;
}

Stream example_stream(const Chain& chain) {
  return Stream{.payer = payer_id(),
                .payee = payee_id(),
                .price = kPrice,
                .length = kLength,
                .anchor = chain.anchor,
                .checkpoints = chain.root,
                .deposit = kDeposit,
                .expiry_height = kExpiry,
                .settled = 0,
                .settled_element = chain.anchor};
}

TEST(StreamsKnownAnswers, TheChain) {
  EXPECT_EQ(bytes_of(seed()), documented("seed"));
  for (const std::uint32_t i : {49u, 45u, 31u, 27u, 5u, 1u}) {
    EXPECT_EQ(bytes_of(walk(seed(), kLength - i)), documented("x[" + std::to_string(i) + "]")) << i;
  }
  EXPECT_EQ(chain_step(seed()), walk(seed(), 1));
  const Chain chain = example_chain();
  EXPECT_EQ(bytes_of(chain.anchor), documented("anchor"));
  // The spacings and counts the page states.
  struct Shape {
    std::uint32_t length, spacing, count;
  };
  for (const Shape& shape : {Shape{1, 1, 1}, Shape{20, 8, 2}, Shape{kLength, 8, 6}, Shape{1u << 20, 1'024, 1'024},
                             Shape{(1u << 20) - 512, 1'024, 1'023}, Shape{kMaxLength, 65'536, 65'535}}) {
    EXPECT_EQ(checkpoint_spacing(shape.length), shape.spacing) << shape.length;
    EXPECT_EQ(checkpoint_count(shape.length), shape.count) << shape.length;
  }
}

TEST(StreamsKnownAnswers, CheckpointsAndTheirTree) {
  const Chain chain = example_chain();
  ASSERT_EQ(chain.checkpoints.size(), 6u);
  std::vector<Hash> leaves;
  for (std::uint32_t j = 1; j <= 6; ++j) {
    const Hash& checkpoint = chain.checkpoints[j - 1];
    EXPECT_EQ(bytes_of(checkpoint), documented("checkpoint " + std::to_string(j)));
    EXPECT_EQ(checkpoint, walk(seed(), kLength - 8 * j));
    leaves.push_back(kCheckpointHasher.leaf(checkpoint));
    EXPECT_EQ(bytes_of(leaves.back()), documented("leaf " + std::to_string(j)));
  }
  const Hash node_12 = kCheckpointHasher.node(leaves[0], leaves[1]);
  const Hash node_34 = kCheckpointHasher.node(leaves[2], leaves[3]);
  const Hash node_56 = kCheckpointHasher.node(leaves[4], leaves[5]);
  const Hash node_14 = kCheckpointHasher.node(node_12, node_34);
  EXPECT_EQ(bytes_of(node_12), documented("node 1-2"));
  EXPECT_EQ(bytes_of(node_34), documented("node 3-4"));
  EXPECT_EQ(bytes_of(node_56), documented("node 5-6"));
  EXPECT_EQ(bytes_of(node_14), documented("node 1-4"));
  EXPECT_EQ(bytes_of(chain.root), documented("checkpoint root"));
  EXPECT_EQ(chain.root, kCheckpointHasher.node(node_14, node_56));
  EXPECT_EQ(chain.root, checkpoint_root(chain.checkpoints));

  const auto path_3 = checkpoint_path(chain.checkpoints, 3);
  const auto path_5 = checkpoint_path(chain.checkpoints, 5);
  ASSERT_TRUE(path_3.ok() && path_5.ok());
  EXPECT_EQ(joined(*path_3), documented("path 3"));
  EXPECT_EQ(joined(*path_5), documented("path 5"));
  for (std::uint32_t j = 1; j <= 6; ++j) {
    const auto path = checkpoint_path(chain.checkpoints, j);
    ASSERT_TRUE(path.ok());
    EXPECT_TRUE(proves_checkpoint(chain.checkpoints[j - 1], j, 6, *path, chain.root)) << j;
  }
  EXPECT_FALSE(proves_checkpoint(chain.checkpoints[3], 4, 6, *path_3, chain.root));
  EXPECT_FALSE(proves_checkpoint(chain.checkpoints[2], 3, 4, *path_3, chain.root));  // a path one hash too long
  EXPECT_FALSE(proves_checkpoint(chain.checkpoints[2], 0, 6, *path_3, chain.root));
  EXPECT_FALSE(proves_checkpoint(chain.checkpoints[2], 7, 6, *path_3, chain.root));
  EXPECT_FALSE(proves_checkpoint(chain.checkpoints[2], 3, 6, *path_3, node_14));
  EXPECT_FALSE(checkpoint_path(chain.checkpoints, 0).ok());
  EXPECT_FALSE(checkpoint_path(chain.checkpoints, 7).ok());
}

TEST(StreamsKnownAnswers, OpeningTheStream) {
  const Chain chain = example_chain();
  EXPECT_EQ(codec::encode(example_open(chain)), documented("open"));
  EXPECT_EQ(bytes_of(stream_id(opening_tx())), documented("stream id"));
  const Stream stream = example_stream(chain);
  EXPECT_EQ(codec::encode(stream), documented("stream"));
  EXPECT_EQ(codec::encode(stream).size(), 192u);
  EXPECT_EQ(codec::encode(to_object(stream, 1)), documented("stream object"));
  EXPECT_EQ(stream_from(to_object(stream, 1)).value(), stream);
}

// A settlement's or close's step 7, applied to a state holding the
// example's stream as `stream` alone; `state` holds what it wrote.
struct Applied {
  std::unique_ptr<ledger::MemoryState> pre;
  std::unique_ptr<ledger::Overlay> state;
  ledger::BodyFee fee;
};

template <class Body>
Applied apply(const state::Object& stream, const Body& body, const Id& sender, std::uint64_t height, Amount fee,
              const Id& tx) {
  const std::array<state::ObjectWrite, 1> writes{state::ObjectWrite{stream_id(opening_tx()), stream}};
  Applied applied;
  applied.pre = std::make_unique<ledger::MemoryState>(ledger::MemoryState::from_writes(writes).value());
  applied.state = std::make_unique<ledger::Overlay>(*applied.pre);
  const std::array<Id, 2> new_ids{ledger::coin_id(tx, 0), ledger::coin_id(tx, 1)};
  const ledger::BodyFeeRequest request{
      tx, sender, fee, height, std::span<const Id>(new_ids.data(), max_created_objects(body)), std::nullopt};
  applied.fee = pay_fee_from_body(*applied.state, body, request).value();
  return applied;
}

// The object written under `id`, encoded; empty if deleted or not written.
base::Bytes written(const ledger::Overlay& state, const Id& id) {
  for (const state::ObjectWrite& write : state.write_set()) {
    if (write.id == id && write.object) return codec::encode(*write.object);
  }
  return {};
}

bool deleted(const ledger::Overlay& state, const Id& id) {
  for (const state::ObjectWrite& write : state.write_set()) {
    if (write.id == id) return !write.object.has_value();
  }
  return false;
}

state::Object object_of(const base::Bytes& encoded) { return codec::decode<state::Object>(encoded).value(); }

TEST(StreamsKnownAnswers, SettlementsACloseAndThePayersRecord) {
  const Chain chain = example_chain();
  const Id stream = stream_id(opening_tx());
  const state::Object opened = to_object(example_stream(chain), 1);
  auto payer = StreamPayer::create(seed(), kLength).value();
  auto payee = StreamPayee::open(stream, example_stream(chain), payer.checkpoints()).value();
  const auto pay_until = [&](std::uint32_t index) {
    while (payee.accepted() < index) {
      const auto verdict = payee.accept(payer.next().value());
      ASSERT_TRUE(verdict) << verdict.reason;
    }
  };
  // From the anchor, after payment 5: not applied below, but it holds.
  pay_until(5);
  const SettleStream settle_5 = payee.settle_by_checkpoint().value();
  EXPECT_EQ(codec::encode(settle_5), documented("settle 5"));
  EXPECT_EQ(work_units(settle_5), documented_units("settle 5 units"));
  EXPECT_EQ(apply(opened, settle_5, payee_id(), 4'000, 2'000, hash_n(0x70)).fee.status, TxStatus::success);

  // By checkpoint to 27: transaction 71 x 32, height 4000, fee 2000.
  pay_until(27);
  const SettleStream settle_27 = payee.settle_by_checkpoint().value();
  EXPECT_EQ(codec::encode(settle_27), documented("settle 27"));
  EXPECT_EQ(work_units(settle_27), documented_units("settle 27 units"));
  const Applied thief = apply(opened, settle_27, payer_id(), 4'000, 2'000, hash_n(0x71));
  EXPECT_EQ(thief.fee.status, TxStatus::not_stream_payee);
  EXPECT_TRUE(thief.state->write_set().empty());
  const Applied late = apply(opened, settle_27, payee_id(), kExpiry + 1, 2'000, hash_n(0x71));
  EXPECT_EQ(late.fee.status, TxStatus::stream_expired);
  EXPECT_TRUE(late.state->write_set().empty());
  const Applied paid_27 = apply(opened, settle_27, payee_id(), 4'000, 2'000, hash_n(0x71));
  EXPECT_EQ(paid_27.fee.status, TxStatus::success);
  EXPECT_EQ(paid_27.fee.coins_created, 1u);
  EXPECT_EQ(bytes_of(ledger::coin_id(hash_n(0x71), 0)), documented("payee coin 1 id"));
  EXPECT_EQ(written(*paid_27.state, ledger::coin_id(hash_n(0x71), 0)), documented("payee coin 1"));
  EXPECT_EQ(written(*paid_27.state, stream), documented("stream v2"));
  EXPECT_EQ(paid_27.state->write_set().size(), 2u);
  const state::Object stream_v2 = object_of(documented("stream v2"));

  // Walked from 27 to 31: transaction 72 x 32, height 4500, fee 1000.
  pay_until(31);
  const streams::PayerRecord record_31 = payer.record();
  const SettleStream walk_31 = payee.settle_walked(27).value();
  EXPECT_EQ(codec::encode(walk_31), documented("walk 31"));
  EXPECT_EQ(work_units(walk_31), documented_units("walk 31 units"));
  const Applied paid_31 = apply(stream_v2, walk_31, payee_id(), 4'500, 1'000, hash_n(0x72));
  EXPECT_EQ(paid_31.fee.status, TxStatus::success);
  EXPECT_EQ(paid_31.fee.coins_created, 1u);
  EXPECT_EQ(bytes_of(ledger::coin_id(hash_n(0x72), 0)), documented("payee coin 2 id"));
  EXPECT_EQ(written(*paid_31.state, ledger::coin_id(hash_n(0x72), 0)), documented("payee coin 2"));
  EXPECT_EQ(written(*paid_31.state, stream), documented("stream v3"));
  const state::Object stream_v3 = object_of(documented("stream v3"));

  // By checkpoint to 45, which uses the stream up: transaction 73 x 32,
  // height 4800, fee 1000. Payment 46 would pass the deposit.
  pay_until(45);
  const auto refused = payee.accept(payer.next().value());
  EXPECT_EQ(refused.refusal, Refusal::beyond_deposit);
  const SettleStream settle_45 = payee.settle_by_checkpoint().value();
  EXPECT_EQ(codec::encode(settle_45), documented("settle 45"));
  EXPECT_EQ(work_units(settle_45), documented_units("settle 45 units"));
  const Applied paid_45 = apply(stream_v3, settle_45, payee_id(), 4'800, 1'000, hash_n(0x73));
  EXPECT_EQ(paid_45.fee.status, TxStatus::success);
  EXPECT_EQ(paid_45.fee.coins_created, 2u);
  EXPECT_EQ(bytes_of(ledger::coin_id(hash_n(0x73), 0)), documented("payee coin 3 id"));
  EXPECT_EQ(written(*paid_45.state, ledger::coin_id(hash_n(0x73), 0)), documented("payee coin 3"));
  EXPECT_EQ(bytes_of(ledger::coin_id(hash_n(0x73), 1)), documented("refund id"));
  EXPECT_EQ(written(*paid_45.state, ledger::coin_id(hash_n(0x73), 1)), documented("refund"));
  EXPECT_TRUE(deleted(*paid_45.state, stream));
  const std::array<Id, 1> close_ids{ledger::coin_id(hash_n(0x75), 0)};
  const ledger::BodyFeeRequest late_close{hash_n(0x75), payer_id(), 1'500, kExpiry + 1, close_ids, std::nullopt};
  EXPECT_EQ(pay_fee_from_body(*paid_45.state, CloseStream{stream}, late_close).value().status,
            TxStatus::unknown_stream);

  // Instead, after the walked settlement, the payer closes: transaction
  // 74 x 32, height 5001, fee 1500.
  const CloseStream close{stream};
  EXPECT_EQ(codec::encode(close), documented("close"));
  EXPECT_EQ(apply(stream_v3, close, payer_id(), kExpiry, 1'500, hash_n(0x74)).fee.status, TxStatus::stream_not_expired);
  EXPECT_EQ(apply(stream_v3, close, payee_id(), kExpiry + 1, 1'500, hash_n(0x74)).fee.status,
            TxStatus::not_stream_payer);
  const Applied closed = apply(stream_v3, close, payer_id(), kExpiry + 1, 1'500, hash_n(0x74));
  EXPECT_EQ(closed.fee.status, TxStatus::success);
  EXPECT_EQ(closed.fee.coins_created, 1u);
  EXPECT_EQ(bytes_of(ledger::coin_id(hash_n(0x74), 0)), documented("close refund id"));
  EXPECT_EQ(written(*closed.state, ledger::coin_id(hash_n(0x74), 0)), documented("close refund"));
  EXPECT_TRUE(deleted(*closed.state, stream));
  EXPECT_EQ(closed.state->write_set().size(), 2u);

  // The payer's record after 31 payments, and the anchor it resumes with.
  EXPECT_EQ(codec::encode(record_31), documented("payer record"));
  EXPECT_EQ(StreamPayer::resume(record_31).value().anchor(), chain.anchor);
}

TEST(StreamsKnownAnswers, ThePageHasNoProblems) {
  for (const std::string& problem : doc().problems()) ADD_FAILURE() << problem;
}

}  // namespace
}  // namespace sion::streams
