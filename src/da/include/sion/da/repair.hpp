#pragma once
// Rebuilding a square from some of its shares (docs/data-availability.md,
// "Repair"), as rsmt2d does: restore every row that has at least k of its
// 2k shares, then every such column, and again, until the square is
// complete or a round restores nothing.

#include "sion/base/result.hpp"
#include "sion/da/commitment.hpp"
#include "sion/da/square.hpp"

namespace sion::da {

// Fills the missing shares of `square` in place, then checks that the
// complete square reproduces every root of `header`. Errors:
//  - invalid_argument: the header is for another square width;
//  - invalid_argument "not enough shares to repair the square: ...": some
//    shares cannot be restored (the square keeps what was restored);
//  - invalid_value "<row|column> i of the rebuilt square does not
//    reproduce its committed root ...": the shares given are not one
//    well-encoded square under this header. prove_bad_encoding() on the
//    rebuilt square proves it when k lines across the bad one still match
//    their roots; a node holding too few shares may not be able to.
// On `executor` (nullptr: this thread).
base::Status repair(ExtendedSquare& square, const AvailabilityHeader& header, base::Executor* executor = nullptr);

}  // namespace sion::da
