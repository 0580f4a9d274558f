#include "sion/base/cpu.hpp"

#include <cpuid.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

namespace sion::base {
namespace {

struct Flag {
  std::string_view name;
  bool CpuFeatures::*field;
};

constexpr Flag kFlags[] = {
    {"sse4.2", &CpuFeatures::sse42},
    {"pclmul", &CpuFeatures::pclmul},
    {"aes", &CpuFeatures::aesni},
    {"avx", &CpuFeatures::avx},
    {"avx2", &CpuFeatures::avx2},
    {"bmi2", &CpuFeatures::bmi2},
    {"adx", &CpuFeatures::adx},
    {"sha", &CpuFeatures::sha_ni},
    {"gfni", &CpuFeatures::gfni},
    {"vaes", &CpuFeatures::vaes},
    {"vpclmulqdq", &CpuFeatures::vpclmulqdq},
    {"avx512f", &CpuFeatures::avx512f},
    {"avx512dq", &CpuFeatures::avx512dq},
    {"avx512bw", &CpuFeatures::avx512bw},
    {"avx512vl", &CpuFeatures::avx512vl},
    {"avx512ifma", &CpuFeatures::avx512ifma},
    {"avx512vbmi", &CpuFeatures::avx512vbmi},
};

bool bit(unsigned reg, unsigned n) { return ((reg >> n) & 1u) != 0; }

std::uint64_t xgetbv0() {
  unsigned lo = 0;
  unsigned hi = 0;
  __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}

// Applies SION_CPU_DISABLE ("all" or a comma-separated list of names).
// Disabling a feature also disables those that imply it (avx2 -> avx512*).
CpuFeatures apply_disable(CpuFeatures f, std::string_view spec) {
  if (spec.empty()) return f;
  if (spec == "all") return CpuFeatures{};
  while (!spec.empty()) {
    const auto comma = spec.find(',');
    const auto name = spec.substr(0, comma);
    for (const auto& flag : kFlags) {
      if (flag.name == name) f.*flag.field = false;
    }
    spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
  }
  if (!f.avx) f.avx2 = false;
  if (!f.avx2) f.avx512f = false;
  if (!f.avx512f) f.avx512dq = f.avx512bw = f.avx512vl = f.avx512ifma = f.avx512vbmi = false;
  return f;
}

CpuFeatures& active() {
  static CpuFeatures features = [] {
    const char* spec = std::getenv("SION_CPU_DISABLE");
    return apply_disable(detect_cpu_features(), spec ? spec : "");
  }();
  return features;
}

}  // namespace

std::vector<std::string> CpuFeatures::names() const {
  std::vector<std::string> out;
  for (const auto& flag : kFlags) {
    if (this->*flag.field) out.emplace_back(flag.name);
  }
  return out;
}

CpuFeatures detect_cpu_features() {
  CpuFeatures f;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (static_cast<unsigned>(__get_cpuid_max(0, nullptr)) < 7u) return f;
  __cpuid_count(1, 0, a, b, c, d);
  f.sse42 = bit(c, 20);
  f.pclmul = bit(c, 1);
  f.aesni = bit(c, 25);
  const bool osxsave = bit(c, 27);
  const bool avx_cpu = bit(c, 28);
  const std::uint64_t xcr0 = osxsave ? xgetbv0() : 0;
  const bool ymm_state = (xcr0 & 0x6) == 0x6;    // XMM and YMM saved by the OS
  const bool zmm_state = (xcr0 & 0xe6) == 0xe6;  // plus opmask and ZMM
  f.avx = avx_cpu && ymm_state;
  __cpuid_count(7, 0, a, b, c, d);
  f.avx2 = f.avx && bit(b, 5);
  f.bmi2 = bit(b, 8);
  f.adx = bit(b, 19);
  f.sha_ni = bit(b, 29);
  f.gfni = bit(c, 8);
  f.vaes = f.avx && bit(c, 9);
  f.vpclmulqdq = f.avx && bit(c, 10);
  const bool avx512 = f.avx2 && zmm_state;
  f.avx512f = avx512 && bit(b, 16);
  f.avx512dq = f.avx512f && bit(b, 17);
  f.avx512ifma = f.avx512f && bit(b, 21);
  f.avx512bw = f.avx512f && bit(b, 30);
  f.avx512vl = f.avx512f && bit(b, 31);
  f.avx512vbmi = f.avx512f && bit(c, 1);
  return f;
}

const CpuFeatures& cpu_features() { return active(); }

void override_cpu_features_for_testing(const CpuFeatures& features) { active() = features; }

std::string cpu_model_name() {
  unsigned regs[12] = {};
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000u, nullptr)) < 0x80000004u) return "unknown x86-64";
  for (unsigned i = 0; i < 3; ++i) {
    __cpuid(0x80000002u + i, regs[4 * i], regs[4 * i + 1], regs[4 * i + 2], regs[4 * i + 3]);
  }
  char text[sizeof(regs) + 1] = {};
  std::memcpy(text, regs, sizeof(regs));
  std::string name(text);
  const auto first = name.find_first_not_of(' ');
  const auto last = name.find_last_not_of(' ');
  return first == std::string::npos ? "unknown x86-64" : name.substr(first, last - first + 1);
}

}  // namespace sion::base
