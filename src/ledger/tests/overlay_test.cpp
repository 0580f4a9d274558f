// The overlay a transaction sees: the pre-state plus the writes so far
// (docs/ledger.md, "Pulse execution").
#include "sion/ledger/overlay.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "sion/ledger/state_view.hpp"
#include "test_ids.hpp"

namespace sion::ledger {
namespace {

using testing::id_n;

// Counts the reads that reach the pre-state.
class CountingView final : public StateView {
 public:
  explicit CountingView(const StateView& inner) noexcept : inner_(inner) {}
  base::Result<std::optional<state::Object>> get(const Id& id) const override {
    ++reads;
    return inner_.get(id);
  }
  mutable std::size_t reads = 0;

 private:
  const StateView& inner_;
};

TEST(Overlay, WriteSetIsSortedFinalValuesAndDeletionsOfPreStateObjectsOnly) {
  const state::ObjectWrite held{id_n(5), to_object(Coin{id_n(1), 10}, 1)};
  const auto pre = MemoryState::from_writes({&held, 1}).value();
  Overlay overlay(pre);
  overlay.put(id_n(9), to_object(Coin{id_n(2), 3}, 1));
  overlay.put(id_n(7), to_object(Coin{id_n(2), 4}, 1));
  overlay.erase(id_n(7));  // created and deleted here: no trace
  ASSERT_TRUE(overlay.find(id_n(5)).ok());
  overlay.erase(id_n(5));                   // held in the pre-state: a deletion
  ASSERT_TRUE(overlay.find(id_n(6)).ok());  // only read: no write
  const auto writes = overlay.write_set();
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(writes[0].id, id_n(5));
  EXPECT_FALSE(writes[0].object.has_value());
  EXPECT_EQ(writes[1].id, id_n(9));
  EXPECT_EQ(coin_from(*writes[1].object).value(), (Coin{id_n(2), 3}));
}

TEST(Overlay, ReadsEachIdFromThePreStateOnce) {
  const Id c1 = id_n(5);
  const state::ObjectWrite held{c1, to_object(Coin{id_n(1), 10}, 1)};
  const auto pre = MemoryState::from_writes({&held, 1}).value();
  CountingView counting(pre);
  Overlay overlay(counting);
  EXPECT_TRUE(overlay.get(c1).value());
  EXPECT_TRUE(overlay.get(c1).value());
  EXPECT_EQ(counting.reads, 1u);
  const Id absent = id_n(77);
  EXPECT_FALSE(overlay.find(absent).value());
  EXPECT_FALSE(overlay.find(absent).value());
  EXPECT_EQ(counting.reads, 2u);
  // Reads alone write nothing; a deletion of a read object is a write.
  EXPECT_TRUE(overlay.write_set().empty());
  overlay.erase(c1);
  EXPECT_FALSE(overlay.get(c1).value());
  ASSERT_EQ(overlay.write_set().size(), 1u);
  EXPECT_FALSE(overlay.write_set()[0].object);
  // Creating and deleting an id the pre-state never held leaves no trace.
  overlay.put(absent, to_object(Coin{id_n(2), 5}, 1));
  overlay.erase(absent);
  EXPECT_EQ(overlay.write_set().size(), 1u);
  EXPECT_EQ(counting.reads, 2u);
  // read_coin sees the overlay's own writes.
  overlay.put(c1, to_object(Coin{id_n(1), 11}, 2));
  EXPECT_EQ(read_coin(overlay, c1).value(), (Coin{id_n(1), 11}));
  EXPECT_EQ(counting.reads, 2u);
}

TEST(Overlay, ReadCoinTakesAnAccountForNoCoin) {
  const state::ObjectWrite held{id_n(5), to_object(Account{id_n(3), 0}, 1)};
  const auto pre = MemoryState::from_writes({&held, 1}).value();
  const Overlay overlay(pre);
  EXPECT_EQ(read_coin(overlay, id_n(5)).value(), std::nullopt);
}

}  // namespace
}  // namespace sion::ledger
