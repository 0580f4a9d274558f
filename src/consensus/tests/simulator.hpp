#pragma once
// A deterministic simulator for the consensus core (docs/consensus.md,
// "Testing"): n cores in one process on a simulated network with seeded
// delays, drops, partitions, crashes and restarts from what each validator
// persisted, Byzantine validators (twins: one key run twice, each twin
// talking to half of the others; mute validators withholding messages),
// storage faults and a validator whose execution diverges. Every commit is
// checked against every other validator's (safety); after the faults heal,
// every honest validator must go on committing (liveness). One seed
// determines a run completely, so a failing seed replays exactly.

#include <cstdint>
#include <string>
#include <vector>

namespace sion::consensus::sim {

struct Scenario {
  std::uint64_t seed = 1;
  std::uint32_t validators = 4;
  std::uint64_t duration_ms = 12'000;
  std::uint64_t heal_ms = 6'000;  // every fault has ended by then
  std::uint32_t min_delay_ms = 1;
  std::uint32_t max_delay_ms = 20;
  std::uint32_t drop_per_mille = 0;  // before heal_ms
  std::uint32_t partitions = 0;      // partitions before heal_ms, one after another
  std::uint32_t crashes = 0;         // crash-restarts of honest validators before heal_ms
  bool lost_writes = false;          // a crash loses the commits written since the ledger's last sync
  std::uint32_t twins = 0;           // Byzantine: run twice with one key
  std::uint32_t mute = 0;            // Byzantine: withhold messages from some validators
  std::uint32_t storage_faults = 0;  // validators whose disk fails from some time on: they must halt
  std::uint32_t bad_executors = 0;   // validators whose execution diverges: they must halt
  bool restart_all = false;          // every validator crashes at one time before heal_ms and restarts
  std::uint64_t batch_interval_ms = 20;
  std::uint64_t max_own_uncertified = 2;  // CoreOptions' default
  // Every core votes twice in a round when it can (CoreOptions); the
  // simulator must catch it.
  bool unsafe_round_check = false;

  // The scenario a seed picks: faults drawn from the seed, within f.
  static Scenario random(std::uint64_t seed, std::uint32_t validators);
  std::string describe() const;
};

struct Outcome {
  bool safe = true;
  std::string violation;  // the first safety violation, with its time
  bool live = true;
  std::string liveness_problem;
  std::uint64_t height_at_heal = 0;  // the highest honest height when the faults ended
  std::uint64_t final_min_height = 0;
  std::uint64_t final_max_height = 0;
  std::uint64_t messages = 0;
  std::uint64_t commits = 0;
  std::uint64_t evidence = 0;
  std::uint64_t most_own_uncertified = 0;  // the most batches of one lane awaiting a certificate at once
  std::vector<std::string> halts;          // "validator i: reason"
};

Outcome run(const Scenario& scenario);

}  // namespace sion::consensus::sim
