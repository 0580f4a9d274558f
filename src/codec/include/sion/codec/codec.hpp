#pragma once
// Canonical encoding of typed values (docs/codec.md).
//
// A type is encodable when it is one of:
//   std::uint8_t .. std::uint64_t   fixed-width little endian
//   bool                            one byte, 0 or 1
//   std::array<std::uint8_t, N>     N raw bytes
//   std::array<T, N>                N values in order
//   VarBytes<Max>                   length (ULEB128, <= Max), then the bytes
//   List<T, Max>                    count (ULEB128, <= Max), then the values
//   std::optional<T>                0, or 1 followed by the value
//   std::variant<T0, T1, ...>       tag (u8, index of the alternative), then it
//   an enum E with codec_enum_values(E) found by ADL (a constexpr array of
//                                   every assigned value): its underlying
//                                   value, which must be one of those
//   a struct with a static codec_fields() returning a tuple of
//                                   codec::field("name", &S::member): the
//                                   fields in that order, nothing else
// Every value has exactly one encoding, and decode() accepts exactly that.
// Each Codec<T> also states min_size, the fewest bytes any value of T
// encodes to, so that a list decoder reserves no more elements than the
// input left could hold.
//
// Usage:
//   struct Output {
//     base::ByteArray<32> owner;
//     std::uint64_t amount = 0;
//     static constexpr std::string_view codec_name = "Output";
//     static constexpr auto codec_fields() {
//       return std::tuple{codec::field("owner", &Output::owner),
//                         codec::field("amount", &Output::amount)};
//     }
//     bool operator==(const Output&) const = default;
//   };
//   base::Bytes bytes = codec::encode(output);
//   base::Result<Output> back = codec::decode<Output>(bytes);

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "sion/base/bytes.hpp"
#include "sion/base/result.hpp"
#include "sion/codec/reader.hpp"
#include "sion/codec/writer.hpp"

namespace sion::codec {

// A byte string of at most Max bytes.
template <std::size_t Max>
struct VarBytes : base::Bytes {
  static_assert(Max <= kMaxLength);
  static constexpr std::size_t max_size = Max;
  using base::Bytes::Bytes;
  VarBytes() = default;
  VarBytes(base::Bytes bytes) : base::Bytes(std::move(bytes)) {}  // NOLINT: implicit by design
};

// A sequence of at most Max values.
template <class T, std::size_t Max>
struct List : std::vector<T> {
  static_assert(Max <= kMaxLength);
  static constexpr std::size_t max_size = Max;
  using std::vector<T>::vector;
  List() = default;
  List(std::vector<T> items) : std::vector<T>(std::move(items)) {}  // NOLINT: implicit by design
};

template <class S, class M>
struct Field {
  std::string_view name;
  M S::*member;
};

template <class S, class M>
constexpr Field<S, M> field(std::string_view name, M S::*member) noexcept {
  return {name, member};
}

template <class T>
struct Codec;  // specialised below for each encodable kind

template <class T>
concept Encodable = requires(Writer& w, Reader& r, const T& in, T& out) {
  Codec<T>::encode(w, in);
  Codec<T>::decode(r, out);
  { Codec<T>::valid(in) } -> std::same_as<bool>;
  { Codec<T>::min_size } -> std::convertible_to<std::size_t>;
};

// The fewest bytes any value of T encodes to.
template <Encodable T>
inline constexpr std::size_t min_encoded_size = Codec<T>::min_size;

// The name a type carries in error messages.
template <class T>
constexpr std::string_view type_name() {
  if constexpr (requires { T::codec_name; }) {
    return T::codec_name;
  } else {
    return {};
  }
}

template <class T>
requires std::same_as<T, std::uint8_t> || std::same_as<T, std::uint16_t> || std::same_as<T, std::uint32_t> ||
    std::same_as<T, std::uint64_t>
struct Codec<T> {
  static void encode(Writer& w, T v) {
    if constexpr (sizeof(T) == 1) w.u8(v);
    if constexpr (sizeof(T) == 2) w.u16(v);
    if constexpr (sizeof(T) == 4) w.u32(v);
    if constexpr (sizeof(T) == 8) w.u64(v);
  }
  static void decode(Reader& r, T& v) {
    if constexpr (sizeof(T) == 1) v = r.u8();
    if constexpr (sizeof(T) == 2) v = r.u16();
    if constexpr (sizeof(T) == 4) v = r.u32();
    if constexpr (sizeof(T) == 8) v = r.u64();
  }
  static constexpr bool valid(T) { return true; }
  static constexpr std::size_t min_size = sizeof(T);
};

template <>
struct Codec<bool> {
  static void encode(Writer& w, bool v) { w.boolean(v); }
  static void decode(Reader& r, bool& v) { v = r.boolean(); }
  static constexpr bool valid(bool) { return true; }
  static constexpr std::size_t min_size = 1;
};

template <std::size_t N>
struct Codec<std::array<std::uint8_t, N>> {
  static void encode(Writer& w, const std::array<std::uint8_t, N>& v) { w.bytes(v); }
  static void decode(Reader& r, std::array<std::uint8_t, N>& v) { r.bytes(v); }
  static constexpr bool valid(const std::array<std::uint8_t, N>&) { return true; }
  static constexpr std::size_t min_size = N;
};

template <Encodable T, std::size_t N>
requires(!std::same_as<T, std::uint8_t>) struct Codec<std::array<T, N>> {
  static void encode(Writer& w, const std::array<T, N>& v) {
    for (const T& item : v) Codec<T>::encode(w, item);
  }
  static void decode(Reader& r, std::array<T, N>& v) {
    for (std::size_t i = 0; i < N && r.ok(); ++i) {
      auto scope = r.element(i);
      Codec<T>::decode(r, v[i]);
    }
  }
  static bool valid(const std::array<T, N>& v) {
    for (const T& item : v) {
      if (!Codec<T>::valid(item)) return false;
    }
    return true;
  }
  static constexpr std::size_t min_size = N * Codec<T>::min_size;
};

template <std::size_t Max>
struct Codec<VarBytes<Max>> {
  static void encode(Writer& w, const VarBytes<Max>& v) {
    w.length(v.size());
    w.bytes(v);
  }
  static void decode(Reader& r, VarBytes<Max>& v) {
    const std::size_t n = r.length(Max);
    const base::ByteView data = r.take(n);
    v.assign(data.begin(), data.end());
  }
  static bool valid(const VarBytes<Max>& v) { return v.size() <= Max; }
  static constexpr std::size_t min_size = 1;  // the length 0
};

template <Encodable T, std::size_t Max>
struct Codec<List<T, Max>> {
  static void encode(Writer& w, const List<T, Max>& v) {
    w.length(v.size());
    for (const T& item : v) Codec<T>::encode(w, item);
  }
  static void decode(Reader& r, List<T, Max>& v) {
    const std::size_t n = r.length(Max);
    v.clear();
    // A count is attacker data: reserve no more elements than the bytes
    // left could encode (and the one a failure stops in), so memory stays
    // within sizeof(T) / min_size of the input's size whatever the count
    // says, and the vector never has to grow.
    constexpr std::size_t per_item = Codec<T>::min_size == 0 ? 1 : Codec<T>::min_size;
    v.reserve(std::min(n, r.remaining() / per_item + 1));
    for (std::size_t i = 0; i < n && r.ok(); ++i) {
      auto scope = r.element(i);
      Codec<T>::decode(r, v.emplace_back());
    }
  }
  static bool valid(const List<T, Max>& v) {
    if (v.size() > Max) return false;
    for (const T& item : v) {
      if (!Codec<T>::valid(item)) return false;
    }
    return true;
  }
  static constexpr std::size_t min_size = 1;  // the count 0
};

template <Encodable T>
struct Codec<std::optional<T>> {
  static void encode(Writer& w, const std::optional<T>& v) {
    w.boolean(v.has_value());
    if (v) Codec<T>::encode(w, *v);
  }
  static void decode(Reader& r, std::optional<T>& v) {
    v.reset();
    if (r.boolean()) Codec<T>::decode(r, v.emplace());
  }
  static bool valid(const std::optional<T>& v) { return !v || Codec<T>::valid(*v); }
  static constexpr std::size_t min_size = 1;  // absent
};

template <Encodable... Ts>
struct Codec<std::variant<Ts...>> {
  static_assert(sizeof...(Ts) >= 1 && sizeof...(Ts) <= 256, "a union tag is one byte");
  using Variant = std::variant<Ts...>;

  static void encode(Writer& w, const Variant& v) {
    w.u8(static_cast<std::uint8_t>(v.index()));
    std::visit([&w](const auto& alt) { Codec<std::decay_t<decltype(alt)>>::encode(w, alt); }, v);
  }
  static void decode(Reader& r, Variant& v) {
    const std::size_t tag = r.u8();
    if (!r.ok()) return;
    if (tag >= sizeof...(Ts)) {
      r.fail(base::Errc::unknown_tag, "union tag " + std::to_string(tag) + " names no alternative (there are " +
                                          std::to_string(sizeof...(Ts)) + ")");
      return;
    }
    decode_alternative(r, v, tag, std::index_sequence_for<Ts...>{});
  }
  static bool valid(const Variant& v) {
    return std::visit([](const auto& alt) { return Codec<std::decay_t<decltype(alt)>>::valid(alt); }, v);
  }
  static constexpr std::size_t min_size = 1 + std::min({Codec<Ts>::min_size...});

 private:
  template <std::size_t... Is>
  static void decode_alternative(Reader& r, Variant& v, std::size_t tag, std::index_sequence<Is...>) {
    ((tag == Is ? decode_as<Is>(r, v) : void()), ...);
  }
  template <std::size_t I>
  static void decode_as(Reader& r, Variant& v) {
    using Alt = std::variant_alternative_t<I, Variant>;
    constexpr std::string_view name = type_name<Alt>();
    if constexpr (name.empty()) {
      Codec<Alt>::decode(r, v.template emplace<I>());
    } else {
      auto scope = r.field(name);
      Codec<Alt>::decode(r, v.template emplace<I>());
    }
  }
};

// Enums: codec_enum_values(E{}) lists every assigned value, so that a value
// between two assigned ones (a gap in the numbering) is refused like one
// above the largest (docs/codec.md).
template <class E>
requires std::is_enum_v<E> && requires(E e) {
  { codec_enum_values(e).size() } -> std::convertible_to<std::size_t>;
  { codec_enum_values(e)[0] } -> std::convertible_to<E>;
}
struct Codec<E> {
  using Underlying = std::underlying_type_t<E>;
  static_assert(std::is_unsigned_v<Underlying>, "encoded enums have unsigned underlying types");
  static_assert(codec_enum_values(E{}).size() >= 1, "an encoded enum has at least one value");

  static void encode(Writer& w, E v) { Codec<Underlying>::encode(w, static_cast<Underlying>(v)); }
  static void decode(Reader& r, E& v) {
    Underlying raw{};
    Codec<Underlying>::decode(r, raw);
    if (!r.ok()) return;
    if (!valid(static_cast<E>(raw))) {
      r.fail(base::Errc::invalid_value, "enum value " + std::to_string(raw) + " is not an assigned value");
      return;
    }
    v = static_cast<E>(raw);
  }
  static constexpr bool valid(E v) {
    for (const auto value : codec_enum_values(E{})) {
      if (static_cast<E>(value) == v) return true;
    }
    return false;
  }
  static constexpr std::size_t min_size = sizeof(Underlying);
};

// The sum of a struct's fields' min_size.
template <class S>
constexpr std::size_t fields_min_size() {
  return std::apply(
      [](const auto&... f) {
        return (std::size_t{0} + ... +
                Codec<std::remove_cvref_t<decltype(std::declval<const S&>().*(f.member))>>::min_size);
      },
      S::codec_fields());
}

template <class S>
requires requires { S::codec_fields(); }
struct Codec<S> {
  static constexpr std::size_t min_size = fields_min_size<S>();

  static void encode(Writer& w, const S& v) {
    std::apply([&](const auto&... f) { (Codec<member_t<decltype(f)>>::encode(w, v.*(f.member)), ...); },
               S::codec_fields());
  }
  static void decode(Reader& r, S& v) {
    std::apply([&](const auto&... f) { ((r.ok() ? decode_field(r, v, f) : void()), ...); }, S::codec_fields());
  }
  static bool valid(const S& v) {
    return std::apply([&](const auto&... f) { return (Codec<member_t<decltype(f)>>::valid(v.*(f.member)) && ...); },
                      S::codec_fields());
  }

 private:
  template <class F>
  using member_t = std::remove_cvref_t<decltype(std::declval<const S&>().*(std::declval<F>().member))>;

  template <class F>
  static void decode_field(Reader& r, S& v, const F& f) {
    auto scope = r.field(f.name);
    Codec<member_t<F>>::decode(r, v.*(f.member));
  }
};

// Encodes a value. Precondition: valid(value) (every length within its
// maximum); values decoded by decode() always are. Use encode_checked() for
// values assembled from outside input.
// The length of encode(value), without building it.
template <Encodable T>
std::size_t encoded_size(const T& value) {
  Writer w = Writer::counter();
  Codec<T>::encode(w, value);
  return w.size();
}

template <Encodable T>
base::Bytes encode(const T& value) {
  base::Bytes out;
  // One allocation: a transaction's signatures alone are ~19 KB, which
  // growth by doubling would copy several times over.
  out.reserve(encoded_size(value));
  Writer w(out);
  Codec<T>::encode(w, value);
  return out;
}

template <Encodable T>
void encode_to(Writer& w, const T& value) {
  Codec<T>::encode(w, value);
}

// The encodings of several values back to back in one buffer, one
// allocation for all: for hashing many values at once. Same precondition
// as encode().
class EncodingBatch {
 public:
  EncodingBatch() = default;
  EncodingBatch(const EncodingBatch&) = delete;  // the writer points into bytes_
  EncodingBatch& operator=(const EncodingBatch&) = delete;

  template <Encodable T>
  void add(const T& value) {
    Codec<T>::encode(writer_, value);
    ends_.push_back(bytes_.size());
  }
  // One view per add(), in order; valid until the next add().
  std::vector<base::ByteView> views() const {
    std::vector<base::ByteView> out(ends_.size());
    for (std::size_t i = 0; i < ends_.size(); ++i) {
      const std::size_t begin = i == 0 ? 0 : ends_[i - 1];
      out[i] = base::ByteView(bytes_.data() + begin, ends_[i] - begin);
    }
    return out;
  }

 private:
  base::Bytes bytes_;
  Writer writer_{bytes_};
  std::vector<std::size_t> ends_;
};

template <Encodable T>
bool valid(const T& value) {
  return Codec<T>::valid(value);
}

template <Encodable T>
base::Result<base::Bytes> encode_checked(const T& value) {
  if (!Codec<T>::valid(value)) {
    return base::fail(base::Errc::length_over_max, std::string(type_name<T>().empty() ? "value" : type_name<T>()) +
                                                       ": a length or count exceeds its field's maximum");
  }
  return encode(value);
}

// Decodes a value from the reader's current position (for nested formats).
template <Encodable T>
void decode_from(Reader& r, T& value) {
  Codec<T>::decode(r, value);
}

// Decodes exactly one value that must fill `bytes`.
template <Encodable T>
base::Result<T> decode(base::ByteView bytes) {
  Reader r(bytes, type_name<T>());
  T value{};
  Codec<T>::decode(r, value);
  SION_TRY_STATUS(r.finish());
  return value;
}

}  // namespace sion::codec
