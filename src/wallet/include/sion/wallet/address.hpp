#pragma once
// The text form of an account address (docs/wallet.md, "Addresses"): the
// 32-byte account id (ledger::account_id, docs/genesis.md) as 64 lower-case
// hex digits. Commands that take an address (--to ADDR) and config files
// that name a validator read it with parse_address.

#include <string>
#include <string_view>

#include "sion/base/result.hpp"
#include "sion/ledger/objects.hpp"

namespace sion::wallet {

inline constexpr std::size_t kAddressChars = 64;

std::string address_to_text(const ledger::Id& account);

// Exactly 64 lower-case hex digits, nothing around them (no "0x", no white
// space, no upper case: one spelling per address). invalid_value naming why.
base::Result<ledger::Id> parse_address(std::string_view text);

}  // namespace sion::wallet
