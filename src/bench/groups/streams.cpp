// Group `streams`: payment streams (docs/streams.md): a payee checking
// payments off the ledger with one hash each, the payer's chain and its
// reveals, and settlements in a Pulse, walked and by checkpoint, with their
// stateless replay, fees and published bytes. What each row times, what is
// prepared outside the clock, and its target: docs/performance.md,
// "streams".

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "groups.hpp"
#include "sion/base/cpu.hpp"
#include "sion/bench/cores.hpp"
#include "sion/crypto/keccak.hpp"
#include "sion/exec/genesis.hpp"
#include "sion/exec/pulse.hpp"
#include "sion/exec/trace.hpp"
#include "sion/exec/tx_builder.hpp"
#include "sion/streams/chain.hpp"
#include "sion/streams/objects.hpp"
#include "sion/streams/payee.hpp"
#include "sion/streams/payer.hpp"
#include "sion/wallet/devnet.hpp"
#include "transfers.hpp"

namespace sion::bench::groups {
namespace {

using streams::Payment;
using streams::StreamPayee;

constexpr std::uint8_t kSeedTag = 0x5e;       // the payees' keys: apart from the seeds of other groups
constexpr std::uint8_t kChainSeedTag = 0x5f;  // the chains' seeds
constexpr std::size_t kSettlements = 16;
constexpr std::size_t kLanePayees = 8;
constexpr exec::Amount kPrice = 100;  // per step: a settlement's fee comes out of what it settles
constexpr std::uint64_t kExpiry = 1'000;
constexpr std::uint64_t kHeight = 1;  // the Pulse execute_and_commit runs

// Chain lengths; --quick runs the smaller ones, under names that say so.
// The streams settled by checkpoint end half a spacing past their last
// checkpoint (2^20 - 512 = 1023.5 spacings of 1024), so a settlement walks
// √n / 2 steps: neither the best case (on a checkpoint) nor the worst.
struct Sizes {
  std::uint32_t build;          // the chain the payer builds
  std::uint32_t reveal;         // the chain the payer reveals in full
  std::uint32_t walked;         // the streams settled walked; the payee rows check their payments
  std::uint32_t by_checkpoint;  // the streams settled by checkpoint
};

Sizes sizes_for(bool quick) {
  return quick ? Sizes{4'096, 4'096, 1'024, 4'096 - 32} : Sizes{1'000'000, 1U << 20, 65'536, (1U << 20) - 512};
}

streams::Hash chain_seed(std::uint64_t n) {
  const crypto::KeySeed seed = group_seed(n, kChainSeedTag);
  streams::Hash out{};
  for (std::size_t b = 0; b < out.size() && b < seed.size(); ++b) out[b] = seed[b];
  return out;
}

// A payer's chain and every payment on it, revealed in order (outside
// every clock).
struct RevealedChain {
  streams::Hash seed{};
  std::uint32_t length = 0;
  streams::Hash anchor{};
  streams::Checkpoints checkpoints;
  streams::Hash root{};
  std::vector<Payment> payments;  // payments[i] is x[i + 1]
};

base::Result<RevealedChain> reveal_chain(std::uint64_t n, std::uint32_t length) {
  RevealedChain chain;
  chain.seed = chain_seed(n);
  chain.length = length;
  SION_TRY(auto payer, streams::StreamPayer::create(chain.seed, length));
  chain.anchor = payer.anchor();
  chain.checkpoints = payer.checkpoints();
  chain.root = payer.checkpoint_root();
  chain.payments.reserve(length);
  for (std::uint32_t i = 0; i < length; ++i) {
    SION_TRY(const Payment payment, payer.next());
    chain.payments.push_back(payment);
  }
  return chain;
}

// The stream OpenStream would store for `chain`: nothing settled, a
// deposit for every step.
streams::Stream opened(const exec::Id& payer, const exec::Id& payee, std::uint32_t length, const streams::Hash& anchor,
                       const streams::Hash& root) {
  return streams::Stream{.payer = payer,
                         .payee = payee,
                         .price = kPrice,
                         .length = length,
                         .anchor = anchor,
                         .checkpoints = root,
                         .deposit = kPrice * length,
                         .expiry_height = kExpiry,
                         .settled = 0,
                         .settled_element = anchor};
}

exec::Id stream_id_of(std::size_t i) {
  exec::Id opening{};  // stands for the OpenStream's transaction id
  opening.fill(0x5e);
  opening[0] = static_cast<std::uint8_t>(i);
  return streams::stream_id(opening);
}

base::Result<StreamPayee> open_payee(std::size_t i, const RevealedChain& chain) {
  exec::Id payer{};
  payer.fill(0xa1);
  exec::Id payee{};
  payee.fill(0xb1);
  return StreamPayee::open(stream_id_of(i), opened(payer, payee, chain.length, chain.anchor, chain.root),
                           chain.checkpoints);
}

// The yardstick of the hashing rows: one SHA3-256 of 32 bytes, each input
// the previous digest (as `SHA3-256, 32-byte input` in group state).
Stats time_sha3(const Context& context) {
  crypto::Hash256 digest{};
  return time_per_call(
      [&digest] {
        digest = crypto::sha3_256(digest);
        do_not_optimize(digest);
      },
      context.measure_options());
}

// A payee checking every payment of its chain, one by one; `seconds` gets
// the median per payment.
base::Status report_payee(Context& context, const RevealedChain& chain, const Stats& sha3, double& seconds) {
  SION_TRY(const StreamPayee fresh, open_payee(0, chain));
  StreamPayee payee = fresh;
  bool ok = true;
  const Stats all = time_each_call_after([&] { payee = fresh; },
                                         [&] {
                                           for (const Payment& payment : chain.payments) {
                                             ok &= static_cast<bool>(payee.accept(payment));
                                           }
                                         },
                                         context.measure_options());
  if (!ok || payee.accepted() != chain.length) {
    return base::fail(base::Errc::internal, "streams bench: the payee refused a payment of its chain");
  }
  const Stats each = per(all, chain.length);
  seconds = each.median;
  context.report_time("payee checks a payment (one SHA3-256 hash)", each, TimeUnit::us,
                      fmt::format("{:.2f} million payments/s per core; SHA3-256 of 32 bytes in this run: {:.3f} µs "
                                  "(ratio {:.2f}); StreamPayee::accept over {} consecutive payments",
                                  1e-6 / each.median, seconds_in(TimeUnit::us, sha3.median), each.median / sha3.median,
                                  with_commas(chain.length)));
  return {};
}

base::Status report_lanes(Context& context, std::uint32_t length, const Stats& sha3, double one_by_one) {
  // 8 payees, each of its own stream and chain; their payments interleaved
  // so that round r's 8 lie side by side.
  std::vector<StreamPayee> fresh;
  std::vector<Payment> rounds(kLanePayees * length);
  for (std::size_t k = 0; k < kLanePayees; ++k) {
    SION_TRY(const RevealedChain chain, reveal_chain(100 + k, length));
    SION_TRY(StreamPayee payee, open_payee(k, chain));
    fresh.push_back(std::move(payee));
    for (std::uint32_t r = 0; r < length; ++r) rounds[r * kLanePayees + k] = chain.payments[r];
  }
  std::vector<StreamPayee> payees = fresh;
  std::array<StreamPayee*, kLanePayees> pointers{};
  std::array<streams::PaymentVerdict, kLanePayees> verdicts;
  base::Status status;
  bool ok = true;
  const Stats all = time_each_call_after(
      [&] {
        payees = fresh;
        for (std::size_t k = 0; k < kLanePayees; ++k) pointers[k] = &payees[k];
      },
      [&] {
        for (std::uint32_t r = 0; r < length; ++r) {
          const std::span<const Payment> round(rounds.data() + std::size_t{r} * kLanePayees, kLanePayees);
          if (auto done = StreamPayee::accept_in_lanes(pointers, round, verdicts.data()); !done) status = done;
          for (const streams::PaymentVerdict& verdict : verdicts) ok &= static_cast<bool>(verdict);
        }
      },
      context.measure_options());
  if (!status) return status;
  if (!ok) return base::fail(base::Errc::internal, "streams bench: a payee refused a payment in lanes");
  const Stats each = per(all, kLanePayees * length);
  const base::CpuFeatures& cpu = base::cpu_features();
  context.report_time(fmt::format("payee checks payments from {} streams at once (per payment)", kLanePayees), each,
                      TimeUnit::us,
                      fmt::format("StreamPayee::accept_in_lanes of {} payees' next payments, {} rounds: the index "
                                  "checks per payee, the {} hashes in Keccak lanes ({} lanes on this CPU); {:.2f}x "
                                  "one payment checked alone, {:.2f}x SHA3-256 of 32 bytes; one core",
                                  kLanePayees, with_commas(length), kLanePayees,
                                  cpu.avx512f ? 8
                                  : cpu.avx2  ? 4
                                              : 1,
                                  each.median / one_by_one, each.median / sha3.median));
  return {};
}

// Rows 2 and 3: the payer's chain, built once, and its reveals.
base::Status report_payer(Context& context, const Sizes& sizes, const Stats& sha3) {
  const streams::Hash seed = chain_seed(1);
  bool ok = true;
  const Stats build = time_each_call(
      [&] {
        auto chain = streams::build_chain(seed, sizes.build);
        ok &= chain.ok();
        if (chain) do_not_optimize(chain->root);
      },
      context.measure_options());
  crypto::Hash256 digest{};
  const Stats hashes = time_each_call(
      [&] {
        for (std::uint32_t i = 0; i < sizes.build; ++i) digest = crypto::sha3_256(digest);
        do_not_optimize(digest);
      },
      context.measure_options());
  if (!ok) return base::fail(base::Errc::internal, "streams bench: the chain was not built");
  const std::uint32_t spacing = streams::checkpoint_spacing(sizes.build);
  context.report_time(
      fmt::format("payer builds a chain of {} steps (once)", sizes.build), build, TimeUnit::ms,
      fmt::format("streams::build_chain: {} hashes, {} checkpoints (every {}) and their tree; {} "
                  "chained SHA3-256 hashes of 32 bytes in this run: {:.1f} ms (ratio {:.2f}); one core",
                  with_commas(sizes.build), with_commas(streams::checkpoint_count(sizes.build)), spacing,
                  with_commas(sizes.build), seconds_in(TimeUnit::ms, hashes.median), build.median / hashes.median));

  SION_TRY(const auto created, streams::StreamPayer::create(seed, sizes.reveal));
  const streams::PayerRecord start = created.record();
  std::optional<streams::StreamPayer> payer;
  base::Status status;
  const Stats reveal = time_each_call_after(
      [&] {
        auto resumed = streams::StreamPayer::resume(start);
        if (!resumed) {
          status = base::fail(std::move(resumed).error());
          return;
        }
        payer = std::move(resumed).value();
      },
      [&] {
        if (!payer) return;
        for (std::uint32_t i = 0; i < sizes.reveal; ++i) {
          auto payment = payer->next();
          ok &= payment.ok();
          if (payment) do_not_optimize(payment->element);
        }
      },
      context.measure_options());
  if (!status) return status;
  if (!ok || !payer || payer->revealed() != sizes.reveal) {
    return base::fail(base::Errc::internal, "streams bench: the payer did not reveal its whole chain");
  }
  const Stats each = per(reveal, sizes.reveal);
  context.report_time(
      "payer reveals the next element", each, TimeUnit::us,
      fmt::format("in order; checkpoints every √n steps: StreamPayer::next over a whole chain of {} "
                  "(every {}), {:.2f} SHA3-256 hashes of 32 bytes each in this run; one core",
                  with_commas(sizes.reveal), streams::checkpoint_spacing(sizes.reveal), each.median / sha3.median));
  return {};
}

// A Pulse of settlements: each of kSettlements streams (sharing one chain)
// settled in full by its payee, an account with the default dual keys.
struct Settlements {
  exec::ChainParams params;
  exec::MemoryState pre;
  std::vector<exec::Transaction> txs;
  std::uint32_t steps = 0;  // payments settled by each
  std::string pre_note;
};

base::Result<Settlements> make_settlements(const std::vector<crypto::SigningBundle>& payees,
                                           const streams::Chain& chain, const streams::Hash& seed, bool by_checkpoint) {
  Settlements s;
  s.params.chain_id = wallet::DevnetSpec{}.chain_id;  // the devnet's fees and limits
  s.steps = chain.length;
  exec::Id payer{};
  payer.fill(0xa1);
  streams::Checkpoints checkpoints;
  checkpoints.assign(chain.checkpoints.begin(), chain.checkpoints.end());
  std::vector<state::ObjectWrite> writes;
  for (std::size_t i = 0; i < payees.size(); ++i) {
    const exec::Id payee = exec::account_id(payees[i].public_bundle());
    const streams::Stream stream = opened(payer, payee, chain.length, chain.anchor, chain.root);
    const exec::Id id = stream_id_of(i);
    writes.push_back({id, streams::to_object(stream, 1)});
    writes.push_back({payee, exec::to_object(exec::Account{payees[i].id(), 0}, 1)});
    // The payee has accepted every payment: x[length] is the seed.
    SION_TRY(const StreamPayee side,
             StreamPayee::resume(streams::PayeeRecord{id, stream, checkpoints, chain.length, seed}));
    auto body = by_checkpoint ? side.settle_by_checkpoint() : side.settle_walked(0);
    if (!body) return base::fail(std::move(body).error());
    SION_TRY(auto tx, exec::make_signed(payees[i], s.params, payee, 0, std::move(body).value(), std::nullopt,
                                        crypto::Hedging::deterministic));
    s.txs.push_back(std::move(tx));
  }
  SION_TRY(s.pre, exec::MemoryState::from_writes(writes));
  s.pre_note = fmt::format("pre-state of {} objects in memory", s.pre.objects().size());
  return s;
}

// The settlement Pulse, then its stateless replay, its fee and (by
// checkpoint) its published bytes.
base::Status report_settlements(Context& context, const Settlements& s, bool by_checkpoint) {
  const double payments = static_cast<double>(kSettlements) * s.steps;
  const auto& body = std::get<exec::SettleStream>(s.txs.front().payload.body);
  const std::uint64_t hashes = streams::work_units(body);
  const OneCore core;
  exec::MemoryState post;
  base::Status status;
  const Stats pulse =
      time_each_call_after([&] { post = s.pre; },
                           [&] {
                             if (!status) return;
                             commit::Hash root{};
                             status = execute_and_commit(s.pre, post, s.txs, s.params, exec::PulseOptions{}, root);
                             do_not_optimize(root);
                           },
                           context.measure_options());
  if (!status) return status;
  const std::string how = by_checkpoint ? "by checkpoint" : "walked";
  const std::string work = by_checkpoint ? fmt::format("{} hashes each (the checkpoint's leaf and a path of {})",
                                                       hashes, body.path ? body.path->size() : 0)
                                         : std::string("one hash per step");
  context.report_rate(fmt::format("Pulse of {} settlements × {} steps, {}", kSettlements, s.steps, how), pulse,
                      payments, "payments/s",
                      fmt::format("{:.2f} ms per Pulse with signature checks, {}; {}; post-state root included; {}",
                                  pulse.median * 1e3, core.note(), work, s.pre_note));

  exec::TraceOptions options;  // on this thread
  SION_TRY(const exec::TracedPulse traced, exec::trace_pulse(s.pre, s.txs, s.params, kHeight, options));
  SION_TRY_STATUS(check_all_succeeded(traced.outcome));
  std::size_t witness_bytes = 0;
  for (const auto& chunk : traced.chunks) witness_bytes += codec::encoded_size(chunk.witness);
  SION_TRY(const Stats replay, time_replay(context, traced, s.txs, s.params, kHeight, true));
  context.report_rate(
      "stateless replay of those settlements (stack A)", replay, payments, "payments/s",
      fmt::format("{:.2f} ms per Pulse: replay_chunk of its {} chunk(s) from their witnesses alone, "
                  "signature checks, ids and proofs included, {}; witnesses {:.1f} KiB",
                  replay.median * 1e3, traced.chunks.size(), core.note(), static_cast<double>(witness_bytes) / 1024.0));

  const exec::Transaction& tx = s.txs.front();
  SION_TRY(const exec::Amount fee, exec::required_fee(tx, s.params.fees));
  const std::string units =
      fmt::format("{} units at {} nano-USD per unit", with_commas(fee), exec::kDevnetNanoUsdPerUnit);
  if (!by_checkpoint) {
    context.report("fee per payment, walked settlement", micro_usd(fee) / s.steps, "µUSD",
                   fmt::format("{:.4f} USD for {} steps; {}", micro_usd(fee) / 1e6, s.steps, units));
    return {};
  }
  const double thousands = s.steps / 1000.0;
  context.report("fee per 1,000 payments, settlement by checkpoint", micro_usd(fee) / thousands, "µUSD",
                 fmt::format("{:.4f} USD for {} steps; {}", micro_usd(fee) / 1e6, s.steps, units));
  const std::size_t body_bytes = codec::encoded_size(tx.payload);
  context.report("published bytes per 1,000 payments, by checkpoint", static_cast<double>(body_bytes) / thousands, "B",
                 fmt::format("{} B body; {} B with signatures, which are verified, not published", body_bytes,
                             with_commas(codec::encoded_size(tx))));
  return {};
}

base::Status run(Context& context) {
  const Sizes sizes = sizes_for(context.quick());
  const Stats sha3 = time_sha3(context);

  SION_TRY(const RevealedChain walked_chain, reveal_chain(0, sizes.walked));
  double one_by_one = 0;  // seconds per payment, the yardstick of the lanes row
  SION_TRY_STATUS(report_payee(context, walked_chain, sha3, one_by_one));
  SION_TRY_STATUS(report_payer(context, sizes, sha3));

  // The payees' keys, then the two Pulses; the 16 streams of each share
  // one chain (one seed): building a chain of 2^20 takes a third of a
  // second, and which chain a stream has does not change its settlement.
  std::vector<crypto::SigningBundle> payees;
  for (std::size_t i = 0; i < kSettlements; ++i) {
    SION_TRY(auto keys, crypto::SigningBundle::from_seed(crypto::Profile::dual, group_seed(i, kSeedTag)));
    payees.push_back(std::move(keys));
  }
  {
    SION_TRY(const streams::Chain chain, streams::build_chain(walked_chain.seed, sizes.walked));
    SION_TRY(const Settlements walked, make_settlements(payees, chain, walked_chain.seed, false));
    SION_TRY_STATUS(report_settlements(context, walked, false));
  }
  {
    const streams::Hash seed = chain_seed(2);
    SION_TRY(const streams::Chain chain, streams::build_chain(seed, sizes.by_checkpoint));
    SION_TRY(const Settlements by_checkpoint, make_settlements(payees, chain, seed, true));
    SION_TRY_STATUS(report_settlements(context, by_checkpoint, true));
  }

  return report_lanes(context, sizes.walked, sha3, one_by_one);
}

}  // namespace

Group streams() {
  return {"streams",
          "payment streams: payments checked with one hash, the payer's chain, settlements in a Pulse, walked and by "
          "checkpoint",
          &run};
}

}  // namespace sion::bench::groups
