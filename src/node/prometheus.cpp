#include "sion/node/prometheus.hpp"

#include <fmt/format.h>

namespace sion::node {

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void PrometheusText::family(std::string_view name, std::string_view type, std::string_view help) {
  text_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

void PrometheusText::sample(std::string_view name, std::uint64_t value, const Labels& labels) {
  text_ += name;
  if (!labels.empty()) {
    text_ += '{';
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (i != 0) text_ += ',';
      text_ += fmt::format("{}=\"{}\"", labels[i].first, escape_label_value(labels[i].second));
    }
    text_ += '}';
  }
  text_ += fmt::format(" {}\n", value);
}

void PrometheusText::counter(std::string_view name, std::string_view help, std::uint64_t value) {
  family(name, "counter", help);
  sample(name, value);
}

void PrometheusText::gauge(std::string_view name, std::string_view help, std::uint64_t value) {
  family(name, "gauge", help);
  sample(name, value);
}

void PrometheusText::histogram(std::string_view name, std::string_view help, std::span<const std::uint64_t> bounds,
                               std::span<const std::uint64_t> counts, std::uint64_t sum) {
  family(name, "histogram", help);
  const std::string bucket = fmt::format("{}_bucket", name);
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    cumulative += i < counts.size() ? counts[i] : 0;
    sample(bucket, cumulative, {{"le", std::to_string(bounds[i])}});
  }
  if (counts.size() > bounds.size()) cumulative += counts[bounds.size()];
  sample(bucket, cumulative, {{"le", "+Inf"}});
  sample(fmt::format("{}_sum", name), sum);
  sample(fmt::format("{}_count", name), cumulative);
}

}  // namespace sion::node
