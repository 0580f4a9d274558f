#pragma once
// Result<T>: a value or an Error, returned wherever input arrives (bytes from
// the network or a file, API requests, command lines). Errors say what was
// wrong in words (`reason`) and classify it (`code`), so callers can tell
// "this input is invalid" (reject it, maybe penalise the sender) from "this
// machine failed" (retry, alert) without parsing text.

#include <cassert>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace sion::base {

enum class Errc : unsigned short {
  // Invalid input: the input itself is wrong; retrying cannot help.
  truncated,         // input ended inside a value
  trailing_bytes,    // input continues after the value ended
  length_over_max,   // a length or count exceeds the field's declared maximum
  unknown_tag,       // a union tag names no alternative
  non_canonical,     // a value has a valid but non-canonical encoding
  invalid_value,     // a well-formed value outside its allowed range or set
  invalid_argument,  // a request or command line that makes no sense
  bad_signature,     // a signature that does not verify
  not_found,         // a named object, file or key that does not exist
  // Local failure: the input may be fine; this node could not process it.
  io_error,       // the operating system failed a read, write or call
  corrupt_store,  // bytes this node wrote earlier read back wrong
  unsupported,    // valid request this build cannot serve
  internal,       // an invariant failed; a bug
};

// True for the codes that blame the input rather than this machine.
constexpr bool is_invalid_input(Errc code) noexcept { return code <= Errc::not_found; }

std::string_view errc_name(Errc code) noexcept;

struct Error {
  Errc code = Errc::internal;
  std::string reason;

  bool is_invalid_input() const noexcept { return base::is_invalid_input(code); }
  // "<code name>: <reason>", for logs and command-line messages.
  std::string to_string() const;
  // The same error with "<context>: " before its reason and its code kept,
  // so a caller can say what it was doing ("reading genesis file 'g.json'").
  Error with_context(std::string_view context) &&;
};

// Wraps an Error so `return fail(...)` converts to any Result<T>.
struct Failure {
  Error error;
};

inline Failure fail(Errc code, std::string reason) { return Failure{Error{code, std::move(reason)}}; }
inline Failure fail(Error error) { return Failure{std::move(error)}; }

template <class T>
class [[nodiscard]] Result {
  static_assert(!std::is_reference_v<T>, "Result holds values");
  static_assert(!std::is_same_v<std::remove_cv_t<T>, Error>, "Result<Error> is ambiguous");

 public:
  using value_type = T;

  Result(const T& value) : state_(std::in_place_index<0>, value) {}                      // NOLINT: implicit by design
  Result(T&& value) : state_(std::in_place_index<0>, std::move(value)) {}                // NOLINT
  Result(Failure failure) : state_(std::in_place_index<1>, std::move(failure.error)) {}  // NOLINT

  bool ok() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & {
    assert(ok());
    return *std::get_if<0>(&state_);
  }
  const T& value() const& {
    assert(ok());
    return *std::get_if<0>(&state_);
  }
  T&& value() && {
    assert(ok());
    return std::move(*std::get_if<0>(&state_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const& {
    assert(!ok());
    return *std::get_if<1>(&state_);
  }
  Error&& error() && {
    assert(!ok());
    return std::move(*std::get_if<1>(&state_));
  }

  template <class U>
  T value_or(U&& fallback) const& {
    return ok() ? value() : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Failure failure) : error_(std::move(failure.error)), ok_(false) {}  // NOLINT

  bool ok() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  const Error& error() const& {
    assert(!ok_);
    return error_;
  }
  Error&& error() && {
    assert(!ok_);
    return std::move(error_);
  }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace sion::base

// Propagating errors (modelled on BOOST_OUTCOME_TRY). A Result-valued
// expression is evaluated once; on failure the enclosing function returns its
// error (as a base::Failure, which converts to any Result); on success:
//
//   SION_TRY(auto text, read_file(path));      // declares `text`, the value
//   SION_TRY(config.port, parse_port(field));  // or assigns to an lvalue
//   SION_TRY_STATUS(check(genesis));           // a Status, or a value ignored
//
// The _CONTEXT forms prefix the reason with "<context>: " on failure only (the
// context expression is not evaluated on success):
//
//   SION_TRY_CONTEXT(auto g, "genesis file " + path, parse_genesis(text));
//   SION_TRY_STATUS_CONTEXT("key directory " + dir, check_directory(dir));
//
// Each is a statement of its own (not the unbraced body of an if). The
// temporary takes a unique name from __COUNTER__, so several uses may share a
// scope; no statement expressions (a GNU extension) are needed. The first
// argument may not contain a top-level comma (no structured bindings).
#define SION_TRY_CONCAT_IMPL(a, b) a##b
#define SION_TRY_CONCAT(a, b) SION_TRY_CONCAT_IMPL(a, b)
#define SION_TRY_UNIQUE SION_TRY_CONCAT(sion_try_result_, __COUNTER__)

#define SION_TRY(target, ...) SION_TRY_IMPL(SION_TRY_UNIQUE, target, __VA_ARGS__)
#define SION_TRY_CONTEXT(target, context, ...) SION_TRY_CONTEXT_IMPL(SION_TRY_UNIQUE, target, context, __VA_ARGS__)
#define SION_TRY_STATUS(...) SION_TRY_STATUS_IMPL(SION_TRY_UNIQUE, __VA_ARGS__)
#define SION_TRY_STATUS_CONTEXT(context, ...) SION_TRY_STATUS_CONTEXT_IMPL(SION_TRY_UNIQUE, context, __VA_ARGS__)

// The error of a failed result `tmp`: moved out of a temporary, copied from an lvalue.
#define SION_TRY_ERROR(tmp) ::sion::base::Error(std::forward<decltype(tmp)>(tmp).error())

#define SION_TRY_IMPL(tmp, target, ...)                          \
  auto&& tmp = (__VA_ARGS__);                                    \
  if (!tmp.ok()) return ::sion::base::fail(SION_TRY_ERROR(tmp)); \
  target = std::forward<decltype(tmp)>(tmp).value()
#define SION_TRY_CONTEXT_IMPL(tmp, target, context, ...)                               \
  auto&& tmp = (__VA_ARGS__);                                                          \
  if (!tmp.ok()) return ::sion::base::fail(SION_TRY_ERROR(tmp).with_context(context)); \
  target = std::forward<decltype(tmp)>(tmp).value()
#define SION_TRY_STATUS_IMPL(tmp, ...) \
  if (auto&& tmp = (__VA_ARGS__); !tmp.ok()) return ::sion::base::fail(SION_TRY_ERROR(tmp))
#define SION_TRY_STATUS_CONTEXT_IMPL(tmp, context, ...) \
  if (auto&& tmp = (__VA_ARGS__); !tmp.ok()) return ::sion::base::fail(SION_TRY_ERROR(tmp).with_context(context))
