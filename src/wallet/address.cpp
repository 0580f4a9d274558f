#include "sion/wallet/address.hpp"

#include <algorithm>

#include "sion/base/bytes.hpp"

namespace sion::wallet {

std::string address_to_text(const ledger::Id& account) { return base::to_hex(account); }

base::Result<ledger::Id> parse_address(std::string_view text) {
  const auto invalid = [](std::string why) { return base::fail(base::Errc::invalid_value, std::move(why)); };
  if (text.size() != kAddressChars) {
    return invalid("an address is " + std::to_string(kAddressChars) + " hex digits, got " +
                   std::to_string(text.size()) + " characters");
  }
  const auto bad = std::find_if(text.begin(), text.end(),
                                [](char c) { return !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')); });
  if (bad != text.end()) {
    return invalid("an address is lower-case hex digits; character " + std::to_string(bad - text.begin()) +
                   " is not one");
  }
  SION_TRY(const base::Bytes bytes, base::from_hex(text));
  ledger::Id id{};
  std::copy(bytes.begin(), bytes.end(), id.begin());
  return id;
}

}  // namespace sion::wallet
