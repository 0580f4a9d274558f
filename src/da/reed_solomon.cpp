#include "sion/da/reed_solomon.hpp"

#include <isa-l/erasure_code.h>
#include <isa-l/gf_vect_mul.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <memory>
#include <mutex>
#include <string>

#include "sion/da/square.hpp"

namespace sion::da {

namespace {

// GF(2^8) products and inverses by table (64 KiB, built once from ISA-L's
// gf_mul), for the matrix inversion below.
struct GfTables {
  std::array<std::array<std::uint8_t, 256>, 256> product{};
  std::array<std::uint8_t, 256> inverse{};
};

const GfTables& gf_tables() {
  static const GfTables tables = [] {
    GfTables t;
    for (unsigned a = 0; a < 256; ++a) {
      for (unsigned b = 0; b < 256; ++b) {
        t.product[a][b] = gf_mul(static_cast<unsigned char>(a), static_cast<unsigned char>(b));
      }
      t.inverse[a] = a == 0 ? 0 : gf_inv(static_cast<unsigned char>(a));
    }
    return t;
  }();
  return tables;
}

std::vector<std::uint8_t> identity(std::uint32_t n) {
  std::vector<std::uint8_t> out(std::size_t{n} * n, 0);
  for (std::uint32_t i = 0; i < n; ++i) out[std::size_t{i} * n + i] = 1;
  return out;
}

// Gauss-Jordan elimination over GF(2^8) of an invertible n x n matrix
// (row-major), on rows [a | I] of 2n bytes. Any k rows of [I; Cauchy] are
// invertible, so a pivot always exists. A row update (row ^= f * pivot
// row) is ISA-L's gf_vect_mad, 32 bytes at a time, where rows are long
// enough for it (2n >= 64); table lookups otherwise.
std::vector<std::uint8_t> invert(const std::vector<std::uint8_t>& a, std::uint32_t n) {
  const GfTables& gf = gf_tables();
  const std::size_t width = 2 * std::size_t{n};
  std::vector<std::uint8_t> m(n * width, 0);
  for (std::uint32_t r = 0; r < n; ++r) {
    std::copy_n(a.data() + std::size_t{r} * n, n, m.data() + r * width);
    m[r * width + n + r] = 1;
  }
  const auto row = [&](std::uint32_t r) { return m.data() + r * width; };
  std::array<unsigned char, 32> table{};
  for (std::uint32_t col = 0; col < n; ++col) {
    std::uint32_t pivot = col;
    while (row(pivot)[col] == 0) ++pivot;
    if (pivot != col) std::swap_ranges(row(pivot), row(pivot) + width, row(col));
    const auto& scale = gf.product[gf.inverse[row(col)[col]]];
    for (std::size_t c = 0; c < width; ++c) row(col)[c] = scale[row(col)[c]];
    for (std::uint32_t r = 0; r < n; ++r) {
      const std::uint8_t factor = row(r)[col];
      if (r == col || factor == 0) continue;
      if (width >= 64) {
        gf_vect_mul_init(factor, table.data());
        gf_vect_mad(static_cast<int>(width), 1, 0, table.data(), row(col), row(r));
        continue;
      }
      const auto& times = gf.product[factor];
      for (std::size_t c = 0; c < width; ++c) row(r)[c] ^= times[row(col)[c]];
    }
  }
  std::vector<std::uint8_t> inverse(std::size_t{n} * n);
  for (std::uint32_t r = 0; r < n; ++r) std::copy_n(row(r) + n, n, inverse.data() + std::size_t{r} * n);
  return inverse;
}

}  // namespace

LineCode::LineCode(std::uint32_t k) : k_(k), parity_(std::size_t{k} * k), tables_(32 * std::size_t{k} * k) {
  // gf_gen_cauchy1_matrix(a, 2k, k) writes the identity over exactly these
  // rows: a[k + i][j] = gf_inv((k + i) ^ j). Written out here so the
  // formula the docs give is visibly the one used.
  for (std::uint32_t i = 0; i < k; ++i) {
    for (std::uint32_t j = 0; j < k; ++j) {
      parity_[i * k + j] = gf_inv(static_cast<unsigned char>((k + i) ^ j));
    }
  }
  ec_init_tables(static_cast<int>(k), static_cast<int>(k), parity_.data(), tables_.data());
}

const LineCode& LineCode::for_width(std::uint32_t k) {
  assert(check_original_width(k));
  static std::array<std::unique_ptr<LineCode>, 8> codes;  // k = 1, 2, 4, ..., 128
  static std::array<std::once_flag, 8> built;
  const auto slot = static_cast<std::size_t>(std::countr_zero(k));
  std::call_once(built[slot], [&] { codes[slot].reset(new LineCode(k)); });
  return *codes[slot];
}

void LineCode::encode(const std::uint8_t* const* data, std::uint8_t* const* parity, std::size_t length) const {
  // ISA-L takes non-const pointers but only reads the sources.
  ec_encode_data(static_cast<int>(length), static_cast<int>(k_), static_cast<int>(k_),
                 const_cast<unsigned char*>(tables_.data()), const_cast<unsigned char**>(data),
                 const_cast<unsigned char**>(parity));
}

const LineDecoder::Plan& LineDecoder::plan_for(const Pattern& pattern) {
  if (auto found = plans_.find(pattern); found != plans_.end()) return found->second;
  const std::uint32_t k = code_.k();
  Plan plan;
  for (std::uint32_t p = 0; p < 2 * k; ++p) {
    const bool known = ((pattern[p / 64] >> (p % 64)) & 1) != 0;
    if (known && plan.sources.size() < k) {
      plan.sources.push_back(p);
    } else if (!known) {
      plan.targets.push_back(p);
    }
  }
  // Generator row of position p: e_p for p < k, the parity coefficients of
  // p - k otherwise. The data is G_S^-1 * (symbols at S), so a target t is
  // (G_t * G_S^-1) * (symbols at S).
  const auto generator = [&](std::uint32_t p, std::uint32_t j) -> std::uint8_t {
    return p < k ? static_cast<std::uint8_t>(p == j ? 1 : 0) : code_.coefficient(p - k, j);
  };
  const auto generator_rows = [&] {
    std::vector<std::uint8_t> g(std::size_t{k} * k);
    for (std::uint32_t r = 0; r < k; ++r) {
      for (std::uint32_t j = 0; j < k; ++j) g[r * k + j] = generator(plan.sources[r], j);
    }
    return g;
  };
  // The first k positions known (the data itself): G_S is the identity.
  const bool systematic = plan.sources.back() == k - 1;
  std::vector<std::uint8_t> inverse = systematic ? identity(k) : invert(generator_rows(), k);
  // Rows of targets below k are rows of the inverse; the others are
  // (parity row) * inverse, one matrix product, which ISA-L does as an
  // encode whose k "data vectors" are the inverse's rows.
  std::vector<std::uint8_t> decode(plan.targets.size() * k);
  std::vector<std::uint8_t> parity_rows;
  std::vector<std::uint8_t*> products;
  for (std::size_t t = 0; t < plan.targets.size(); ++t) {
    const std::uint32_t p = plan.targets[t];
    if (p < k) {
      std::copy_n(inverse.data() + std::size_t{p} * k, k, decode.data() + t * k);
      continue;
    }
    for (std::uint32_t j = 0; j < k; ++j) parity_rows.push_back(code_.coefficient(p - k, j));
    products.push_back(decode.data() + t * k);
  }
  if (!products.empty()) {
    const auto rows = static_cast<int>(products.size());
    std::vector<std::uint8_t> product_tables(32 * parity_rows.size());
    ec_init_tables(static_cast<int>(k), rows, parity_rows.data(), product_tables.data());
    std::vector<std::uint8_t*> inverse_rows(k);
    for (std::uint32_t j = 0; j < k; ++j) inverse_rows[j] = inverse.data() + std::size_t{j} * k;
    ec_encode_data(static_cast<int>(k), static_cast<int>(k), rows, product_tables.data(), inverse_rows.data(),
                   products.data());
  }
  plan.tables.resize(32 * decode.size());
  if (!plan.targets.empty()) {
    ec_init_tables(static_cast<int>(k), static_cast<int>(plan.targets.size()), decode.data(), plan.tables.data());
  }
  return plans_.emplace(pattern, std::move(plan)).first->second;
}

base::Status LineDecoder::decode(std::span<std::uint8_t* const> line, std::span<const std::uint8_t> known,
                                 std::size_t length) {
  const std::uint32_t k = code_.k();
  assert(line.size() == 2 * k && known.size() == 2 * k);
  Pattern pattern{};
  std::uint32_t count = 0;
  for (std::uint32_t p = 0; p < 2 * k; ++p) {
    if (known[p] == 0) continue;
    pattern[p / 64] |= std::uint64_t{1} << (p % 64);
    ++count;
  }
  if (count < k) {
    return base::fail(base::Errc::invalid_argument, std::to_string(count) + " of the line's " + std::to_string(2 * k) +
                                                        " shares are known; " + std::to_string(k) +
                                                        " are needed to restore it");
  }
  if (count == 2 * k) return {};
  const Plan& plan = plan_for(pattern);
  std::vector<std::uint8_t*> sources(k);
  std::vector<std::uint8_t*> targets(plan.targets.size());
  for (std::uint32_t i = 0; i < k; ++i) sources[i] = line[plan.sources[i]];
  for (std::size_t i = 0; i < targets.size(); ++i) targets[i] = line[plan.targets[i]];
  ec_encode_data(static_cast<int>(length), static_cast<int>(k), static_cast<int>(targets.size()),
                 const_cast<unsigned char*>(plan.tables.data()), sources.data(), targets.data());
  return {};
}

}  // namespace sion::da
