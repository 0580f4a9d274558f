#include "sion/node/prometheus.hpp"

#include <gtest/gtest.h>

#include <array>

namespace sion::node {
namespace {

TEST(Prometheus, FamiliesSamplesAndLabels) {
  PrometheusText text;
  text.gauge("sion_height", "Latest committed Pulse height.", 12);
  text.family("sion_refusals_total", "counter", "Refusals by code.");
  text.sample("sion_refusals_total", 3, {{"code", "fee_below_floor"}});
  text.sample("sion_refusals_total", 1, {{"code", "a\"b\\c\nd"}});
  EXPECT_EQ(text.text(),
            "# HELP sion_height Latest committed Pulse height.\n"
            "# TYPE sion_height gauge\n"
            "sion_height 12\n"
            "# HELP sion_refusals_total Refusals by code.\n"
            "# TYPE sion_refusals_total counter\n"
            "sion_refusals_total{code=\"fee_below_floor\"} 3\n"
            "sion_refusals_total{code=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(Prometheus, HistogramBucketsAreCumulative) {
  PrometheusText text;
  const std::array<std::uint64_t, 2> bounds{100, 1000};
  const std::array<std::uint64_t, 3> counts{4, 2, 1};
  text.histogram("sion_api_request_duration_us", "API request time.", bounds, counts, 4321);
  EXPECT_EQ(text.text(),
            "# HELP sion_api_request_duration_us API request time.\n"
            "# TYPE sion_api_request_duration_us histogram\n"
            "sion_api_request_duration_us_bucket{le=\"100\"} 4\n"
            "sion_api_request_duration_us_bucket{le=\"1000\"} 6\n"
            "sion_api_request_duration_us_bucket{le=\"+Inf\"} 7\n"
            "sion_api_request_duration_us_sum 4321\n"
            "sion_api_request_duration_us_count 7\n");
}

}  // namespace
}  // namespace sion::node
