// ChainStore: commit and read back, restart, genesis checks, failed writes
// (injected and real), a writer killed mid-commit, and the restart time of
// a long chain.

#include "sion/node/chain_store.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <thread>

#include "chain_fixture.hpp"
#include "sion/base/testing/sanitizers.hpp"
#include "sion/base/testing/temp_dir.hpp"
#include "sion/commit/smt_proof.hpp"
#include "sion/node/replay.hpp"

#ifndef SION_CHAIN_WRITER
#error "SION_CHAIN_WRITER names the chain_writer binary"
#endif

namespace sion::node {
namespace {

using base::testing::TempDir;
using testing::ChainFixture;

std::unique_ptr<ChainStore> open_store(const std::string& directory, const ChainStoreOptions& options = {}) {
  auto store = ChainStore::open(directory, options);
  EXPECT_TRUE(store.ok()) << store.error().to_string();
  return store ? std::move(*store) : nullptr;
}

std::unique_ptr<ChainStore> new_chain(const std::string& directory, ChainFixture& chain,
                                      const ChainStoreOptions& options = {}) {
  auto store = open_store(directory, options);
  if (!store) return nullptr;
  const auto status = store->initialize(chain.genesis_writes, chain.genesis_root, chain.params);
  EXPECT_TRUE(status.ok()) << status.error().to_string();
  return store;
}

// Everything stored agrees with a replay of the stored bodies from genesis
// (replay_chain: headers, receipts, index, final state).
void check_against_replay(const ChainStore& store, const ChainFixture& chain) {
  auto report = replay_chain(store, chain.genesis);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->pulses, store.height());
  EXPECT_EQ(report->state_root, store.state().root());
}

TEST(ChainStore, CommitsAndReadsBack) {
  TempDir dir;
  ChainFixture chain;
  auto store = new_chain(dir.str(), chain);
  ASSERT_TRUE(store);
  EXPECT_EQ(store->height(), 0u);
  EXPECT_EQ(store->log_head().size, 1u);

  std::vector<exec::ProposedPulse> pulses;
  for (std::uint64_t h = 1; h <= 6; ++h) {
    std::vector<exec::Transaction> txs;
    if (h != 3) txs.push_back(chain.transfer(h));  // height 3: an empty body
    auto proposed = chain.commit(*store, txs);
    ASSERT_TRUE(proposed.ok()) << proposed.error().to_string();
    EXPECT_EQ(store->height(), h);
    pulses.push_back(std::move(*proposed));
  }
  for (std::uint64_t h = 1; h <= 6; ++h) {
    const auto& pulse = pulses[h - 1].pulse;
    EXPECT_EQ(store->header(h).value(), pulse.header);
    EXPECT_EQ(store->body(h).value(), std::vector<exec::Transaction>(pulse.body.begin(), pulse.body.end()));
    EXPECT_EQ(store->receipts(h).value(), pulses[h - 1].outcome.receipts);
    EXPECT_EQ(store->state_root_at(h).value(), pulse.header.state_root);
  }
  EXPECT_TRUE(store->body(3).value().empty());
  EXPECT_EQ(store->header(7).error().code, base::Errc::not_found);
  check_against_replay(*store, chain);

  // The header log: entry h is pulse_hash(header h).
  const commit::TreeHead head = store->log_head();
  EXPECT_EQ(head.size, 7u);
  for (std::uint64_t h = 0; h <= 6; ++h) {
    const commit::Hash leaf = commit::kLogSha3.leaf(exec::pulse_hash(store->header(h).value()));
    auto proof = store->header_proof(h, head.size);
    ASSERT_TRUE(proof.ok());
    EXPECT_TRUE(commit::verify_inclusion(commit::kLogSha3, leaf, *proof, head)) << h;
    EXPECT_FALSE(commit::verify_inclusion(commit::kLogSha3, commit::Hash{}, *proof, head)) << h;
  }
  auto consistency = store->log_consistency(3, 7);
  ASSERT_TRUE(consistency.ok());
  EXPECT_TRUE(commit::verify_consistency(commit::kLogSha3, *consistency, store->log_head(3).value(), head));

  // An account with its proof at the latest state and at a retained height
  // (account 3 would have sent at height 3, whose body is empty: unchanged).
  const exec::Id account = chain.account(3);
  auto proven = store->get_with_proof(account);
  ASSERT_TRUE(proven.ok() && proven->object.has_value());
  EXPECT_EQ(proven->root, store->head().state_root);
  const commit::Hash value = state::object_hash(*proven->object);
  EXPECT_TRUE(commit::verify_state_proof(proven->root, account, value, proven->proof));
  auto old_proof = store->prove_at(account, 2);
  ASSERT_TRUE(old_proof.ok());
  const commit::Hash old_root = store->header(2)->state_root;
  EXPECT_NE(old_root, proven->root);
  EXPECT_TRUE(commit::verify_state_proof(old_root, account, value, *old_proof));
  EXPECT_FALSE(commit::verify_state_proof(old_root, account, std::nullopt, *old_proof));

  // An unknown transaction is absent, not an error.
  auto missing = store->find_transaction(commit::Hash{});
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST(ChainStore, RefusesPulsesNotOnItsHead) {
  TempDir dir;
  ChainFixture chain;
  auto store = new_chain(dir.str(), chain);
  ASSERT_TRUE(store);
  const auto tx = chain.transfer(1);
  auto proposed = exec::propose_pulse(exec::StorePreState(store->state()), store->head(), std::span(&tx, 1), 5,
                                      chain.proposer, chain.params);
  ASSERT_TRUE(proposed.ok()) << proposed.error().to_string();

  exec::Pulse wrong_height = proposed->pulse;
  wrong_height.header.height = 2;
  EXPECT_EQ(store->commit(wrong_height, proposed->outcome).error().code, base::Errc::invalid_argument);
  exec::Pulse wrong_parent = proposed->pulse;
  wrong_parent.header.parent[0] ^= 1;
  EXPECT_EQ(store->commit(wrong_parent, proposed->outcome).error().code, base::Errc::invalid_argument);
  exec::PulseOutcome wrong_outcome = proposed->outcome;
  wrong_outcome.receipts.clear();
  EXPECT_EQ(store->commit(proposed->pulse, wrong_outcome).error().code, base::Errc::invalid_argument);
  // A body staged for one Pulse does not commit another.
  const auto other_tx = chain.transfer(2);
  auto other = exec::propose_pulse(exec::StorePreState(store->state()), store->head(), std::span(&other_tx, 1), 5,
                                   chain.proposer, chain.params);
  ASSERT_TRUE(other.ok()) << other.error().to_string();
  auto staged = store->stage_body(other->pulse);
  ASSERT_TRUE(staged.ok()) << staged.error().to_string();
  EXPECT_EQ(store->commit(proposed->pulse, proposed->outcome, *staged).error().code, base::Errc::invalid_argument);
  EXPECT_EQ(store->stage_body(wrong_parent).error().code, base::Errc::invalid_argument);
  // None of these wrote a batch or stopped the store.
  EXPECT_EQ(store->height(), 0u);
  ASSERT_TRUE(store->commit(proposed->pulse, proposed->outcome).ok());
  EXPECT_EQ(store->height(), 1u);
  EXPECT_EQ(store->body(1).value().size(), 1u);
  check_against_replay(*store, chain);
}

TEST(ChainStore, RestartResumesAtTheLastPulse) {
  TempDir dir;
  ChainFixture chain;
  exec::PulseHeader head;
  commit::TreeHead log_head;
  {
    auto store = new_chain(dir.str(), chain);
    ASSERT_TRUE(store);
    for (std::uint64_t h = 1; h <= 5; ++h) {
      const auto tx = chain.transfer(h);
      ASSERT_TRUE(chain.commit(*store, std::span(&tx, 1)).ok());
    }
    head = store->head();
    log_head = store->log_head();
  }
  auto store = open_store(dir.str());
  ASSERT_TRUE(store);
  EXPECT_TRUE(store->initialized());
  EXPECT_EQ(store->height(), 5u);
  EXPECT_EQ(store->head(), head);
  EXPECT_EQ(store->log_head(), log_head);
  EXPECT_EQ(store->state().root(), head.state_root);
  EXPECT_EQ(store->params(), chain.params);
  // The same genesis again is accepted; another is refused, by name.
  EXPECT_TRUE(store->initialize(chain.genesis_writes, chain.genesis_root, chain.params).ok());
  exec::ChainParams other = chain.params;
  other.chain_id = 8;
  const auto refused = store->initialize(chain.genesis_writes, chain.genesis_root, other);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, base::Errc::invalid_value);
  EXPECT_NE(refused.error().reason.find("another chain"), std::string::npos) << refused.error().reason;
  // And it goes on from there.
  const auto tx = chain.transfer(6);
  ASSERT_TRUE(chain.commit(*store, std::span(&tx, 1)).ok());
  check_against_replay(*store, chain);
}

TEST(ChainStore, GenesisWritesMustGiveTheGenesisRoot) {
  TempDir dir;
  ChainFixture chain;
  auto store = open_store(dir.str());
  ASSERT_TRUE(store);
  EXPECT_FALSE(store->initialized());
  commit::Hash wrong = chain.genesis_root;
  wrong[0] ^= 1;
  EXPECT_EQ(store->initialize(chain.genesis_writes, wrong, chain.params).error().code, base::Errc::invalid_argument);
  EXPECT_FALSE(store->initialized());
  EXPECT_EQ(store->commit(exec::Pulse{}, exec::PulseOutcome{}).error().code, base::Errc::invalid_argument);
}

TEST(ChainStore, AFailedWriteStopsEveryLaterCommit) {
  TempDir dir;
  ChainFixture chain;
  int writes = 0;
  ChainStoreOptions options;
  // The new store's first batch, genesis and two Pulses are written; the
  // fifth batch fails.
  options.write_fault = [&writes]() -> base::Status {
    if (++writes >= 5) return base::fail(base::Errc::io_error, "injected: no space left on device");
    return {};
  };
  exec::PulseHeader head;
  {
    auto store = new_chain(dir.str(), chain, options);
    ASSERT_TRUE(store);
    for (std::uint64_t h = 1; h <= 2; ++h) {
      const auto tx = chain.transfer(h);
      ASSERT_TRUE(chain.commit(*store, std::span(&tx, 1)).ok());
    }
    head = store->head();
    const auto tx = chain.transfer(3);
    auto proposed = exec::propose_pulse(exec::StorePreState(store->state()), head, std::span(&tx, 1), head.time_ms + 1,
                                        chain.proposer, chain.params);
    ASSERT_TRUE(proposed.ok()) << proposed.error().to_string();
    auto failed = store->commit(proposed->pulse, proposed->outcome);
    ASSERT_FALSE(failed.ok());
    EXPECT_EQ(failed.error().code, base::Errc::io_error);
    EXPECT_NE(failed.error().reason.find("no space"), std::string::npos);
    // Refused from now on, with the same error, even once the disk is fine.
    writes = -1000;
    auto again = store->commit(proposed->pulse, proposed->outcome);
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().reason, failed.error().reason);
    EXPECT_EQ(store->height(), 2u);
    EXPECT_EQ(store->head(), head);
  }
  // Reopened, it is at the last Pulse that reached the disk; the body the
  // failed commit had appended is cut, and the chain goes on from there.
  auto store = open_store(dir.str());
  ASSERT_TRUE(store);
  EXPECT_EQ(store->height(), 2u);
  EXPECT_EQ(store->head(), head);
  for (std::uint64_t h = 3; h <= 4; ++h) {
    const auto tx = chain.transfer(h);
    ASSERT_TRUE(chain.commit(*store, std::span(&tx, 1)).ok());
    auto body = store->body(h);
    ASSERT_TRUE(body.ok()) << body.error().to_string();
    ASSERT_EQ(body->size(), 1u);
    EXPECT_EQ(exec::tx_id(body->front().payload), exec::tx_id(tx.payload));
  }
  check_against_replay(*store, chain);
}

// A real failure: the writer process runs under RLIMIT_FSIZE, so RocksDB's
// write-ahead log hits EFBIG.
TEST(ChainStore, ARealWriteFailureStopsTheWriter) {
  TempDir dir;
  const std::string command = std::string(SION_CHAIN_WRITER) + " " + dir.str() + " 1048576 > /dev/null";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 3) << "3: the failed commit and the next both failed";
  // The store reopens (without the limit) at a complete Pulse.
  ChainFixture chain;
  auto store = open_store(dir.str());
  ASSERT_TRUE(store);
  EXPECT_GT(store->height(), 0u);
  check_against_replay(*store, chain);
}

struct Writer {
  pid_t pid = -1;
  FILE* output = nullptr;  // one line per committed height
};

Writer start_writer(const std::string& directory) {
  int ends[2];
  if (pipe(ends) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(ends[0]);
    if (dup2(ends[1], STDOUT_FILENO) < 0) _exit(126);
    execl(SION_CHAIN_WRITER, SION_CHAIN_WRITER, directory.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(ends[1]);
  return {pid, fdopen(ends[0], "r")};
}

TEST(ChainStore, AKilledWriterReopensAtACompletePulse) {
  TempDir dir;
  std::mt19937 random(20261204);
  std::uint64_t last_seen = 0;
  for (int round = 0; round < 6; ++round) {
    Writer writer = start_writer(dir.str());
    ASSERT_GT(writer.pid, 0);
    ASSERT_NE(writer.output, nullptr);
    // Two commits reported: the writer is in its loop; then a random moment.
    unsigned long long height = 0;
    for (int i = 0; i < 2; ++i) ASSERT_EQ(std::fscanf(writer.output, "%llu", &height), 1);
    std::this_thread::sleep_for(std::chrono::microseconds(random() % 30000));
    ASSERT_EQ(kill(writer.pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(writer.pid, &status, 0), writer.pid);
    while (std::fscanf(writer.output, "%llu", &height) == 1) {
    }
    std::fclose(writer.output);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer exited by itself: " << status;

    ChainFixture chain;
    {
      // Read-only first, as `sion replay` reads a killed node's chain: the
      // write-ahead log is replayed in memory, nothing is written.
      ChainStoreOptions read_only;
      read_only.read_only = true;
      auto reader = open_store(dir.str(), read_only);
      ASSERT_TRUE(reader);
      EXPECT_GE(reader->height(), height);
      check_against_replay(*reader, chain);
    }
    auto store = open_store(dir.str());
    ASSERT_TRUE(store);
    // Every reported commit survived.
    EXPECT_GE(store->height(), height);
    EXPECT_GE(store->height(), last_seen);
    last_seen = store->height();
    check_against_replay(*store, chain);
    if (HasFatalFailure()) return;
  }
}

// Every file of a folder with its size and modification time.
std::vector<std::string> listing(const std::filesystem::path& directory) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
    const auto time = entry.last_write_time().time_since_epoch().count();
    const auto size = entry.is_regular_file() ? entry.file_size() : 0;
    files.push_back(entry.path().string() + " " + std::to_string(size) + " " + std::to_string(time));
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ChainStore, ReadOnlyOpensAStoppedChainAndRefusesARunningOne) {
  TempDir dir;
  ChainStoreOptions read_only;
  read_only.read_only = true;
  // No store: not_found, and nothing is created.
  auto none = ChainStore::open(dir.str(), read_only);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, base::Errc::not_found) << none.error().to_string();
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));

  Writer writer = start_writer(dir.str());
  ASSERT_GT(writer.pid, 0);
  ASSERT_NE(writer.output, nullptr);
  unsigned long long height = 0;
  for (int i = 0; i < 2; ++i) ASSERT_EQ(std::fscanf(writer.output, "%llu", &height), 1);
  // The writer holds the store's lock.
  auto refused = ChainStore::open(dir.str(), read_only);
  const bool was_refused = !refused.ok();
  ASSERT_EQ(kill(writer.pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(writer.pid, &status, 0), writer.pid);
  std::fclose(writer.output);
  ASSERT_TRUE(was_refused) << "a read-only open beside a running writer";
  EXPECT_EQ(refused.error().code, base::Errc::io_error);
  EXPECT_NE(refused.error().reason.find("in use by another process"), std::string::npos) << refused.error().reason;

  // Stopped: it opens, replays, refuses writes and changes no file.
  const auto before = listing(dir.path());
  {
    ChainFixture chain;
    auto store = open_store(dir.str(), read_only);
    ASSERT_TRUE(store);
    EXPECT_GE(store->height(), height);
    check_against_replay(*store, chain);
    const auto tx = chain.transfer(store->height() + 1);
    auto committed = chain.commit(*store, std::span(&tx, 1));
    ASSERT_FALSE(committed.ok());
    EXPECT_EQ(committed.error().code, base::Errc::invalid_argument);
    EXPECT_NE(committed.error().reason.find("read-only"), std::string::npos) << committed.error().reason;
    // One opener at a time: a reader holds the lock as a writer does.
    auto second = ChainStore::open(dir.str(), read_only);
    EXPECT_FALSE(second.ok());
  }
  EXPECT_EQ(listing(dir.path()), before);
  // And a writer opens it afterwards (the lock was released).
  EXPECT_TRUE(open_store(dir.str()));
}

// A chain of 10,000 Pulses with real headers: empty bodies but for one
// transfer every 100 Pulses. Written unsynced to keep the test short; the
// reopen is what is timed.
TEST(ChainStore, RestartOfA10000PulseChain) {
  constexpr std::uint64_t kHeight = 10'000;
  TempDir dir;
  ChainFixture chain;
  exec::PulseHeader head;
  {
    ChainStoreOptions options;
    options.sync_writes = false;
    auto store = new_chain(dir.str(), chain, options);
    ASSERT_TRUE(store);
    for (std::uint64_t h = 1; h <= kHeight; ++h) {
      std::vector<exec::Transaction> txs;
      if (h % 100 == 0) txs.push_back(chain.transfer(h));
      auto committed = chain.commit(*store, txs);
      ASSERT_TRUE(committed.ok()) << committed.error().to_string();
    }
    head = store->head();
  }
  const auto start = std::chrono::steady_clock::now();
  auto store = open_store(dir.str());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(store);
  EXPECT_EQ(store->height(), kHeight);
  EXPECT_EQ(store->head(), head);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count();
  std::printf("[ measure  ] open and ready with %llu Pulses: %lld ms (target <= 2000 ms)\n",
              static_cast<unsigned long long>(kHeight), static_cast<long long>(ms));
  // A wall-clock target: not held to under a sanitizer's slowdown.
  if (!base::testing::kSanitized) {
    EXPECT_LE(ms, 2000);
  }
}

}  // namespace
}  // namespace sion::node
