#include "sion/exec/availability.hpp"

#include <gtest/gtest.h>

#include "ledger_fixture.hpp"
#include "sion/da/repair.hpp"
#include "sion/da/sampling.hpp"

namespace sion::exec {
namespace {

using testing::id_of;
using testing::signer;

std::vector<Transaction> some_transfers(testing::World& world, int count) {
  const auto alice = signer(1, crypto::Profile::dual);
  const auto bob = signer(2);
  std::vector<Transaction> txs;
  for (int i = 0; i < count; ++i) {
    const Id coin = world.fund(id_of(alice), 1'000'000);
    txs.push_back(world.transfer(alice, static_cast<std::uint64_t>(i), {coin}, {{id_of(bob), 10}}));
  }
  return txs;
}

// A count is attacker data: 8 MiB of PulseData claiming 2^24 payloads used
// to reserve one TxPayload per byte left, about 930 MB. Reservation now
// stops at what the bytes could encode.
TEST(Availability, ACraftedCountReservesNoMoreThanTheInputCouldHold) {
  base::Bytes bytes = {0x80, 0x80, 0x80, 0x08};  // 2^24, the list's maximum
  bytes.resize(da::kMaxDataBytes, 0);
  codec::Reader reader(bytes, "PulseData");
  codec::List<TxPayload, kMaxPublishedTransactions> payloads;
  codec::decode_from(reader, payloads);
  EXPECT_FALSE(reader.ok());
  // The bytes could encode this many, plus the one a failure stops in.
  EXPECT_LE(payloads.capacity(), bytes.size() / codec::min_encoded_size<TxPayload> + 1)
      << payloads.capacity() << " payloads reserved; the smallest encoding is " << codec::min_encoded_size<TxPayload>;
  EXPECT_FALSE(decode_pulse_data(bytes).ok());
}

TEST(Availability, PublishedDataIsThePayloadsAndComesBackFromARepairedSquare) {
  testing::World world;
  const std::vector<Transaction> txs = some_transfers(world, 12);
  base::Executor executor(2);
  auto published = publish_pulse(txs, &executor);
  ASSERT_TRUE(published);
  const base::Bytes data = pulse_data(txs);
  EXPECT_EQ(published->commitment.data_bytes, data.size());
  EXPECT_TRUE(da::check_commitment(published->commitment));
  EXPECT_EQ(published->commitment.data_root, published->trees.data_root());
  // Signatures are not published: the data is far smaller than the Pulse.
  std::size_t whole = 0;
  for (const auto& tx : txs) whole += codec::encode(tx).size();
  EXPECT_LT(data.size() * 10, whole);

  // A node holding only the parity quadrants rebuilds the payloads.
  da::ExtendedSquare received = published->square;
  const std::uint32_t k = received.original_width();
  for (std::uint32_t r = 0; r < k; ++r) {
    for (std::uint32_t c = 0; c < k; ++c) received.erase(r, c);
  }
  ASSERT_TRUE(da::repair(received, published->trees.header()));
  const auto data_back = da::published_data(received, published->commitment);
  ASSERT_TRUE(data_back) << data_back.error().reason;
  const auto payloads = decode_pulse_data(*data_back);
  ASSERT_TRUE(payloads);
  ASSERT_EQ(payloads->size(), txs.size());
  for (std::size_t i = 0; i < txs.size(); ++i) EXPECT_EQ((*payloads)[i], txs[i].payload);

  // And a light client samples it.
  const da::ShareFetcher fetch = [&](std::uint32_t row, std::uint32_t col) -> base::Result<da::ShareProof> {
    return da::prove_share(published->square, published->trees, da::Axis::row, row, col);
  };
  EXPECT_TRUE(da::sample_availability(published->commitment, 8, fetch));
}

TEST(Availability, AnEmptyPulsePublishesOneShare) {
  auto published = publish_pulse({});
  ASSERT_TRUE(published);
  EXPECT_EQ(published->commitment.original_width, 1U);
  EXPECT_EQ(published->commitment.data_bytes, 1U);  // the list's count, 0
  EXPECT_TRUE(decode_pulse_data(pulse_data({}))->empty());
}

TEST(Availability, DataLargerThanOneSquareIsRefused) {
  Transaction big;
  Transfer transfer;
  transfer.inputs.assign(kMaxTransferInputs, Id{});
  transfer.outputs.assign(kMaxTransferOutputs, Output{});
  big.payload.body = transfer;
  const std::size_t payload_bytes = codec::encode(big.payload).size();
  const std::vector<Transaction> txs(da::kMaxDataBytes / payload_bytes + 1, big);
  const auto published = publish_pulse(txs);
  ASSERT_FALSE(published);
  EXPECT_EQ(published.error().code, base::Errc::invalid_argument);
  EXPECT_NE(published.error().reason.find("one square holds at most 8388608"), std::string::npos);
}

TEST(Availability, MalformedDataIsRefusedWithAReason) {
  testing::World world;
  const base::Bytes data = pulse_data(some_transfers(world, 2));
  const auto cut = decode_pulse_data(base::ByteView(data).first(data.size() - 1));
  ASSERT_FALSE(cut);
  EXPECT_FALSE(cut.error().reason.empty());
  base::Bytes padded = data;
  padded.push_back(0);  // square padding must not be passed on
  EXPECT_EQ(decode_pulse_data(padded).error().code, base::Errc::trailing_bytes);
}

}  // namespace
}  // namespace sion::exec
