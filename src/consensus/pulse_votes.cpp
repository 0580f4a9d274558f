// Execution agreement: votes on (height, Pulse hash, state root) and the
// Pulse certificate; a quorum certifying another root halts this validator
// (docs/consensus.md, "Execution").

#include "sion/consensus/core.hpp"

namespace sion::consensus {

namespace {

constexpr Height kPulseVoteWindow = 256;  // heights below the newest executed minus this are forgotten

}  // namespace

void Core::on_executed(Height height, const Hash& pulse, const Hash& state_root, std::uint64_t now_ms) {
  if (halted_) return;
  now_ = std::max(now_, now_ms);
  const PulseVoteBody body{height, pulse, state_root};
  if (!executed_.emplace(height, body).second) return;
  auto signature = signer_.sign(SignedKind::pulse_vote, pulse_vote_signed(options_.chain_id, body));
  if (!signature) {
    halt("could not sign a Pulse vote: " + signature.error().to_string());
    return;
  }
  PulseVoteMessage vote{body, options_.self, std::move(*signature)};
  send(std::nullopt, vote);
  on_pulse_vote(options_.self, vote, true);
  check_pulse(height);
  if (height > kPulseVoteWindow) {
    const Height floor = height - kPulseVoteWindow;
    executed_.erase(executed_.begin(), executed_.lower_bound(floor));
    pulse_votes_.erase(pulse_votes_.begin(), pulse_votes_.lower_bound(floor));
    pulse_certs_.erase(pulse_certs_.begin(), pulse_certs_.lower_bound(floor));
    pulse_announced_.erase(pulse_announced_.begin(), pulse_announced_.lower_bound(floor));
  }
}

void Core::on_pulse_vote(ValidatorIndex from, const PulseVoteMessage& vote, bool own) {
  const Height height = vote.body.height;
  if (!validators_.contains(vote.voter) || height == 0) return;
  if (!own) {
    if (height + kPulseVoteWindow < anchor_.height || height > anchor_.height + kPulseVoteWindow) return;
    if (!verify(vote.voter, SignedKind::pulse_vote, pulse_vote_signed(options_.chain_id, vote.body), vote.signature)) {
      return;
    }
    // A validator voting on a Pulse already certified is behind: hand it the
    // certificate rather than count its vote.
    const auto certificate = pulse_certs_.find(height);
    if (certificate != pulse_certs_.end()) {
      send(from, certificate->second);
      return;
    }
  }
  PulseTally& tally = pulse_votes_[height];
  if (!tally.voters.insert(vote.voter).second) return;
  Tally& body = tally.bodies[vote.body];
  body.signatures.emplace(vote.voter, vote.signature);
  body.stake += validators_.stake(vote.voter);
  if (body.stake < validators_.quorum() || pulse_certs_.contains(height)) return;
  PulseCertificate certificate;
  certificate.body = vote.body;
  certificate.votes = signatures_of(body);
  pulse_certs_.emplace(height, std::move(certificate));
  check_pulse(height);
}

void Core::on_pulse_certificate(const PulseCertificate& certificate) {
  const Height height = certificate.body.height;
  if (height == 0 || pulse_certs_.contains(height)) return;
  if (height + kPulseVoteWindow < anchor_.height || height > anchor_.height + kPulseVoteWindow) return;
  if (!has_quorum(certificate.votes)) return;
  const Hash message = pulse_vote_signed(options_.chain_id, certificate.body);
  for (const SignerSignature& vote : certificate.votes) {
    if (!verify(vote.signer, SignedKind::pulse_vote, message, vote.signature)) return;
  }
  pulse_certs_.emplace(height, certificate);
  check_pulse(height);
}

void Core::check_pulse(Height height) {
  const auto certificate = pulse_certs_.find(height);
  const auto ours = executed_.find(height);
  if (certificate == pulse_certs_.end() || ours == executed_.end()) return;
  const PulseVoteBody& theirs = certificate->second.body;
  if (theirs == ours->second) {
    if (pulse_announced_.insert(height).second) actions_.emplace_back(PulseCertifiedAction{certificate->second});
    return;
  }
  halt("state diverged at height " + std::to_string(height) + ": this validator executed Pulse " +
       base::to_hex(ours->second.pulse) + " to state root " + base::to_hex(ours->second.state_root) +
       ", a quorum certified Pulse " + base::to_hex(theirs.pulse) + " with state root " +
       base::to_hex(theirs.state_root));
}

}  // namespace sion::consensus
