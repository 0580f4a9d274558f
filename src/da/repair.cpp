#include "sion/da/repair.hpp"

#include <string>
#include <vector>

#include "sion/base/executor.hpp"
#include "sion/da/reed_solomon.hpp"

namespace sion::da {
namespace {

// One pass over every line of `axis`: restores each line that lacks some
// shares and has at least k. Returns how many lines it restored.
std::size_t restore_lines(ExtendedSquare& square, Axis axis, base::Executor* executor, unsigned workers) {
  const std::uint32_t k = square.original_width();
  const std::uint32_t width = square.width();
  const LineCode& code = LineCode::for_width(k);
  std::vector<std::uint8_t> restored(width, 0);
  base::for_slices(executor, width, workers, [&](unsigned, std::size_t first, std::size_t last) {
    LineDecoder decoder(code);  // one per thread: it caches by pattern
    std::vector<std::uint8_t*> line(width);
    std::vector<std::uint8_t> known(width);
    for (std::size_t l = first; l < last; ++l) {
      const auto index = static_cast<std::uint32_t>(l);
      std::uint32_t count = 0;
      for (std::uint32_t p = 0; p < width; ++p) {
        const Coordinate at = on_line(axis, index, p);
        line[p] = square.share_data(at);
        known[p] = square.has(at) ? 1 : 0;
        count += known[p];
      }
      if (count < k || count == width) continue;
      // Lines of one axis never share a share, so threads write disjoint
      // memory; present flags are set after the join.
      if (decoder.decode(line, known, kShareBytes)) restored[l] = 1;
    }
  });
  std::size_t lines = 0;
  for (std::uint32_t l = 0; l < width; ++l) {
    if (restored[l] == 0) continue;
    ++lines;
    for (std::uint32_t p = 0; p < width; ++p) square.mark_present(on_line(axis, l, p));
  }
  return lines;
}

}  // namespace

base::Status repair(ExtendedSquare& square, const AvailabilityHeader& header, base::Executor* executor) {
  const std::uint32_t k = square.original_width();
  if (header.row_roots.size() != 2 * std::size_t{k} || header.column_roots.size() != 2 * std::size_t{k}) {
    return base::fail(base::Errc::invalid_argument, "the header has " + std::to_string(header.row_roots.size()) +
                                                        " row and " + std::to_string(header.column_roots.size()) +
                                                        " column roots; a square of width " + std::to_string(2 * k) +
                                                        " needs " + std::to_string(2 * k) + " of each");
  }
  const unsigned workers = workers_for(k, executor);
  std::size_t rounds = 0;
  while (!square.complete()) {
    ++rounds;
    const std::size_t rows = restore_lines(square, Axis::row, executor, workers);
    const std::size_t columns = square.complete() ? 0 : restore_lines(square, Axis::column, executor, workers);
    if (rows + columns == 0) {
      return base::fail(base::Errc::invalid_argument,
                        "not enough shares to repair the square: " + std::to_string(square.missing()) + " of " +
                            std::to_string(square.share_count()) + " still missing after " + std::to_string(rounds) +
                            " rounds, and no row or column with a missing share has the " + std::to_string(k) +
                            " shares that restore it");
    }
  }
  const SquareCommitment rebuilt = SquareCommitment::compute(square, executor);
  for (const Axis axis : {Axis::row, Axis::column}) {
    for (std::uint32_t l = 0; l < square.width(); ++l) {
      if (rebuilt.line_root(axis, l) == header.line_root(axis, l)) continue;
      return base::fail(base::Errc::invalid_value,
                        std::string(axis_name(axis)) + " " + std::to_string(l) +
                            " of the rebuilt square does not reproduce its committed root: the shares are not "
                            "one well-encoded square under this header");
    }
  }
  return {};
}

}  // namespace sion::da
