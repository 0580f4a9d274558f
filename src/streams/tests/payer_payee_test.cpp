// The payer's and payee's sides (docs/streams.md, "Paying", "Being paid").
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "sion/streams/payee.hpp"
#include "sion/streams/payer.hpp"

namespace sion::streams {
namespace {

Hash hash_n(std::uint8_t n) {
  Hash h{};
  h.fill(n);
  return h;
}

// The stream as OpenStream stores it for a payer's chain.
Stream opened(const StreamPayer& payer, Amount price, Amount deposit) {
  return Stream{.payer = hash_n(0xa0),
                .payee = hash_n(0xb0),
                .price = price,
                .length = payer.length(),
                .anchor = payer.anchor(),
                .checkpoints = payer.checkpoint_root(),
                .deposit = deposit,
                .expiry_height = 100,
                .settled = 0,
                .settled_element = payer.anchor()};
}

TEST(Payer, RevealsEveryElementInOrder) {
  const Hash seed = hash_n(3);
  for (const std::uint32_t n : {1u, 2u, 3u, 5u, 16u, 17u, 100u, 1000u}) {
    auto payer = StreamPayer::create(seed, n);
    ASSERT_TRUE(payer.ok());
    EXPECT_EQ(payer->anchor(), walk(seed, n));
    for (std::uint32_t i = 1; i <= n; ++i) {
      const auto payment = payer->next();
      ASSERT_TRUE(payment.ok());
      EXPECT_EQ(payment->index, i);
      ASSERT_EQ(payment->element, walk(seed, n - i)) << n << " " << i;
    }
    EXPECT_FALSE(payer->next().ok());
  }
}

TEST(Payer, ResumesFromItsRecord) {
  const Hash seed = hash_n(4);
  auto payer = StreamPayer::create(seed, 300).value();
  for (int i = 0; i < 37; ++i) ASSERT_TRUE(payer.next().ok());
  auto resumed = StreamPayer::resume(payer.record());
  ASSERT_TRUE(resumed.ok());
  EXPECT_EQ(resumed->anchor(), payer.anchor());
  for (int i = 0; i < 263; ++i) ASSERT_EQ(resumed->next().value(), payer.next().value());

  PayerRecord bad = payer.record();
  bad.revealed = 301;
  EXPECT_FALSE(StreamPayer::resume(bad).ok());
  bad = payer.record();
  bad.checkpoints.pop_back();
  EXPECT_FALSE(StreamPayer::resume(bad).ok());
  bad.length = 0;
  EXPECT_FALSE(StreamPayer::resume(bad).ok());
}

TEST(Payee, AcceptsEachPaymentWithOneHashAndRefusesTheRest) {
  auto payer = StreamPayer::create(hash_n(5), 50).value();
  auto payee = StreamPayee::open(hash_n(9), opened(payer, 2, 60), payer.checkpoints()).value();
  const Payment first = payer.next().value();
  const Payment second = payer.next().value();
  const Payment third = payer.next().value();

  EXPECT_EQ(payee.accept(second).refusal, Refusal::out_of_order);
  Payment forged = first;
  forged.element[0] ^= 1;
  EXPECT_EQ(payee.accept(forged).refusal, Refusal::forged);
  EXPECT_TRUE(payee.accept(first));
  EXPECT_EQ(payee.accept(first).refusal, Refusal::replayed);
  EXPECT_TRUE(payee.accept(second));
  EXPECT_TRUE(payee.accept(third));
  EXPECT_EQ(payee.accepted(), 3u);
  EXPECT_EQ(payee.owed_since(1), 4u);
  EXPECT_EQ(payee.accept(Payment{51, hash_n(1)}).refusal, Refusal::past_end);
  // A deposit of 60 at 2 a step covers 30 payments.
  for (int i = 4; i <= 30; ++i) ASSERT_TRUE(payee.accept(payer.next().value())) << i;
  const auto refused = payee.accept(payer.next().value());
  EXPECT_EQ(refused.refusal, Refusal::beyond_deposit);
  EXPECT_NE(refused.reason.find("deposit"), std::string::npos);

  const auto resumed = StreamPayee::resume(payee.record());
  ASSERT_TRUE(resumed.ok());
  EXPECT_EQ(resumed->accepted(), 30u);
}

TEST(Payee, RefusesCheckpointsThatAreNotTheStreams) {
  auto payer = StreamPayer::create(hash_n(6), 64).value();
  Checkpoints wrong = payer.checkpoints();
  wrong[0][0] ^= 1;
  EXPECT_FALSE(StreamPayee::open(hash_n(9), opened(payer, 1, 64), wrong).ok());
  Checkpoints short_list = payer.checkpoints();
  short_list.pop_back();
  EXPECT_FALSE(StreamPayee::open(hash_n(9), opened(payer, 1, 64), short_list).ok());

  // A payer whose list (and root) lies about a checkpoint: the payee finds
  // out when the checkpoint is paid.
  Stream lying = opened(payer, 1, 64);
  lying.checkpoints = checkpoint_root(wrong);
  auto payee = StreamPayee::open(hash_n(9), lying, wrong).value();
  const std::uint32_t c = checkpoint_spacing(64);
  for (std::uint32_t i = 1; i < c; ++i) ASSERT_TRUE(payee.accept(payer.next().value()));
  EXPECT_EQ(payee.accept(payer.next().value()).refusal, Refusal::checkpoint_mismatch);
}

TEST(Payee, SettlementsCarryTheCheckpointBelowAndItsPath) {
  auto payer = StreamPayer::create(hash_n(7), 100).value();  // c = 16, 6 checkpoints
  auto payee = StreamPayee::open(hash_n(9), opened(payer, 1, 100), payer.checkpoints()).value();
  EXPECT_FALSE(payee.settle_by_checkpoint().ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(payee.accept(payer.next().value()));
  auto early = payee.settle_by_checkpoint().value();
  EXPECT_EQ(early.from, 0u);
  EXPECT_EQ(early.index, 5u);
  ASSERT_TRUE(early.path.has_value());
  EXPECT_TRUE(early.path->empty());
  EXPECT_EQ(walk(early.element, 5), payer.anchor());

  for (int i = 5; i < 70; ++i) ASSERT_TRUE(payee.accept(payer.next().value()));
  const auto body = payee.settle_by_checkpoint().value();
  EXPECT_EQ(body.from, 64u);
  EXPECT_EQ(body.index, 70u);
  const Hash checkpoint = walk(body.element, 6);
  EXPECT_TRUE(proves_checkpoint(checkpoint, 4, 6, *body.path, payer.checkpoint_root()));

  const auto walked = payee.settle_walked(5).value();
  EXPECT_EQ(walked.from, 5u);
  EXPECT_FALSE(walked.path.has_value());
  EXPECT_EQ(walk(walked.element, 65), early.element);
  EXPECT_FALSE(payee.settle_walked(70).ok());
}

// accept_in_lanes gives every payee the verdict accept() gives, refusals
// and reasons included, over spans of more than one group of lanes and
// with a payee listed twice in one span.
TEST(Payee, AcceptsInLanesAsOneByOne) {
  auto honest = StreamPayer::create(hash_n(11), 40).value();
  auto lied_about = StreamPayer::create(hash_n(12), 64).value();  // c = 8
  std::vector<Payment> honest_payments;
  for (std::uint32_t i = 0; i < honest.length(); ++i) honest_payments.push_back(honest.next().value());
  std::vector<Payment> lied_payments;
  for (std::uint32_t i = 0; i < lied_about.length(); ++i) lied_payments.push_back(lied_about.next().value());
  Checkpoints wrong = lied_about.checkpoints();
  wrong[2][0] ^= 1;  // x[24]: refused as checkpoint_mismatch when paid
  Stream lying = opened(lied_about, 1, 64);
  lying.checkpoints = checkpoint_root(wrong);

  // Payee k: a deposit for 20 of 40 steps (k % 3 == 0), the whole chain
  // (1), or a lying checkpoint list (2). Twins: one accepts one by one,
  // the other in lanes.
  constexpr std::size_t kPayees = 11;
  const auto make = [&](std::size_t k) {
    if (k % 3 == 2) return StreamPayee::open(hash_n(static_cast<std::uint8_t>(k)), lying, wrong).value();
    return StreamPayee::open(hash_n(static_cast<std::uint8_t>(k)), opened(honest, 1, k % 3 == 0 ? 20 : 40),
                             honest.checkpoints())
        .value();
  };
  std::vector<StreamPayee> solo;
  std::vector<StreamPayee> lanes;
  for (std::size_t k = 0; k < kPayees; ++k) {
    solo.push_back(make(k));
    lanes.push_back(make(k));
  }
  const auto payment = [&](std::size_t k, std::uint32_t index, bool forge) {
    const std::vector<Payment>& chain = k % 3 == 2 ? lied_payments : honest_payments;
    Payment p{index, index >= 1 && index <= chain.size() ? chain[index - 1].element : hash_n(0x77)};
    if (forge) p.element[5] ^= 0x10;
    return p;
  };

  std::set<int> seen;  // refusal codes, 0 for accepted
  for (std::uint32_t round = 0; round < 90; ++round) {
    std::vector<std::size_t> who;
    std::vector<Payment> pays;
    for (std::size_t k = 0; k < kPayees; ++k) {
      const std::uint32_t next = lanes[k].accepted() + 1;
      const std::uint32_t pick = (round + static_cast<std::uint32_t>(k)) % 9;
      const std::uint32_t index = pick == 4 ? next - 1 : pick == 6 ? next + 1 : pick == 8 ? 70 : next;
      who.push_back(k);
      pays.push_back(payment(k, index, pick == 2));
    }
    // Payee round % kPayees again, with the payment after its first one.
    const std::size_t again = round % kPayees;
    who.push_back(again);
    pays.push_back(payment(again, pays[again].index + 1, false));

    std::vector<PaymentVerdict> expected;
    for (std::size_t i = 0; i < who.size(); ++i) expected.push_back(solo[who[i]].accept(pays[i]));
    std::vector<StreamPayee*> pointers;
    for (const std::size_t k : who) pointers.push_back(&lanes[k]);
    std::vector<PaymentVerdict> got(who.size());
    ASSERT_TRUE(StreamPayee::accept_in_lanes(pointers, pays, got.data()).ok());
    for (std::size_t i = 0; i < who.size(); ++i) {
      ASSERT_EQ(got[i].refusal, expected[i].refusal) << round << " " << i;
      ASSERT_EQ(got[i].reason, expected[i].reason) << round << " " << i;
      seen.insert(expected[i].refusal ? static_cast<int>(*expected[i].refusal) : 0);
    }
  }
  for (std::size_t k = 0; k < kPayees; ++k) EXPECT_EQ(lanes[k].record(), solo[k].record()) << k;
  EXPECT_EQ(seen, (std::set<int>{0, 1, 2, 3, 4, 5, 6}));

  StreamPayee* one[] = {&lanes[0]};
  PaymentVerdict out[2];
  const Payment two[] = {payment(0, 1, false), payment(0, 2, false)};
  const auto mismatched = StreamPayee::accept_in_lanes(one, two, out);
  ASSERT_FALSE(mismatched.ok());
  EXPECT_EQ(mismatched.error().code, base::Errc::invalid_argument);
}

}  // namespace
}  // namespace sion::streams
