// libFuzzer target: the text of a payer, offer or payee file (JSON,
// docs/wallet.md "Streams"), as `sion stream` reads them from disk. The
// first byte picks the parser, the rest is the file. Parsing must give a
// file or fail with a reason that names the kind of file, never crash; what
// parses writes back as text that parses to the same file. Built with
// SION_FUZZ_CORPUS_TOOL, the same source writes the seed corpus: one valid
// file of each kind, and near misses.

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "sion/wallet/stream_files.hpp"

using namespace sion;

namespace {

// The parser a first byte picks.
enum class Kind : std::uint8_t { payer = 0, offer = 1, payee = 2 };

template <class Value>
void check(const base::Result<Value>& parsed, std::string_view what, std::string (*write)(const Value&),
           base::Result<Value> (*parse)(std::string_view)) {
  if (!parsed) {
    if (parsed.error().reason.rfind(std::string(what) + " file: ", 0) != 0) std::abort();
    return;
  }
  const auto again = parse(write(*parsed));
  if (!again || !(*again == *parsed)) std::abort();
}

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
#include <filesystem>

namespace {

streams::Hash filled(std::uint8_t byte) {
  streams::Hash hash{};
  hash.fill(byte);
  return hash;
}

void write_seed(const std::filesystem::path& dir, const std::string& name, Kind kind, const std::string& text) {
  std::ofstream(dir / name, std::ios::binary) << static_cast<char>(kind) << text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::filesystem::path dir(argv[1]);
  std::filesystem::create_directories(dir);
  // 40 payments: spacing 8, five checkpoints.
  auto chain = streams::StreamPayer::create(filled(0x11), 40);
  if (!chain) return 1;
  wallet::PayerFile payer;
  payer.stream = filled(0x22);
  payer.payee = filled(0x33);
  payer.price = 1'000;
  payer.deposit = 30'000;
  payer.expiry_height = 500;
  payer.record = chain->record();

  streams::Stream terms;
  terms.payer = filled(0x44);
  terms.payee = payer.payee;
  terms.price = payer.price;
  terms.length = 40;
  terms.anchor = chain->anchor();
  terms.checkpoints = chain->checkpoint_root();
  terms.deposit = payer.deposit;
  terms.expiry_height = payer.expiry_height;
  terms.settled = 0;
  terms.settled_element = chain->anchor();
  auto payee = streams::StreamPayee::open(payer.stream, terms, chain->checkpoints());
  if (!payee) return 1;
  for (int i = 0; i < 12; ++i) {
    auto payment = chain->next();
    if (!payment || !payee->accept(*payment)) return 1;
  }
  payer.record = chain->record();
  const wallet::OfferFile offer{payer.stream, 40, chain->checkpoints()};

  const std::string payer_text = wallet::payer_file_to_json(payer);
  const std::string offer_text = wallet::offer_file_to_json(offer);
  const std::string payee_text = wallet::payee_file_to_json(payee->record());
  if (!wallet::parse_payer_file(payer_text) || !wallet::parse_offer_file(offer_text) ||
      !wallet::parse_payee_file(payee_text)) {
    return 1;
  }
  write_seed(dir, "payer-file-0", Kind::payer, payer_text);
  write_seed(dir, "offer-file-0", Kind::offer, offer_text);
  write_seed(dir, "payee-file-0", Kind::payee, payee_text);
  // Near misses: each text under another kind's parser, and one cut short.
  write_seed(dir, "payer-as-offer", Kind::offer, payer_text);
  write_seed(dir, "offer-as-payee", Kind::payee, offer_text);
  write_seed(dir, "payee-cut", Kind::payee, payee_text.substr(0, payee_text.size() / 2));
  return 0;
}
#else
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (static_cast<Kind>(data[0] % 3)) {
    case Kind::payer:
      check<wallet::PayerFile>(wallet::parse_payer_file(text), "payer", &wallet::payer_file_to_json,
                               &wallet::parse_payer_file);
      break;
    case Kind::offer:
      check<wallet::OfferFile>(wallet::parse_offer_file(text), "offer", &wallet::offer_file_to_json,
                               &wallet::parse_offer_file);
      break;
    case Kind::payee:
      check<streams::PayeeRecord>(wallet::parse_payee_file(text), "payee", &wallet::payee_file_to_json,
                                  &wallet::parse_payee_file);
      break;
  }
  return 0;
}
#endif
