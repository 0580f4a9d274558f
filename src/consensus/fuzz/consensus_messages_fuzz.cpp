// libFuzzer target: what a peer's bytes do to a validator's consensus core.
// The first byte picks the input's kind:
//   0  one Message: refused with a reason, or re-encodes to the same bytes;
//   1  a session with validator 0 of 4: records of [op, sender, length u16le,
//      body], op 0 a Message from `sender`, op 1 a tick `body[0]` ms later,
//      op 2 a batch of our own, op 3 an executed Pulse. Every record must
//      leave the core consistent (no crash, no sanitizer report), and
//      every action it returns must encode;
//   2  a SafetyState, 3 an Anchor: the records a node keeps on disk for the
//      core, refused with a reason or re-encoded to the same bytes.
// Signatures here are fuzzer-friendly stand-ins: validator v's signature of
// any message of kind k is the single part {k, v}, so inputs reach the
// rules behind the signature checks (certificates, commits, halts).
// Built with SION_FUZZ_CORPUS_TOOL, the same file writes the seed corpus:
// each message kind alone, and the session of validator 0 in a run of four
// cores on an instant network.

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <vector>

#include "sion/base/endian.hpp"
#include "sion/codec/testing/fuzzing.hpp"
#include "sion/consensus/core.hpp"

namespace {

using namespace sion;
using namespace sion::consensus;

enum Kind : std::uint8_t { one_message, session, safety_record, anchor_record, kKinds };
enum Op : std::uint8_t { op_message, op_tick, op_batch, op_executed, kOps };

constexpr std::uint32_t kValidators = 4;
constexpr std::uint64_t kStart = 1'700'000'000'000;

Signature stand_in(SignedKind kind, ValidatorIndex v) {
  Signature s;
  s.parts.emplace_back(base::Bytes{static_cast<std::uint8_t>(kind), static_cast<std::uint8_t>(v)});
  return s;
}

class StandInSigner final : public Signer {
 public:
  explicit StandInSigner(ValidatorIndex v) : v_(v) {}
  base::Result<Signature> sign(SignedKind kind, const Hash&) override { return stand_in(kind, v_); }

 private:
  ValidatorIndex v_;
};

class StandInVerifier final : public Verifier {
 public:
  bool verify(ValidatorIndex v, SignedKind kind, const Hash&, const Signature& s) override {
    return s == stand_in(kind, v);
  }
};

class MemoryStorage final : public Storage {
 public:
  base::Status save_safety(const SafetyState&) override { return {}; }
  base::Status save_batch(const Batch& batch) override {
    batches_.push_back(std::make_shared<const Batch>(batch));
    return {};
  }
  base::Status save_block(const ProposalMessage&) override { return {}; }
  std::shared_ptr<const ProposalMessage> load_block(const Hash&) override { return nullptr; }
  std::shared_ptr<const Batch> load_batch(const Hash& digest) override {
    for (const auto& b : batches_) {
      if (batch_digest(b->header) == digest) return b;
    }
    return nullptr;
  }

 private:
  std::vector<std::shared_ptr<const Batch>> batches_;
};

Hash filled(std::uint8_t b) {
  Hash h;
  h.fill(b);
  return h;
}

CoreOptions options_for(ValidatorIndex self) {
  CoreOptions options;
  options.chain_id = filled(0xc5);
  options.genesis_block = filled(0x6e);
  options.genesis_time_ms = kStart;
  options.self = self;
  options.timing.round_timeout_ms = 50;
  options.timing.idle_block_interval_ms = 20;
  options.timing.min_block_interval_ms = 1;
  options.timing.retry_ms = 10;
  return options;
}

ValidatorSet four() { return ValidatorSet::create(std::vector<std::uint64_t>(kValidators, 1)).value(); }

// Actions: encodable, and a batch to check is answered at once.
void drain(Core& core, std::uint64_t now) {
  for (int guard = 0; guard < 8; ++guard) {
    std::vector<Action> actions = core.take_actions();
    if (actions.empty()) return;
    for (const Action& action : actions) {
      if (const auto* send = std::get_if<SendAction>(&action)) {
        if (encode_message(*send->message).empty()) std::abort();
      } else if (const auto* check = std::get_if<CheckBatchAction>(&action)) {
        core.on_batch_checked(check->digest, (check->digest[0] & 7) != 0, now);
      }
    }
  }
}

void fuzz_session(base::ByteView input) {
  StandInSigner signer(0);
  StandInVerifier verifier;
  MemoryStorage storage;
  Core core(options_for(0), four(), signer, verifier, storage, Recovery{}, kStart);
  std::uint64_t now = kStart;
  std::size_t at = 0;
  while (at + 4 <= input.size()) {
    const std::uint8_t op = input[at] % kOps;
    const ValidatorIndex from = input[at + 1] % kValidators;
    const std::size_t length = base::load_le<std::uint16_t>(input.data() + at + 2);
    at += 4;
    const base::ByteView body = input.subspan(at, std::min(length, input.size() - at));
    at += body.size();
    switch (op) {
      case op_message: {
        auto message = decode_message(body);
        if (message) core.on_message(from, *message, now);
        break;
      }
      case op_tick:
        now += body.empty() ? 1 : body[0];
        core.on_tick(now);
        break;
      case op_batch: (void)core.submit_batch(base::Bytes(body.begin(), body.end()), 1, now); break;
      case op_executed:
        core.on_executed(body.empty() ? 1 : body[0], filled(body.size() > 1 ? body[1] : 0),
                         filled(body.size() > 2 ? body[2] : 0), now);
        break;
      default: break;
    }
    drain(core, now);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  codec::testing::dispatch_by_kind(data, size, kKinds, [](std::uint8_t kind, base::ByteView body) {
    if (kind == one_message) {
      Message message;
      codec::testing::decode_exactly(body, message);
    } else if (kind == safety_record) {
      SafetyState state;
      codec::testing::decode_exactly(body, state);
    } else if (kind == anchor_record) {
      Anchor anchor;
      codec::testing::decode_exactly(body, anchor);
    } else {
      fuzz_session(body);
    }
  });
  return 0;
}

#ifdef SION_FUZZ_CORPUS_TOOL
// Four cores on an instant network for a while; what validator 0 receives,
// with ticks between, is one session seed, and each message also a seed of
// its own.
int main(int argc, char** argv) {
  if (argc != 2) return 2;
  codec::testing::CorpusWriter corpus(argv[1], "consensus");
  std::vector<std::unique_ptr<StandInSigner>> signers;
  std::vector<std::unique_ptr<MemoryStorage>> storages;
  std::vector<std::unique_ptr<Core>> cores;
  StandInVerifier verifier;
  for (ValidatorIndex v = 0; v < kValidators; ++v) {
    signers.push_back(std::make_unique<StandInSigner>(v));
    storages.push_back(std::make_unique<MemoryStorage>());
    cores.push_back(
        std::make_unique<Core>(options_for(v), four(), *signers[v], verifier, *storages[v], Recovery{}, kStart));
  }
  struct InFlight {
    ValidatorIndex from, to;
    std::shared_ptr<const Message> message;
  };
  std::deque<InFlight> network;
  base::Bytes session_seed;
  std::size_t singles = 0;
  const auto record = [&](Op op, ValidatorIndex from, base::ByteView body) {
    session_seed.push_back(op);
    session_seed.push_back(static_cast<std::uint8_t>(from));
    std::uint8_t length[2];
    base::store_le<std::uint16_t>(length, static_cast<std::uint16_t>(body.size()));
    session_seed.insert(session_seed.end(), length, length + 2);
    session_seed.insert(session_seed.end(), body.begin(), body.end());
  };
  std::uint64_t now = kStart;
  for (int step = 0; step < 60; ++step) {
    now += 3;
    record(op_tick, 0, base::Bytes{3});
    for (ValidatorIndex v = 0; v < kValidators; ++v) {
      if (step % 5 == 0) (void)cores[v]->submit_batch(base::Bytes(8, static_cast<std::uint8_t>(step)), 1, now);
      cores[v]->on_tick(now);
    }
    for (int round = 0; round < 4; ++round) {
      for (ValidatorIndex v = 0; v < kValidators; ++v) {
        for (Action& action : cores[v]->take_actions()) {
          if (auto* send = std::get_if<SendAction>(&action)) {
            for (ValidatorIndex to = 0; to < kValidators; ++to) {
              if (to != v && (!send->to || *send->to == to)) network.push_back({v, to, send->message});
            }
          } else if (auto* check = std::get_if<CheckBatchAction>(&action)) {
            cores[v]->on_batch_checked(check->digest, true, now);
          } else if (auto* commit = std::get_if<CommitAction>(&action)) {
            if (commit->height) cores[v]->on_executed(*commit->height, commit->block, commit->block, now);
          }
        }
      }
      while (!network.empty()) {
        InFlight m = std::move(network.front());
        network.pop_front();
        if (m.to == 0) {
          const base::Bytes bytes = encode_message(*m.message);
          if (session_seed.size() + bytes.size() < 60'000) record(op_message, m.from, bytes);
          if (singles < 64 && bytes.size() < 16'000) {
            corpus.write(one_message, bytes);
            ++singles;
          }
        }
        cores[m.to]->on_message(m.from, *m.message, now);
      }
    }
  }
  corpus.write(session, session_seed);
  SafetyState safety;
  safety.last_voted_round = 9;
  corpus.write(safety_record, codec::encode(safety));
  corpus.write(anchor_record, codec::encode(cores[0]->anchor()));
  return 0;
}
#endif
