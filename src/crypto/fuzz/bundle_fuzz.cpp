// libFuzzer target: decoding a key bundle, a signature bundle and a message
// from untrusted bytes, then verifying. Decoding must fail with a reason or
// give values that re-encode to the same bytes; verification must return
// and never crash. Built with SION_FUZZ_CORPUS_TOOL, the same file writes
// the seed corpus: valid signed messages for each profile but the slow
// `cold` and `strong` ones.

#include <algorithm>
#include <cstdlib>

#include "fixtures.hpp"
#include "sion/codec/codec.hpp"
#include "sion/crypto/bundle.hpp"

namespace {

using namespace sion;

struct SignedMessage {
  crypto::KeyBundle keys;
  crypto::SignatureBundle signatures;
  codec::VarBytes<1024> context_and_message;  // first byte: context length
  static constexpr std::string_view codec_name = "SignedMessage";
  static constexpr auto codec_fields() {
    return std::tuple{codec::field("keys", &SignedMessage::keys),
                      codec::field("signatures", &SignedMessage::signatures),
                      codec::field("context_and_message", &SignedMessage::context_and_message)};
  }
};

}  // namespace

#ifdef SION_FUZZ_CORPUS_TOOL
int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::filesystem::create_directories(argv[1]);
  int i = 0;
  for (crypto::Profile profile : {crypto::Profile::dual, crypto::Profile::hybrid, crypto::Profile::classic}) {
    crypto::KeySeed seed{};
    seed.fill(static_cast<std::uint8_t>(i + 1));
    auto bundle = crypto::SigningBundle::from_seed(profile, seed).value();
    SignedMessage m;
    m.keys = bundle.public_bundle();
    m.context_and_message = base::Bytes{3, 'c', 't', 'x', 'p', 'a', 'y'};
    m.signatures =
        bundle.sign(base::Bytes{'p', 'a', 'y'}, base::Bytes{'c', 't', 'x'}, crypto::Hedging::deterministic).value();
    const auto bytes = codec::encode(m);
    if (!codec::decode<SignedMessage>(bytes).ok()) return 1;
    std::ofstream(std::filesystem::path(argv[1]) / ("signed-" + std::to_string(i++)), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  return 0;
}
#else
namespace {

void split(const SignedMessage& m, base::ByteView& context, base::ByteView& message) {
  const base::ByteView all(m.context_and_message);
  const std::size_t context_size = all.empty() ? 0 : std::min<std::size_t>(all[0], all.size() - 1);
  context = all.empty() ? all : all.subspan(1, context_size);
  message = all.empty() ? all : all.subspan(1 + context_size);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto decoded = codec::decode<SignedMessage>(base::ByteView(data, size));
  if (!decoded) {
    if (decoded.error().reason.empty()) std::abort();
    return 0;
  }
  const auto again = codec::encode(*decoded);
  if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();
  base::ByteView context;
  base::ByteView message;
  split(*decoded, context, message);
  (void)crypto::verify_bundle(decoded->keys, message, context, decoded->signatures);
  return 0;
}
#endif
