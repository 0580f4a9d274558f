#include "sion/node/consensus_records.hpp"

#include <utility>

namespace sion::node {

void ConsensusRecords::add_certificate(consensus::PulseCertificate certificate) {
  std::lock_guard lock(mutex_);
  const std::uint64_t height = certificate.body.height;
  certificates_.insert_or_assign(height, std::move(certificate));
  if (height > status_.certified_height) status_.certified_height = height;
  while (certificates_.size() > kCertificatesKept) certificates_.erase(certificates_.begin());
}

std::optional<consensus::PulseCertificate> ConsensusRecords::certificate(std::uint64_t height) const {
  std::lock_guard lock(mutex_);
  const auto found = certificates_.find(height);
  if (found == certificates_.end()) return std::nullopt;
  return found->second;
}

void ConsensusRecords::add_evidence(EvidenceRecord record) {
  std::lock_guard lock(mutex_);
  evidence_.push_back(std::move(record));
}

std::vector<EvidenceRecord> ConsensusRecords::evidence() const {
  std::lock_guard lock(mutex_);
  return evidence_;
}

void ConsensusRecords::set_status(ConsensusStatus status) {
  std::lock_guard lock(mutex_);
  status.certified_height = status_.certified_height;
  status_ = std::move(status);
}

ConsensusStatus ConsensusRecords::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

}  // namespace sion::node
