#include "sion/exec/genesis.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "sion/base/bytes.hpp"
#include "sion/base/random.hpp"
#include "sion/codec/codec.hpp"
#include "sion/commit/smt.hpp"

namespace sion::exec {
namespace {

using base::Errc;
using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kMaxGenesisCoins = kMaxU32 + std::uint64_t{1};  // coin indices are u32
constexpr std::size_t kMaxKeyFileBytes = 4096;
constexpr std::size_t kMaxJsonDepth = 32;
constexpr std::size_t kMaxDevnetAccounts = 1'000'000;

// ---- Operating-system calls: every one this file makes is in this section. ----

std::string quoted_path(const std::string& path) { return "'" + path + "'"; }

base::Failure os_error(const std::string& what, const std::string& path, int error) {
  return base::fail(Errc::io_error, "cannot " + what + " " + quoted_path(path) + ": " + std::strerror(error));
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const noexcept { return fd_; }
  // Closes now, so that a failing close() is reported.
  bool close() noexcept {
    const int fd = std::exchange(fd_, -1);
    return ::close(fd) == 0;
  }

 private:
  int fd_;
};

// True if anything (even a dangling link) is at `path`: O_EXCL would fail.
bool path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void remove_file(const std::string& path) noexcept { ::unlink(path.c_str()); }

struct ReadOptions {
  std::string_view what;        // "genesis file", "key file"
  std::size_t max_bytes = 0;
  bool owner_only = false;      // refuse a file group or others may access
};

// Reads a whole regular file of at most max_bytes.
base::Result<std::string> read_file(const std::string& path, const ReadOptions& options) {
  const std::string name = std::string(options.what) + " " + quoted_path(path);
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    const int error = errno;
    if (error == ENOENT) return base::fail(Errc::not_found, name + ": no such file");
    return os_error("read " + std::string(options.what), path, error);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return os_error("read " + std::string(options.what), path, errno);
  if (!S_ISREG(st.st_mode)) return base::fail(Errc::invalid_argument, name + ": not a regular file");
  const auto mode = static_cast<unsigned>(st.st_mode & 07777);
  if (options.owner_only && (mode & 077u) != 0) {
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", mode);
    return base::fail(Errc::invalid_argument,
                      name + ": group or others may access it (mode " + octal +
                          "); a key file must be readable by its owner only (chmod 600)");
  }
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      base::secure_wipe(buffer, sizeof buffer);
      return os_error("read " + std::string(options.what), path, error);
    }
    if (got == 0) break;
    if (text.size() + static_cast<std::size_t>(got) > options.max_bytes) {
      base::secure_wipe(buffer, sizeof buffer);
      base::secure_wipe(text.data(), text.size());
      return base::fail(Errc::invalid_value,
                        name + ": larger than " + std::to_string(options.max_bytes) + " bytes");
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
  base::secure_wipe(buffer, sizeof buffer);
  return text;
}

// Creates `path` (never over an existing one: O_EXCL), writes `text` and
// syncs it. With exact_mode the mode is set to `mode` whatever the umask.
// A failed write removes the file.
base::Status write_new_file(const std::string& path, std::string_view text, mode_t mode, bool exact_mode,
                            std::string_view what) {
  FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
  if (fd.get() < 0) {
    const int error = errno;
    if (error == EEXIST) {
      return base::fail(Errc::invalid_argument, std::string(what) + " " + quoted_path(path) + " already exists");
    }
    return os_error("create " + std::string(what), path, error);
  }
  const auto fail_and_remove = [&](int error) -> base::Status {
    remove_file(path);
    return os_error("write " + std::string(what), path, error);
  };
  if (exact_mode && ::fchmod(fd.get(), mode) != 0) return fail_and_remove(errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t put = ::write(fd.get(), text.data() + done, text.size() - done);
    if (put < 0) {
      if (errno == EINTR) continue;
      return fail_and_remove(errno);
    }
    done += static_cast<std::size_t>(put);
  }
  if (::fsync(fd.get()) != 0) return fail_and_remove(errno);
  if (!fd.close()) return fail_and_remove(errno);
  return {};
}

// Replaces `path` atomically: a temporary file beside it, then rename(2).
base::Status replace_file(const std::string& path, std::string_view text, mode_t mode, std::string_view what) {
  const std::string temporary = path + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  remove_file(temporary);  // left by an earlier run of a process with this id
  if (auto status = write_new_file(temporary, text, mode, false, what); !status) return status;
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    remove_file(temporary);
    return os_error("write " + std::string(what), path, error);
  }
  return {};
}

// Creates the parents of `path` that are missing (with the default mode).
base::Status create_parents(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return {};
  std::error_code error;
  std::filesystem::create_directories(parent, error);
  if (error) {
    return base::fail(Errc::io_error, "cannot create directory " + quoted_path(parent.string()) + ": " +
                                          error.message());
  }
  return {};
}

// Creates directory `path` with mode 0700 (and its missing parents); an
// existing directory is kept as it is.
base::Status create_private_directory(const std::string& path) {
  if (is_directory(path)) return {};
  if (auto status = create_parents(path); !status) return status;
  if (::mkdir(path.c_str(), 0700) != 0) {
    const int error = errno;
    if (error == EEXIST && is_directory(path)) return {};
    return os_error("create directory", path, error);
  }
  return {};
}

// ---- JSON reading -----------------------------------------------------------------

// nlohmann's own messages start with "[json.exception.parse_error.101] ".
std::string without_json_tag(std::string text) {
  const auto end = text.find("] ");
  if (text.rfind("[json.exception.", 0) == 0 && end != std::string::npos) text.erase(0, end + 2);
  return text;
}

std::string member_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string item_path(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

// A string as JSON writes it, shortened if long (for messages).
std::string json_quoted(const std::string& text) {
  constexpr std::size_t kShown = 40;
  std::string shown = json(text).dump(-1, ' ', true, json::error_handler_t::replace);
  if (shown.size() > kShown + 2) shown = shown.substr(0, kShown + 1) + "...\"";
  return shown;
}

// Builds a DOM like json::parse, but (1) keeps every number that is not an
// integer nlohmann can hold exactly (fractions, exponents, integers beyond
// 64 bits) as its source text, in a binary value, which JSON text itself
// can never produce; so no such number is ever rounded into a double and
// messages quote it as written; (2) refuses duplicate keys, which
// json::parse would silently resolve; (3) bounds the nesting depth.
class DomBuilder {
 public:
  explicit DomBuilder(std::string prefix) : prefix_(std::move(prefix)) {}

  bool null() { return add(json(nullptr)); }
  bool boolean(bool value) { return add(json(value)); }
  bool number_integer(json::number_integer_t value) { return add(json(value)); }
  bool number_unsigned(json::number_unsigned_t value) { return add(json(value)); }
  bool number_float(json::number_float_t /*rounded*/, const json::string_t& text) {
    return add(json::binary(json::binary_t::container_type(text.begin(), text.end())));
  }
  bool string(json::string_t& value) { return add(json(std::move(value))); }
  bool binary(json::binary_t& /*value*/) { return stop("", "binary values are not JSON"); }
  bool start_object(std::size_t /*size*/) { return open(json::object()); }
  bool key(json::string_t& name) {
    const Frame& top = stack_.back();
    if (top.value->contains(name)) return stop(top.path, "duplicate field " + json_quoted(name));
    key_ = std::move(name);
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*size*/) { return open(json::array()); }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/, const json::exception& error) {
    return stop("", "not JSON: " + without_json_tag(error.what()));
  }

  json& root() { return root_; }
  const std::optional<base::Error>& error() const { return error_; }

 private:
  struct Frame {
    json* value;
    std::string path;
  };

  bool stop(const std::string& path, const std::string& why) {
    if (!error_) error_ = base::Error{Errc::invalid_value, prefix_ + (path.empty() ? "" : path + ": ") + why};
    return false;
  }

  // Puts `value` where the parser is (the root, the next array item, or
  // the field of the last key) and returns it with its path. An enclosing
  // container gains nothing while a child is open, so pointers into it stay
  // valid for as long as they are on the stack.
  std::pair<json*, std::string> place(json&& value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return {&root_, std::string{}};
    }
    Frame& top = stack_.back();
    if (top.value->is_array()) {
      std::string path = item_path(top.path, top.value->size());
      top.value->push_back(std::move(value));
      return {&top.value->back(), std::move(path)};
    }
    json& slot = (*top.value)[key_];
    slot = std::move(value);
    return {&slot, member_path(top.path, key_)};
  }

  bool add(json&& value) {
    place(std::move(value));
    return true;
  }

  bool open(json&& container) {
    if (stack_.size() >= kMaxJsonDepth) {
      return stop(stack_.back().path, "nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
    }
    auto [value, path] = place(std::move(container));
    stack_.push_back({value, std::move(path)});
    return true;
  }

  std::string prefix_;
  json root_;
  std::vector<Frame> stack_;
  std::string key_;
  std::optional<base::Error> error_;
};

base::Result<json> parse_json(std::string_view text, const std::string& prefix) {
  DomBuilder builder(prefix);
  try {
    const bool parsed = json::sax_parse(text.begin(), text.end(), &builder);
    if (builder.error()) return base::fail(*builder.error());
    if (!parsed) return base::fail(Errc::invalid_value, prefix + "not JSON");
  } catch (const json::exception& e) {
    return base::fail(Errc::invalid_value, prefix + "not JSON: " + without_json_tag(e.what()));
  }
  return std::move(builder.root());
}

// Reads values out of a DOM, naming the JSON path of whatever is wrong.
class Reader {
 public:
  explicit Reader(std::string prefix) : prefix_(std::move(prefix)) {}

  base::Failure invalid(const std::string& path, const std::string& why) const {
    return base::fail(Errc::invalid_value, prefix_ + (path.empty() ? "" : path + ": ") + why);
  }

  static std::string describe(const json& value) {
    switch (value.type()) {
      case json::value_t::null: return "null";
      case json::value_t::boolean: return value.get<bool>() ? "true" : "false";
      case json::value_t::number_integer: return std::to_string(value.get<std::int64_t>());
      case json::value_t::number_unsigned: return std::to_string(value.get<std::uint64_t>());
      case json::value_t::binary: {
        // A number as written: it could be very long.
        const auto& text = value.get_binary();
        constexpr std::size_t kShown = 40;
        if (text.size() <= kShown) return std::string(text.begin(), text.end());
        return std::string(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(kShown)) + "...";
      }
      case json::value_t::string: return "the string " + json_quoted(value.get_ref<const std::string&>());
      case json::value_t::array: return "an array";
      case json::value_t::object: return "an object";
      default: return "an unknown value";
    }
  }

  // An object with exactly these fields.
  base::Status expect_fields(const json& value, const std::string& path,
                             std::initializer_list<std::string_view> names) const {
    if (!value.is_object()) return invalid(path, "expected an object, got " + describe(value));
    for (std::string_view name : names) {
      if (!value.contains(name)) return invalid(path, "missing field \"" + std::string(name) + "\"");
    }
    for (const auto& item : value.items()) {
      const bool known = std::find(names.begin(), names.end(), std::string_view(item.key())) != names.end();
      if (!known) return invalid(path, "unknown field " + json_quoted(item.key()));
    }
    return {};
  }

  // An integer written in decimal without fraction or exponent, 0 ..= max.
  base::Result<std::uint64_t> unsigned_integer(const json& value, const std::string& path,
                                               std::uint64_t max = kMaxU64) const {
    std::uint64_t number = 0;
    if (value.is_number_unsigned()) {
      number = value.get<std::uint64_t>();
    } else if (value.is_number_integer() && value.get<std::int64_t>() == 0) {
      number = 0;  // written "-0"
    } else if (value.is_binary()) {
      const auto& text = value.get_binary();
      const bool digits_only = !text.empty() && std::all_of(text.begin(), text.end(), [](std::uint8_t c) {
        return c >= '0' && c <= '9';
      });
      if (digits_only) {
        return invalid(path, "value " + describe(value) + " is over the maximum " + std::to_string(max));
      }
      return invalid(path, "expected an unsigned integer, got " + describe(value));
    } else {
      return invalid(path, "expected an unsigned integer, got " + describe(value));
    }
    if (number > max) {
      return invalid(path, "value " + std::to_string(number) + " is over the maximum " + std::to_string(max));
    }
    return number;
  }

  base::Result<std::string> string(const json& value, const std::string& path) const {
    if (!value.is_string()) return invalid(path, "expected a string, got " + describe(value));
    return value.get_ref<const std::string&>();
  }

  // Lower-case hex (the one form genesis_to_json writes), `size` bytes if nonzero.
  base::Result<base::Bytes> hex(const json& value, const std::string& path, std::size_t size = 0) const {
    if (!value.is_string()) return invalid(path, "expected a string of hex digits, got " + describe(value));
    const std::string& text = value.get_ref<const std::string&>();
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return invalid(path, "expected lower-case hex digits, found a character other than 0-9, a-f at offset " +
                                 std::to_string(i));
      }
    }
    if (text.size() % 2 != 0) return invalid(path, "an odd number of hex digits");
    if (size != 0 && text.size() != 2 * size) {
      return invalid(path, "expected " + std::to_string(2 * size) + " hex digits, got " +
                               std::to_string(text.size()));
    }
    if (text.empty()) return invalid(path, "empty");
    auto bytes = base::from_hex(text);
    if (!bytes) return invalid(path, bytes.error().reason);
    return std::move(bytes).value();
  }

 private:
  std::string prefix_;
};

const std::string kGenesisPrefix = "genesis: ";

base::Result<Genesis> genesis_from_document(const json& document) {
  const Reader reader(kGenesisPrefix);
  if (auto s = reader.expect_fields(document, "", {"chain_id", "fees", "limits", "accounts"}); !s) {
    return base::fail(std::move(s).error());
  }
  Genesis genesis;
  ChainParams& params = genesis.params;

  auto chain_id = reader.unsigned_integer(document.at("chain_id"), "chain_id");
  if (!chain_id) return base::fail(std::move(chain_id).error());
  params.chain_id = *chain_id;

  const json& fees = document.at("fees");
  if (auto s = reader.expect_fields(fees, "fees", {"per_byte", "per_verify_unit"}); !s) {
    return base::fail(std::move(s).error());
  }
  for (auto [name, field] : {std::pair{"per_byte", &FeeSchedule::per_byte},
                             std::pair{"per_verify_unit", &FeeSchedule::per_verify_unit}}) {
    auto value = reader.unsigned_integer(fees.at(name), member_path("fees", name));
    if (!value) return base::fail(std::move(value).error());
    params.fees.*field = *value;
  }

  const json& limits = document.at("limits");
  if (auto s = reader.expect_fields(limits, "limits",
                                    {"max_verify_units", "max_auth_bytes", "max_bytes", "max_transactions"});
      !s) {
    return base::fail(std::move(s).error());
  }
  for (auto [name, field] : {std::pair{"max_verify_units", &PulseLimits::max_verify_units},
                             std::pair{"max_auth_bytes", &PulseLimits::max_auth_bytes},
                             std::pair{"max_bytes", &PulseLimits::max_bytes}}) {
    auto value = reader.unsigned_integer(limits.at(name), member_path("limits", name));
    if (!value) return base::fail(std::move(value).error());
    params.limits.*field = *value;
  }
  auto max_transactions =
      reader.unsigned_integer(limits.at("max_transactions"), "limits.max_transactions", kMaxU32);
  if (!max_transactions) return base::fail(std::move(max_transactions).error());
  params.limits.max_transactions = static_cast<std::uint32_t>(*max_transactions);

  const json& accounts = document.at("accounts");
  if (!accounts.is_array()) {
    return reader.invalid("accounts", "expected an array, got " + Reader::describe(accounts));
  }
  genesis.accounts.reserve(accounts.size());
  for (std::size_t i = 0; i < accounts.size(); ++i) {
    const std::string path = item_path("accounts", i);
    const json& item = accounts[i];
    if (auto s = reader.expect_fields(item, path, {"keys", "coins"}); !s) return base::fail(std::move(s).error());
    GenesisAccount& account = genesis.accounts.emplace_back();

    const std::string keys_path = member_path(path, "keys");
    auto bytes = reader.hex(item.at("keys"), keys_path);
    if (!bytes) return base::fail(std::move(bytes).error());
    auto keys = codec::decode<crypto::KeyBundle>(*bytes);
    if (!keys) return reader.invalid(keys_path, "not the encoding of a key bundle: " + keys.error().reason);
    account.keys = std::move(keys).value();

    const std::string coins_path = member_path(path, "coins");
    const json& coins = item.at("coins");
    if (!coins.is_array()) return reader.invalid(coins_path, "expected an array, got " + Reader::describe(coins));
    account.coins.reserve(coins.size());
    for (std::size_t j = 0; j < coins.size(); ++j) {
      auto amount = reader.unsigned_integer(coins[j], item_path(coins_path, j));
      if (!amount) return base::fail(std::move(amount).error());
      account.coins.push_back(*amount);
    }
  }
  if (auto s = check_genesis(genesis); !s) return base::fail(std::move(s).error());
  return genesis;
}

// ---- Key files ------------------------------------------------------------------------

std::string key_file_text(crypto::Profile profile, const crypto::KeySeed& seed, const Id& account) {
  ordered_json document = ordered_json::object();
  document["profile"] = std::string(crypto::profile_name(profile));
  document["seed"] = base::to_hex(seed);
  document["account"] = base::to_hex(account);
  std::string text = document.dump(2) + "\n";
  std::string& seed_hex = document["seed"].get_ref<std::string&>();
  base::secure_wipe(seed_hex.data(), seed_hex.size());
  return text;
}

base::Status write_key_text(const std::string& path, crypto::Profile profile, const crypto::KeySeed& seed,
                            const Id& account) {
  std::string text = key_file_text(profile, seed, account);
  auto status = write_new_file(path, text, 0600, true, "key file");
  base::secure_wipe(text.data(), text.size());
  return status;
}

// Wipes a seed when it goes out of scope.
struct SeedGuard {
  crypto::KeySeed seed{};
  SeedGuard() = default;
  SeedGuard(const SeedGuard&) = delete;
  SeedGuard& operator=(const SeedGuard&) = delete;
  ~SeedGuard() { base::secure_wipe(seed.data(), seed.size()); }
};

base::Result<crypto::SigningBundle> key_from_document(json& document, const std::string& prefix) {
  const Reader reader(prefix);
  if (auto s = reader.expect_fields(document, "", {"profile", "seed", "account"}); !s) {
    return base::fail(std::move(s).error());
  }
  auto profile_name = reader.string(document.at("profile"), "profile");
  if (!profile_name) return base::fail(std::move(profile_name).error());
  const auto profile = crypto::profile_from_name(*profile_name);
  if (!profile) return reader.invalid("profile", "unknown profile " + json_quoted(*profile_name));

  SeedGuard guard;
  {
    auto seed = reader.hex(document.at("seed"), "seed", crypto::kKeySeedBytes);
    if (!seed) return base::fail(std::move(seed).error());
    std::copy(seed->begin(), seed->end(), guard.seed.begin());
    base::secure_wipe(seed->data(), seed->size());
  }
  auto account = reader.hex(document.at("account"), "account", std::tuple_size_v<Id>);
  if (!account) return base::fail(std::move(account).error());

  auto bundle = crypto::SigningBundle::from_seed(*profile, guard.seed);
  if (!bundle) return base::fail(std::move(bundle).error());
  const Id derived = account_id(bundle->public_bundle());
  if (!std::equal(derived.begin(), derived.end(), account->begin(), account->end())) {
    return reader.invalid("account", "does not match the seed, which gives account " + base::to_hex(derived));
  }
  return bundle;
}

}  // namespace

// ---- Genesis ----------------------------------------------------------------------------

base::Status check_genesis(const Genesis& genesis) {
  const Reader reader(kGenesisPrefix);
  if (genesis.accounts.empty()) return reader.invalid("accounts", "no accounts; a chain needs at least one");
  std::map<Id, std::size_t> seen;
  Amount supply = 0;
  std::uint64_t coins = 0;
  for (std::size_t i = 0; i < genesis.accounts.size(); ++i) {
    const GenesisAccount& account = genesis.accounts[i];
    const std::string path = item_path("accounts", i);
    if (auto s = crypto::check_key_bundle(account.keys); !s) {
      return reader.invalid(member_path(path, "keys"), s.error().reason);
    }
    const auto [at, inserted] = seen.emplace(account_id(account.keys), i);
    if (!inserted) {
      return reader.invalid(member_path(path, "keys"),
                            "the same account as " + item_path("accounts", at->second));
    }
    for (std::size_t j = 0; j < account.coins.size(); ++j) {
      const std::string coin_path = item_path(member_path(path, "coins"), j);
      const Amount amount = account.coins[j];
      if (amount == 0) return reader.invalid(coin_path, "a coin's amount must be at least 1");
      if (amount > kMaxU64 - supply) return reader.invalid(coin_path, "the total supply passes 2^64 - 1");
      supply += amount;
      if (++coins > kMaxGenesisCoins) return reader.invalid(coin_path, "more than 2^32 coins");
    }
  }
  return {};
}

base::Result<Genesis> parse_genesis(std::string_view text) {
  auto document = parse_json(text, kGenesisPrefix);
  if (!document) return base::fail(std::move(document).error());
  return genesis_from_document(*document);
}

std::string genesis_to_json(const Genesis& genesis) {
  const ChainParams& params = genesis.params;
  ordered_json document = ordered_json::object();
  document["chain_id"] = params.chain_id;
  ordered_json fees = ordered_json::object();
  fees["per_byte"] = params.fees.per_byte;
  fees["per_verify_unit"] = params.fees.per_verify_unit;
  document["fees"] = std::move(fees);
  ordered_json limits = ordered_json::object();
  limits["max_verify_units"] = params.limits.max_verify_units;
  limits["max_auth_bytes"] = params.limits.max_auth_bytes;
  limits["max_bytes"] = params.limits.max_bytes;
  limits["max_transactions"] = params.limits.max_transactions;
  document["limits"] = std::move(limits);
  ordered_json accounts = ordered_json::array();
  for (const GenesisAccount& account : genesis.accounts) {
    ordered_json item = ordered_json::object();
    item["keys"] = base::to_hex(codec::encode(account.keys));
    ordered_json coins = ordered_json::array();
    for (const Amount amount : account.coins) coins.push_back(amount);
    item["coins"] = std::move(coins);
    accounts.push_back(std::move(item));
  }
  document["accounts"] = std::move(accounts);
  return document.dump(2) + "\n";
}

base::Result<Amount> total_supply(const Genesis& genesis) {
  Amount supply = 0;
  for (const GenesisAccount& account : genesis.accounts) {
    for (const Amount amount : account.coins) {
      if (amount > kMaxU64 - supply) {
        return base::fail(Errc::invalid_value, "genesis: the total supply passes 2^64 - 1");
      }
      supply += amount;
    }
  }
  return supply;
}

Id genesis_coin_id(std::uint32_t index) noexcept { return coin_id(Id{}, index); }

std::vector<state::ObjectWrite> genesis_writes(const Genesis& genesis) {
  std::vector<state::ObjectWrite> writes;
  std::uint32_t coin_index = 0;
  for (const GenesisAccount& account : genesis.accounts) {
    const Id keys_id = crypto::bundle_id(account.keys);
    const Id owner = account_id_from_keys_id(keys_id);
    writes.push_back({owner, to_object(Account{keys_id, 0}, 1)});
    for (const Amount amount : account.coins) {
      writes.push_back({genesis_coin_id(coin_index++), to_object(Coin{owner, amount}, 1)});
    }
  }
  std::sort(writes.begin(), writes.end(),
            [](const state::ObjectWrite& a, const state::ObjectWrite& b) { return a.id < b.id; });
  return writes;
}

base::Result<commit::Hash> genesis_state_root(const Genesis& genesis) {
  const std::vector<state::ObjectWrite> writes = genesis_writes(genesis);
  std::vector<commit::StateEntry> entries;
  entries.reserve(writes.size());
  for (const state::ObjectWrite& write : writes) entries.push_back({write.id, state::object_hash(*write.object)});
  return commit::state_root(entries);
}

// ---- Files -------------------------------------------------------------------------------

base::Result<Genesis> read_genesis_file(const std::string& path) {
  auto text = read_file(path, {"genesis file", kMaxGenesisFileBytes, false});
  if (!text) return base::fail(std::move(text).error());
  auto genesis = parse_genesis(*text);
  if (!genesis) {
    base::Error error = std::move(genesis).error();
    error.reason = path + ": " + error.reason;
    return base::fail(std::move(error));
  }
  return genesis;
}

base::Status write_genesis_file(const std::string& path, const Genesis& genesis, bool overwrite) {
  const std::string text = genesis_to_json(genesis);
  if (!overwrite) return write_new_file(path, text, 0644, false, "genesis file");
  if (is_directory(path)) {
    return base::fail(Errc::invalid_argument, "genesis file " + quoted_path(path) + " is a directory");
  }
  return replace_file(path, text, 0644, "genesis file");
}

base::Result<crypto::SigningBundle> write_key_file(const std::string& path, crypto::Profile profile,
                                                   const crypto::KeySeed& seed) {
  auto bundle = crypto::SigningBundle::from_seed(profile, seed);
  if (!bundle) return base::fail(std::move(bundle).error());
  if (auto s = write_key_text(path, profile, seed, account_id(bundle->public_bundle())); !s) {
    return base::fail(std::move(s).error());
  }
  return bundle;
}

base::Result<crypto::SigningBundle> read_key_file(const std::string& path) {
  auto text = read_file(path, {"key file", kMaxKeyFileBytes, true});
  if (!text) return base::fail(std::move(text).error());
  return parse_key_file(std::move(*text), "key file " + quoted_path(path));
}

base::Result<crypto::SigningBundle> parse_key_file(std::string text, std::string_view origin) {
  const std::string prefix = std::string(origin) + ": ";
  auto document = parse_json(text, prefix);
  base::secure_wipe(text.data(), text.size());
  if (!document) return base::fail(std::move(document).error());
  auto bundle = key_from_document(*document, prefix);
  if (document->is_object() && document->contains("seed") && document->at("seed").is_string()) {
    std::string& seed_hex = document->at("seed").get_ref<std::string&>();
    base::secure_wipe(seed_hex.data(), seed_hex.size());
  }
  return bundle;
}

// ---- Devnet --------------------------------------------------------------------------------

std::string key_file_name(std::size_t index) {
  std::string digits = std::to_string(index);
  if (digits.size() < 4) digits.insert(0, 4 - digits.size(), '0');
  return "account-" + digits + ".json";
}

base::Result<DevnetGenesis> write_devnet(const DevnetSpec& spec) {
  const auto invalid = [](const std::string& why) { return base::fail(Errc::invalid_argument, why); };
  if (spec.accounts == 0) return invalid("the number of accounts must be at least 1");
  if (spec.accounts > kMaxDevnetAccounts) {
    return invalid("at most " + std::to_string(kMaxDevnetAccounts) + " accounts");
  }
  if (spec.coins_per_account > kMaxGenesisCoins / spec.accounts) return invalid("more than 2^32 coins");
  const std::uint64_t coin_count = std::uint64_t{spec.coins_per_account} * spec.accounts;
  if (coin_count > 0 && spec.amount == 0) return invalid("a coin's amount must be at least 1");
  if (coin_count > 0 && spec.amount > kMaxU64 / coin_count) return invalid("the total supply passes 2^64 - 1");
  if (spec.genesis_path.empty()) return invalid("no genesis file named");

  DevnetGenesis out;
  out.genesis_path = spec.genesis_path;
  if (spec.key_dir.empty()) {
    const std::filesystem::path parent = std::filesystem::path(spec.genesis_path).parent_path();
    out.key_dir = (parent / "keys").string();
  } else {
    out.key_dir = spec.key_dir;
  }

  // Every destination before any work: nothing is written if one is taken.
  if (is_directory(out.genesis_path)) {
    return invalid("genesis file " + quoted_path(out.genesis_path) + " is a directory");
  }
  if (!spec.overwrite && path_exists(out.genesis_path)) {
    return invalid("genesis file " + quoted_path(out.genesis_path) + " already exists");
  }
  if (path_exists(out.key_dir) && !is_directory(out.key_dir)) {
    return invalid("key directory " + quoted_path(out.key_dir) + " is not a directory");
  }
  out.key_files.reserve(spec.accounts);
  for (std::size_t i = 0; i < spec.accounts; ++i) {
    out.key_files.push_back((std::filesystem::path(out.key_dir) / key_file_name(i)).string());
    if (path_exists(out.key_files.back())) {
      return invalid("key file " + quoted_path(out.key_files.back()) +
                     " already exists (key files are never overwritten)");
    }
  }

  // Fresh keys from the operating system's generator (base/random.hpp).
  std::vector<crypto::KeySeed> seeds(spec.accounts);
  const auto wipe_seeds = [&seeds] {
    for (crypto::KeySeed& seed : seeds) base::secure_wipe(seed.data(), seed.size());
  };
  out.genesis.params.chain_id = spec.chain_id;
  out.genesis.accounts.reserve(spec.accounts);
  for (crypto::KeySeed& seed : seeds) {
    if (auto s = base::random_bytes(seed); !s) {
      wipe_seeds();
      return base::fail(std::move(s).error());
    }
    auto bundle = crypto::SigningBundle::from_seed(spec.profile, seed);
    if (!bundle) {
      wipe_seeds();
      return base::fail(std::move(bundle).error());
    }
    out.genesis.accounts.push_back({bundle->public_bundle(), std::vector<Amount>(spec.coins_per_account, spec.amount)});
  }
  const auto fail_with = [&](base::Error error) -> base::Result<DevnetGenesis> {
    wipe_seeds();
    return base::fail(std::move(error));
  };
  if (auto s = check_genesis(out.genesis); !s) return fail_with(std::move(s).error());
  auto supply = total_supply(out.genesis);
  if (!supply) return fail_with(std::move(supply).error());
  out.total_supply = *supply;
  auto root = genesis_state_root(out.genesis);
  if (!root) return fail_with(std::move(root).error());
  out.state_root = *root;

  // Keys first, so that a genesis file never names accounts whose keys
  // were not saved; a failure removes what this call wrote.
  if (auto s = create_private_directory(out.key_dir); !s) return fail_with(std::move(s).error());
  std::size_t written = 0;
  const auto remove_written = [&] {
    for (std::size_t i = 0; i < written; ++i) remove_file(out.key_files[i]);
  };
  for (std::size_t i = 0; i < spec.accounts; ++i) {
    const Id account = account_id(out.genesis.accounts[i].keys);
    if (auto s = write_key_text(out.key_files[i], spec.profile, seeds[i], account); !s) {
      remove_written();
      return fail_with(std::move(s).error());
    }
    ++written;
  }
  wipe_seeds();
  if (auto s = create_parents(out.genesis_path); !s) {
    remove_written();
    return base::fail(std::move(s).error());
  }
  if (auto s = write_genesis_file(out.genesis_path, out.genesis, spec.overwrite); !s) {
    remove_written();
    return base::fail(std::move(s).error());
  }
  return out;
}

}  // namespace sion::exec
