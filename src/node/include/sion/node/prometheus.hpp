#pragma once
// Prometheus text exposition format, version 0.0.4 (what `GET /metrics`
// serves): one family at a time, `# HELP` and `# TYPE` before its samples.
// Values are integers: every metric the node exports counts something.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sion::node {

using Labels = std::vector<std::pair<std::string, std::string>>;

class PrometheusText {
 public:
  // Starts a family; its samples follow. `type` is counter, gauge or
  // histogram.
  void family(std::string_view name, std::string_view type, std::string_view help);
  void sample(std::string_view name, std::uint64_t value, const Labels& labels = {});

  void counter(std::string_view name, std::string_view help, std::uint64_t value);
  void gauge(std::string_view name, std::string_view help, std::uint64_t value);
  // Cumulative buckets `le` = each bound and +Inf, then _sum and _count.
  // counts[i] counts observations <= bounds[i] and above the bound before
  // it; counts has one more entry than bounds (above the last bound).
  void histogram(std::string_view name, std::string_view help, std::span<const std::uint64_t> bounds,
                 std::span<const std::uint64_t> counts, std::uint64_t sum);

  const std::string& text() const noexcept { return text_; }

 private:
  std::string text_;
};

// A label value escaped as the format requires (backslash, quote, newline).
std::string escape_label_value(std::string_view value);

}  // namespace sion::node
