// libFuzzer target: a cohort file's text (JSON, docs/wallet.md "Cohort
// files"), as read from disk. Parsing must give a cohort or fail with a
// reason that names the file, never crash; what parses writes back as text
// that parses to the same cohort. Built with SION_FUZZ_CORPUS_TOOL, the same
// file writes the seed corpus: a valid cohort file.

#include <cstdlib>
#include <fstream>
#include <string>

#include "sion/wallet/cohort_file.hpp"

using namespace sion;

#ifdef SION_FUZZ_CORPUS_TOOL
#include <filesystem>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::filesystem::create_directories(argv[1]);
  wallet::CohortFile file;
  file.cohort.fill(0x5a);
  file.members = 1000;
  file.allotment = 100'000;
  file.caveats.expiry_height = 1'000;
  file.caveats.per_payment = 50;
  file.caveats.period_cap = 500;
  file.caveats.period_length = 10;
  file.caveats.actions = static_cast<std::uint8_t>(agents::Action::pay);
  file.caveats.payee_classes = static_cast<std::uint8_t>(agents::PayeeClass::any);
  const std::string text = wallet::cohort_file_to_json(file);
  if (!wallet::parse_cohort_file(text)) return 1;
  std::ofstream(std::filesystem::path(argv[1]) / "cohort-file-0", std::ios::binary) << text;
  return 0;
}
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = wallet::parse_cohort_file(std::string(reinterpret_cast<const char*>(data), size));
  if (!file) {
    if (file.error().reason.empty()) std::abort();
    return 0;
  }
  const auto again = wallet::parse_cohort_file(wallet::cohort_file_to_json(*file));
  if (!again || !(*again == *file)) std::abort();
  return 0;
}
#endif
