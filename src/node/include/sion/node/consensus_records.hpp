#pragma once
// What the consensus driver tells the rest of the node and the API: Pulse
// certificates, evidence of equivocation, and a snapshot of the core's
// state (docs/api.md, "Consensus"). Evidence is also written to disk by the
// driver; certificates of the most recent Pulses are kept here.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "sion/consensus/messages.hpp"

namespace sion::node {

struct EvidenceRecord {
  std::uint32_t offender = 0;  // validator index
  std::string what;
  consensus::Message first;
  consensus::Message second;
  std::uint64_t seen_ms = 0;
};

struct ConsensusStatus {
  bool running = false;
  std::uint32_t self = 0;
  std::uint32_t validators = 0;
  std::uint64_t round = 0;
  std::uint64_t high_qc_round = 0;
  std::uint64_t last_voted_round = 0;
  std::uint64_t delivered_height = 0;  // Pulses delivered by consensus
  std::uint64_t certified_height = 0;  // the highest Pulse with a certificate
  std::vector<std::uint32_t> connected;
  std::uint64_t proposals = 0, votes = 0, timeouts = 0, rejected = 0, blocks_committed = 0;
  std::uint64_t batches_made = 0, batches_refused = 0;
  std::uint64_t inbox_dropped = 0;    // peer messages dropped while the consensus thread was behind
  std::optional<std::string> halted;  // why, once halted
};

class ConsensusRecords {
 public:
  static constexpr std::size_t kCertificatesKept = 4096;

  void add_certificate(consensus::PulseCertificate certificate);
  std::optional<consensus::PulseCertificate> certificate(std::uint64_t height) const;
  void add_evidence(EvidenceRecord record);
  std::vector<EvidenceRecord> evidence() const;
  void set_status(ConsensusStatus status);
  ConsensusStatus status() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::uint64_t, consensus::PulseCertificate> certificates_;
  std::vector<EvidenceRecord> evidence_;
  ConsensusStatus status_;
};

}  // namespace sion::node
