#include "simulator.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <set>
#include <sstream>

#include "sion/base/endian.hpp"
#include "sion/consensus/core.hpp"
#include "sion/crypto/keccak.hpp"

namespace sion::consensus::sim {

namespace {

constexpr std::uint64_t kStart = 1'700'000'000'000;  // virtual Unix milliseconds

// ---- Stand-in signatures: 16 bytes of SHA3(validator, kind, message). The
// simulated validators run the core's own code and never forge, so this
// only has to be deterministic and to differ between signers.
Signature fake_sign(ValidatorIndex v, SignedKind kind, const Hash& message) {
  base::Bytes input(message.begin(), message.end());
  input.push_back(static_cast<std::uint8_t>(kind));
  std::uint8_t who[4];
  base::store_le(who, v);
  input.insert(input.end(), who, who + 4);
  const Hash tag = crypto::sha3_256(input);
  Signature signature;
  signature.parts.emplace_back(base::Bytes(tag.begin(), tag.begin() + 16));
  return signature;
}

class FakeSigner final : public Signer {
 public:
  explicit FakeSigner(ValidatorIndex self) : self_(self) {}
  base::Result<Signature> sign(SignedKind kind, const Hash& message) override {
    return fake_sign(self_, kind, message);
  }

 private:
  ValidatorIndex self_;
};

class FakeVerifier final : public Verifier {
 public:
  bool verify(ValidatorIndex signer, SignedKind kind, const Hash& message, const Signature& signature) override {
    return signature == fake_sign(signer, kind, message);
  }
};

// What one validator has on disk; it outlives the validator's crashes.
struct Disk : Storage {
  std::optional<SafetyState> safety;
  std::vector<Batch> batches;
  std::map<Hash, std::shared_ptr<const Batch>, commit::HashOrder> by_digest;  // saved and delivered
  std::uint64_t fail_from = kNever;                                           // writes fail from this time on
  std::uint64_t now = 0;

  // The ledger the node keeps: delivered blocks and executed roots.
  struct Entry {
    Anchor anchor;
    Hash state_root{};
    std::shared_ptr<const ProposalMessage> block;
  };
  std::map<Hash, std::size_t, commit::HashOrder> block_index;  // into the ledger
  std::vector<Entry> ledger;                                   // one per delivered block
  std::size_t synced = 0;                                      // entries durable; the rest a crash may lose

  base::Status save_safety(const SafetyState& state) override {
    if (now >= fail_from) return base::fail(base::Errc::io_error, "injected: the disk refused the write");
    safety = state;
    return {};
  }
  base::Status save_batch(const Batch& batch) override {
    if (now >= fail_from) return base::fail(base::Errc::io_error, "injected: the disk refused the write");
    batches.push_back(batch);
    by_digest[batch_digest(batch.header)] = std::make_shared<const Batch>(batch);
    return {};
  }
  std::map<Hash, std::shared_ptr<const ProposalMessage>, commit::HashOrder> voted;  // saved before a vote

  base::Status save_block(const ProposalMessage& proposal) override {
    if (now >= fail_from) return base::fail(base::Errc::io_error, "injected: the disk refused the write");
    voted[block_hash(proposal.block)] = std::make_shared<const ProposalMessage>(proposal);
    return {};
  }
  std::shared_ptr<const ProposalMessage> load_block(const Hash& hash) override {
    if (const auto saved = voted.find(hash); saved != voted.end()) return saved->second;
    const auto it = block_index.find(hash);
    return it == block_index.end() || it->second >= ledger.size() ? nullptr : ledger[it->second].block;
  }
  std::shared_ptr<const Batch> load_batch(const Hash& digest) override {
    const auto it = by_digest.find(digest);
    return it == by_digest.end() ? nullptr : it->second;
  }
};

enum class Role { honest, twin, mute, storage_fault, bad_executor };

struct Instance {
  ValidatorIndex slot = 0;
  int twin = 0;
  Role role = Role::honest;
  std::unique_ptr<FakeSigner> signer;
  std::unique_ptr<Core> core;
  std::uint64_t generation = 0;
  bool up = true;
  std::uint64_t tick_at = kNever;
  std::uint64_t delivered = 0;  // blocks delivered since genesis
  Hash state_root{};
  std::set<ValidatorIndex> mute_to;  // a mute validator sends nothing to these
};

struct Event {
  enum Kind { deliver, tick, checked, executed, submit, crash, restart };
  std::uint64_t time = 0;
  std::uint64_t seq = 0;
  Kind kind = tick;
  std::size_t instance = 0;
  std::uint64_t generation = 0;
  ValidatorIndex from = 0;
  std::shared_ptr<const Message> message;
  Hash digest{};
  Height height = 0;
  Hash pulse{};
  Hash root{};
  bool operator>(const Event& other) const { return time != other.time ? time > other.time : seq > other.seq; }
};

struct Partition {
  std::uint64_t from = 0;
  std::uint64_t to = 0;
  std::vector<int> side;  // per slot
};

Hash hash_of(base::ByteView a, base::ByteView b = {}) {
  base::Bytes input(a.begin(), a.end());
  input.insert(input.end(), b.begin(), b.end());
  return crypto::sha3_256(input);
}

class World {
 public:
  explicit World(const Scenario& s) : s_(s), rng_(s.seed) {}

  Outcome run();

 private:
  std::uint64_t uniform(std::uint64_t lo, std::uint64_t hi) {  // [lo, hi]
    return lo + rng_() % (hi - lo + 1);
  }
  static Event event_at(std::uint64_t time, Event::Kind kind, std::size_t instance, std::uint64_t generation = 0) {
    Event e;
    e.time = time;
    e.kind = kind;
    e.instance = instance;
    e.generation = generation;
    return e;
  }
  void push(Event e) {
    e.seq = next_seq_++;
    queue_.push(std::move(e));
  }
  void setup();
  std::unique_ptr<Core> make_core(Instance& in, Recovery recovery);
  void boot(std::size_t i, bool restart);
  void after(std::size_t i);
  void handle(std::size_t i, std::vector<Action> actions);
  void route(std::size_t i, const SendAction& send);
  bool partitioned(ValidatorIndex a, ValidatorIndex b) const;
  void on_commit(std::size_t i, const CommitAction& commit);
  void violation(std::string what);
  bool checked(const Instance& in) const { return in.role != Role::twin; }

  Scenario s_;
  std::mt19937_64 rng_;
  std::uint64_t now_ = kStart;
  std::uint64_t next_seq_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  std::vector<Instance> instances_;
  std::vector<std::vector<std::size_t>> by_slot_;
  std::vector<Disk> disks_;
  std::vector<int> twin_of_receiver_;  // which twin talks to each slot: 0, 1 or 2 for both
  std::vector<Partition> partitions_;
  std::optional<ValidatorSet> set_;
  FakeVerifier verifier_;
  Hash chain_id_{};
  Hash genesis_{};
  Outcome out_;

  std::vector<Hash> global_blocks_;                        // the delivered sequence, as first seen
  std::map<Height, std::pair<Hash, Hash>> global_pulses_;  // height -> (pulse, root) of honest execution
};

void World::violation(std::string what) {
  if (!out_.safe) return;
  out_.safe = false;
  out_.violation = "at +" + std::to_string(now_ - kStart) + " ms: " + what;
}

void World::setup() {
  const std::uint32_t n = s_.validators;
  chain_id_ = hash_of(base::as_bytes("sim chain"));
  genesis_ = hash_of(base::as_bytes("sim genesis"));
  set_ = ValidatorSet::create(std::vector<std::uint64_t>(n, 1)).value();
  disks_.resize(n);
  by_slot_.resize(n);
  // Faulty validators take the highest indices; honest ones the rest.
  std::vector<Role> roles(n, Role::honest);
  std::uint32_t next = n;
  for (std::uint32_t k = 0; k < s_.twins; ++k) roles[--next] = Role::twin;
  for (std::uint32_t k = 0; k < s_.mute; ++k) roles[--next] = Role::mute;
  for (std::uint32_t k = 0; k < s_.storage_faults; ++k) roles[--next] = Role::storage_fault;
  for (std::uint32_t k = 0; k < s_.bad_executors; ++k) roles[--next] = Role::bad_executor;
  for (ValidatorIndex v = 0; v < n; ++v) {
    const int copies = roles[v] == Role::twin ? 2 : 1;
    for (int t = 0; t < copies; ++t) {
      Instance in;
      in.slot = v;
      in.twin = t;
      in.role = roles[v];
      if (roles[v] == Role::mute) {
        for (ValidatorIndex w = 0; w < n; ++w) {
          if (w != v && uniform(0, 1) == 0) in.mute_to.insert(w);
        }
      }
      by_slot_[v].push_back(instances_.size());
      instances_.push_back(std::move(in));
    }
    if (roles[v] == Role::storage_fault) disks_[v].fail_from = kStart + uniform(500, s_.heal_ms - 500);
  }
  twin_of_receiver_.resize(n);
  // Each validator hears one twin, or both (2): then it sees their conflicting messages.
  for (ValidatorIndex w = 0; w < n; ++w) twin_of_receiver_[w] = static_cast<int>(uniform(0, 2));
  // Partitions: consecutive windows before heal, each splitting the slots in two.
  std::uint64_t at = kStart + 200;
  for (std::uint32_t k = 0; k < s_.partitions && at + 300 < kStart + s_.heal_ms; ++k) {
    Partition p;
    p.from = at + uniform(0, 500);
    p.to = std::min(p.from + uniform(200, 2000), kStart + s_.heal_ms);
    for (ValidatorIndex v = 0; v < n; ++v) p.side.push_back(static_cast<int>(uniform(0, 1)));
    partitions_.push_back(p);
    at = p.to;
  }
  // Crashes of honest validators, each restarting before heal.
  for (std::uint32_t k = 0; k < s_.crashes; ++k) {
    ValidatorIndex v = static_cast<ValidatorIndex>(uniform(0, n - 1));
    if (roles[v] != Role::honest) continue;
    const std::uint64_t down = kStart + uniform(100, s_.heal_ms - 400);
    const std::uint64_t back = std::min(down + uniform(50, 2500), kStart + s_.heal_ms);
    push(event_at(down, Event::crash, by_slot_[v][0]));
    push(event_at(back, Event::restart, by_slot_[v][0]));
  }
  // Every validator down at once (a devnet stopped and resumed): only what
  // each saved brings the network back.
  if (s_.restart_all) {
    const std::uint64_t down = kStart + uniform(300, s_.heal_ms - 800);
    for (std::size_t i = 0; i < instances_.size(); ++i) {
      push(event_at(down, Event::crash, i));
      push(event_at(down + uniform(50, 400), Event::restart, i));
    }
  }
  for (std::size_t i = 0; i < instances_.size(); ++i) {
    boot(i, false);
    push(event_at(kStart + uniform(1, s_.batch_interval_ms), Event::submit, i, instances_[i].generation));
  }
}

std::unique_ptr<Core> World::make_core(Instance& in, Recovery recovery) {
  CoreOptions options;
  options.chain_id = chain_id_;
  options.genesis_block = genesis_;
  options.genesis_time_ms = kStart;
  options.self = in.slot;
  options.timing.round_timeout_ms = 400;
  options.timing.max_round_timeout_ms = 3200;
  options.timing.idle_block_interval_ms = 150;
  options.timing.min_block_interval_ms = 5;
  options.timing.retry_ms = 100;
  options.unsafe_skip_round_check = s_.unsafe_round_check;
  options.max_own_uncertified = s_.max_own_uncertified;
  in.signer = std::make_unique<FakeSigner>(in.slot);
  return std::make_unique<Core>(options, *set_, *in.signer, verifier_, disks_[in.slot], std::move(recovery), now_);
}

void World::boot(std::size_t i, bool restart) {
  Instance& in = instances_[i];
  Disk& disk = disks_[in.slot];
  Recovery recovery;
  if (restart) {
    if (!s_.lost_writes) disk.synced = disk.ledger.size();
    disk.ledger.resize(disk.synced);  // what was not synced is gone
    recovery.safety = disk.safety;
    recovery.batches = disk.batches;
    if (!disk.ledger.empty()) recovery.anchor = disk.ledger.back().anchor;
    in.delivered = disk.ledger.size();
    in.state_root = disk.ledger.empty() ? Hash{} : disk.ledger.back().state_root;
  }
  in.up = true;
  in.tick_at = kNever;
  disk.now = now_;
  in.core = make_core(in, std::move(recovery));
  after(i);
}

void World::after(std::size_t i) {
  Instance& in = instances_[i];
  if (!in.up) return;
  handle(i, in.core->take_actions());
  const std::uint64_t wake = std::max(in.core->next_wakeup(), now_);
  if (wake < in.tick_at && wake != kNever) {
    in.tick_at = wake;
    push(event_at(wake, Event::tick, i, in.generation));
  }
}

bool World::partitioned(ValidatorIndex a, ValidatorIndex b) const {
  for (const Partition& p : partitions_) {
    if (now_ >= p.from && now_ < p.to && p.side[a] != p.side[b]) return true;
  }
  return false;
}

void World::route(std::size_t i, const SendAction& send) {
  const Instance& in = instances_[i];
  // Each send goes through the codec once: what arrives is what decodes.
  auto decoded = decode_message(encode_message(*send.message));
  if (!decoded || *decoded != *send.message) {
    violation(std::string("a ") + std::string(message_name(*send.message)) + " did not survive its encoding");
    return;
  }
  auto message = std::make_shared<const Message>(std::move(*decoded));
  for (ValidatorIndex to = 0; to < s_.validators; ++to) {
    if (to == in.slot || (send.to && *send.to != to)) continue;
    if (in.role == Role::twin && twin_of_receiver_[to] != in.twin && twin_of_receiver_[to] != 2) continue;
    if (in.role == Role::mute && in.mute_to.contains(to)) continue;
    const bool faulty_time = now_ < kStart + s_.heal_ms;
    if (faulty_time && s_.drop_per_mille > 0 && uniform(0, 999) < s_.drop_per_mille) continue;
    if (partitioned(in.slot, to)) continue;
    for (const std::size_t target : by_slot_[to]) {
      ++out_.messages;
      Event e = event_at(now_ + uniform(s_.min_delay_ms, s_.max_delay_ms), Event::deliver, target,
                         instances_[target].generation);
      e.from = in.slot;
      e.message = message;
      push(std::move(e));
    }
  }
}

void World::on_commit(std::size_t i, const CommitAction& commit) {
  Instance& in = instances_[i];
  Disk& disk = disks_[in.slot];
  ++out_.commits;
  if (checked(in)) {
    if (in.delivered < global_blocks_.size()) {
      if (global_blocks_[in.delivered] != commit.block) {
        violation("validator " + std::to_string(in.slot) + " delivered block " + base::to_hex(commit.block) +
                  " as number " + std::to_string(in.delivered) + ", another validator delivered " +
                  base::to_hex(global_blocks_[in.delivered]));
      }
    } else {
      global_blocks_.push_back(commit.block);
    }
  }
  ++in.delivered;
  if (commit.height) {
    base::Bytes pulse_input;
    std::uint8_t word[8];
    base::store_le(word, *commit.height);
    pulse_input.insert(pulse_input.end(), word, word + 8);
    base::store_le(word, commit.time_ms);
    pulse_input.insert(pulse_input.end(), word, word + 8);
    for (const auto& batch : commit.batches) {
      const Hash digest = batch_digest(batch->header);
      pulse_input.insert(pulse_input.end(), digest.begin(), digest.end());
    }
    const Hash pulse = crypto::sha3_256(pulse_input);
    Hash root = hash_of(in.state_root, pulse);
    if (in.role == Role::bad_executor && *commit.height > 2) root[0] ^= 1;
    in.state_root = root;
    if (checked(in)) {
      auto& known = global_pulses_[*commit.height];
      if (known.first == Hash{}) known.first = pulse;
      if (known.first != pulse) {
        violation("validator " + std::to_string(in.slot) + " made Pulse " + std::to_string(*commit.height) +
                  " from other batches");
      }
      if (in.role != Role::bad_executor) {
        if (known.second == Hash{}) known.second = root;
        if (known.second != root) {
          violation("validator " + std::to_string(in.slot) + " reached another state root at " +
                    std::to_string(*commit.height));
        }
      }
    }
    Event e = event_at(now_ + 1, Event::executed, i, in.generation);
    e.height = *commit.height;
    e.pulse = pulse;
    e.root = root;
    push(std::move(e));
  }
  if (checked(in)) {
    disk.block_index[commit.block] = disk.ledger.size();
    disk.ledger.push_back(Disk::Entry{commit.anchor, in.state_root, commit.proposal});
    for (const auto& batch : commit.batches) disk.by_digest[batch_digest(batch->header)] = batch;
    // The ledger syncs now and then; a crash loses what came after.
    if (uniform(0, 3) == 0) disk.synced = disk.ledger.size();
  }
}

void World::handle(std::size_t i, std::vector<Action> actions) {
  for (Action& action : actions) {
    Instance& in = instances_[i];
    if (auto* send = std::get_if<SendAction>(&action)) {
      route(i, *send);
    } else if (auto* check = std::get_if<CheckBatchAction>(&action)) {
      Event e = event_at(now_ + uniform(0, 2), Event::checked, i, in.generation);
      e.digest = check->digest;
      push(std::move(e));
    } else if (auto* commit = std::get_if<CommitAction>(&action)) {
      on_commit(i, *commit);
    } else if (auto* certified = std::get_if<PulseCertifiedAction>(&action)) {
      const PulseVoteBody& body = certified->certificate.body;
      const auto it = global_pulses_.find(body.height);
      if (it != global_pulses_.end() && (it->second.first != body.pulse || it->second.second != body.state_root) &&
          it->second.second != Hash{}) {
        violation("a quorum certified Pulse " + std::to_string(body.height) +
                  " with a root honest validators did not reach");
      }
    } else if (auto* evidence = std::get_if<EvidenceAction>(&action)) {
      ++out_.evidence;
      if (instances_[by_slot_[evidence->offender][0]].role != Role::twin) {
        violation("validator " + std::to_string(evidence->offender) +
                  " (honest) signed conflicting messages: " + evidence->what);
      }
    } else if (auto* halt = std::get_if<HaltAction>(&action)) {
      out_.halts.push_back("validator " + std::to_string(in.slot) + ": " + halt->reason);
      const bool expected = (in.role == Role::storage_fault && halt->reason.find("persist") != std::string::npos) ||
                            (in.role == Role::bad_executor && halt->reason.find("state diverged") != std::string::npos);
      if (checked(in) && !expected) violation("validator " + std::to_string(in.slot) + " halted: " + halt->reason);
    }
  }
}

Outcome World::run() {
  setup();
  const std::uint64_t heal = kStart + s_.heal_ms;
  const std::uint64_t end = kStart + s_.duration_ms;
  bool healed = false;
  while (!queue_.empty() && out_.safe) {
    Event e = queue_.top();
    queue_.pop();
    if (e.time > end) break;
    now_ = e.time;
    if (!healed && now_ >= heal) {
      healed = true;
      for (const Instance& in : instances_) {
        if (in.role == Role::honest && in.up)
          out_.height_at_heal = std::max(out_.height_at_heal, in.core->anchor().height);
      }
    }
    Instance& in = instances_[e.instance];
    disks_[in.slot].now = now_;
    if (e.kind == Event::crash) {
      if (!in.up) continue;
      in.up = false;
      ++in.generation;
      in.core.reset();
      continue;
    }
    if (e.kind == Event::restart) {
      if (in.up) continue;
      boot(e.instance, true);
      push(event_at(now_ + 1, Event::submit, e.instance, in.generation));
      continue;
    }
    if (!in.up || e.generation != in.generation) continue;
    switch (e.kind) {
      case Event::deliver: in.core->on_message(e.from, *e.message, now_); break;
      case Event::tick:
        if (e.time != in.tick_at) continue;
        in.tick_at = kNever;
        in.core->on_tick(now_);
        break;
      case Event::checked: in.core->on_batch_checked(e.digest, true, now_); break;
      case Event::executed: in.core->on_executed(e.height, e.pulse, e.root, now_); break;
      case Event::submit: {
        if (in.core->lane_has_room()) {
          base::Bytes payload(uniform(8, 64));
          for (auto& b : payload) b = static_cast<std::uint8_t>(rng_());
          (void)in.core->submit_batch(std::move(payload), static_cast<std::uint32_t>(uniform(1, 8)), now_);
          out_.most_own_uncertified = std::max(out_.most_own_uncertified, in.core->own_uncertified());
        }
        push(event_at(now_ + uniform(s_.batch_interval_ms / 2, s_.batch_interval_ms * 3 / 2), Event::submit, e.instance,
                      in.generation));
        break;
      }
      default: break;
    }
    after(e.instance);
  }
  // Liveness: every honest validator went on after the faults healed.
  if (!out_.safe) return out_;
  out_.final_min_height = kNever;
  for (const Instance& in : instances_) {
    if (in.role != Role::honest) {
      if (in.role == Role::bad_executor && (!in.up || !in.core->halted()) && out_.safe) {
        if (in.up && in.core->anchor().height > 3) {
          out_.live = false;
          out_.liveness_problem = "validator " + std::to_string(in.slot) + " executed wrongly and did not halt";
        }
      }
      continue;
    }
    if (!in.up) {
      out_.live = false;
      out_.liveness_problem = "validator " + std::to_string(in.slot) + " is down at the end";
      continue;
    }
    const Height h = in.core->anchor().height;
    out_.final_min_height = std::min(out_.final_min_height, h);
    out_.final_max_height = std::max(out_.final_max_height, h);
    if (h < out_.height_at_heal + 2) {
      out_.live = false;
      out_.liveness_problem = "validator " + std::to_string(in.slot) + " reached height " + std::to_string(h) +
                              ", no more than 2 beyond the " + std::to_string(out_.height_at_heal) +
                              " honest validators had when the faults ended (round " +
                              std::to_string(in.core->round()) + "): " + in.core->describe();
    }
  }
  return out_;
}

}  // namespace

Scenario Scenario::random(std::uint64_t seed, std::uint32_t validators) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 1);
  auto chance = [&rng](int percent) { return static_cast<int>(rng() % 100) < percent; };
  Scenario s;
  s.seed = seed;
  s.validators = validators;
  if (validators > 4) {  // more messages per round: a shorter run keeps CI's seeds affordable
    s.duration_ms = 8'000;
    s.heal_ms = 4'000;
  }
  const std::uint32_t f = (validators - 1) / 3;
  s.max_delay_ms = static_cast<std::uint32_t>(2 + rng() % 60);
  s.min_delay_ms = static_cast<std::uint32_t>(rng() % (s.max_delay_ms / 2 + 1));
  if (chance(35)) s.drop_per_mille = static_cast<std::uint32_t>(rng() % 150);
  if (chance(35)) s.partitions = static_cast<std::uint32_t>(1 + rng() % 3);
  if (chance(45)) s.crashes = static_cast<std::uint32_t>(1 + rng() % 3);
  s.lost_writes = chance(50);
  std::uint32_t faulty = 0;
  auto take = [&](int percent) -> std::uint32_t {
    if (faulty >= f || !chance(percent)) return 0;
    ++faulty;
    return 1;
  };
  s.twins = take(30);
  if (f >= 2) s.twins += take(30);
  s.mute = take(15);
  s.storage_faults = take(10);
  s.bad_executors = take(8);
  s.restart_all = chance(10);
  return s;
}

std::string Scenario::describe() const {
  std::ostringstream out;
  out << "seed " << seed << ": n=" << validators << " delay " << min_delay_ms << ".." << max_delay_ms << " ms";
  if (drop_per_mille) out << ", drops " << drop_per_mille << "/1000";
  if (partitions) out << ", partitions " << partitions;
  if (crashes) out << ", crashes " << crashes << (lost_writes ? " (unsynced writes lost)" : "");
  if (twins) out << ", twins " << twins;
  if (mute) out << ", mute " << mute;
  if (storage_faults) out << ", disk faults " << storage_faults;
  if (bad_executors) out << ", bad executors " << bad_executors;
  if (restart_all) out << ", all restart at once";
  if (unsafe_round_check) out << ", UNSAFE: no round check";
  return out.str();
}

Outcome run(const Scenario& scenario) { return World(scenario).run(); }

}  // namespace sion::consensus::sim
