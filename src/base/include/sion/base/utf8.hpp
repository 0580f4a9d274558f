#pragma once
// UTF-8 validation (RFC 3629, §3 and §4): every text format Sion reads that is
// defined over UTF-8 (TOML 1.0, JSON) is checked with this before a parser
// sees it, so a malformed byte is refused with its offset rather than left to
// a library's handling of it.

#include <cstddef>
#include <optional>
#include <string_view>

namespace sion::base {

// The offset at which the first ill-formed UTF-8 sequence starts (RFC 3629
// §4: no overlong forms, no surrogates U+D800..DFFF, nothing past U+10FFFF, no
// truncated sequence, no stray continuation byte); nullopt if all of `text` is
// well-formed.
std::optional<std::size_t> first_invalid_utf8(std::string_view text) noexcept;

}  // namespace sion::base
