#pragma once
// A family of types shaped like Sion's messages (nested structs, lists of
// lists, unions, options, enums), shared by the codec tests and its fuzz
// target. Real message types join the fuzz target as later layers add them.

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>
#include <tuple>
#include <variant>

#include "sion/codec/codec.hpp"

namespace sion::codec::sample {

enum class Urgency : std::uint8_t { low, normal, high };
constexpr std::array<Urgency, 3> codec_enum_values(Urgency) { return {Urgency::low, Urgency::normal, Urgency::high}; }

struct Output {
  base::ByteArray<32> owner{};
  std::uint64_t amount = 0;
  static constexpr std::string_view codec_name = "Output";
  static constexpr auto codec_fields() {
    return std::tuple{field("owner", &Output::owner), field("amount", &Output::amount)};
  }
  bool operator==(const Output&) const = default;
};

struct Transfer {
  List<base::ByteArray<32>, 8> inputs;
  List<Output, 16> outputs;
  static constexpr std::string_view codec_name = "Transfer";
  static constexpr auto codec_fields() {
    return std::tuple{field("inputs", &Transfer::inputs), field("outputs", &Transfer::outputs)};
  }
  bool operator==(const Transfer&) const = default;
};

struct Stake {
  std::uint32_t validator = 0;
  std::uint64_t amount = 0;
  std::optional<std::uint16_t> lock_epochs;
  static constexpr std::string_view codec_name = "Stake";
  static constexpr auto codec_fields() {
    return std::tuple{field("validator", &Stake::validator), field("amount", &Stake::amount),
                      field("lock_epochs", &Stake::lock_epochs)};
  }
  bool operator==(const Stake&) const = default;
};

struct Envelope {
  std::uint8_t version = 0;
  std::uint64_t chain_id = 0;
  std::variant<Transfer, Stake> body;
  std::optional<std::uint64_t> expiry;
  VarBytes<64> memo;
  bool sponsored = false;
  Urgency urgency = Urgency::low;
  List<VarBytes<16>, 4> tags;
  std::array<std::uint32_t, 2> window{};
  static constexpr std::string_view codec_name = "Envelope";
  static constexpr auto codec_fields() {
    return std::tuple{field("version", &Envelope::version), field("chain_id", &Envelope::chain_id),
                      field("body", &Envelope::body),       field("expiry", &Envelope::expiry),
                      field("memo", &Envelope::memo),       field("sponsored", &Envelope::sponsored),
                      field("urgency", &Envelope::urgency), field("tags", &Envelope::tags),
                      field("window", &Envelope::window)};
  }
  bool operator==(const Envelope&) const = default;
};

// Random valid values, for property tests and seed corpora.
class Generator {
 public:
  explicit Generator(std::uint64_t seed) : rng_(seed) {}

  Envelope envelope() {
    Envelope e;
    e.version = static_cast<std::uint8_t>(rng_());
    e.chain_id = wide();
    if (rng_() % 2 == 0) {
      e.body = transfer();
    } else {
      e.body = stake();
    }
    if (rng_() % 2 == 0) e.expiry = wide();
    e.memo = bytes(rng_() % 65);
    e.sponsored = rng_() % 2 == 0;
    e.urgency = static_cast<Urgency>(rng_() % 3);
    const std::size_t tags = rng_() % 5;
    for (std::size_t i = 0; i < tags; ++i) e.tags.push_back(bytes(rng_() % 17));
    e.window = {static_cast<std::uint32_t>(rng_()), static_cast<std::uint32_t>(rng_())};
    return e;
  }

 private:
  // Mixes small and huge numbers so every byte width is exercised.
  std::uint64_t wide() { return rng_() >> (rng_() % 64); }

  base::Bytes bytes(std::size_t n) {
    base::Bytes out(n);
    for (auto& b : out) b = static_cast<std::uint8_t>(rng_());
    return out;
  }

  base::ByteArray<32> hash() {
    base::ByteArray<32> out;
    for (auto& b : out) b = static_cast<std::uint8_t>(rng_());
    return out;
  }

  Transfer transfer() {
    Transfer t;
    const std::size_t inputs = rng_() % 9;
    for (std::size_t i = 0; i < inputs; ++i) t.inputs.push_back(hash());
    const std::size_t outputs = rng_() % 17;
    for (std::size_t i = 0; i < outputs; ++i) t.outputs.push_back(Output{hash(), wide()});
    return t;
  }

  Stake stake() {
    Stake s;
    s.validator = static_cast<std::uint32_t>(rng_());
    s.amount = wide();
    if (rng_() % 2 == 0) s.lock_epochs = static_cast<std::uint16_t>(rng_());
    return s;
  }

  std::mt19937_64 rng_;
};

}  // namespace sion::codec::sample
