#include "sion/agents/caveats.hpp"

#include <algorithm>

namespace sion::agents {
namespace {

template <class Rules>
bool payees_ascending(const Rules& rules) noexcept {
  return std::adjacent_find(rules.payees.begin(), rules.payees.end(),
                            [](const Id& a, const Id& b) { return !(a < b); }) == rules.payees.end();
}

template <class Rules>
bool allows(const Rules& rules, const Id& payee, const Id& root) noexcept {
  if (has(rules.payee_classes, PayeeClass::any)) return true;
  if (has(rules.payee_classes, PayeeClass::root) && payee == root) return true;
  return std::binary_search(rules.payees.begin(), rules.payees.end(), payee);
}

// Every payee `child` allows, `bound` allows.
template <class Bound>
bool payees_within(const Caveats& child, const Bound& bound, const Id& root) noexcept {
  if (has(child.payee_classes, PayeeClass::any) && !has(bound.payee_classes, PayeeClass::any)) return false;
  if (has(child.payee_classes, PayeeClass::root) && !allows(bound, root, root)) return false;
  return std::all_of(child.payees.begin(), child.payees.end(),
                     [&](const Id& payee) { return allows(bound, payee, root); });
}

// The fields Caveats and Narrowing share, compared.
template <class Bound>
bool bounds_within(const Caveats& child, const Bound& bound) noexcept {
  return child.expiry_height <= bound.expiry_height && child.per_payment <= bound.per_payment &&
         child.period_cap <= bound.period_cap && (child.actions & ~bound.actions) == 0;
}

}  // namespace

bool well_formed(const Caveats& caveats) noexcept {
  return caveats.period_length >= 1 && (caveats.actions & ~kAllActions) == 0 &&
         (caveats.payee_classes & ~kAllPayeeClasses) == 0 && payees_ascending(caveats);
}

bool well_formed(const Narrowing& narrowing) noexcept {
  return (narrowing.actions & ~kAllActions) == 0 && (narrowing.payee_classes & ~kAllPayeeClasses) == 0 &&
         payees_ascending(narrowing);
}

bool allows_payee(const Caveats& rules, const Id& payee, const Id& root) noexcept { return allows(rules, payee, root); }

bool allows_payee(const Narrowing& rules, const Id& payee, const Id& root) noexcept {
  return allows(rules, payee, root);
}

bool within(const Caveats& child, const Caveats& bound, const Id& root) noexcept {
  return bounds_within(child, bound) && child.period_length >= bound.period_length && payees_within(child, bound, root);
}

bool within(const Caveats& child, const Narrowing& bound, const Id& root) noexcept {
  return bounds_within(child, bound) && payees_within(child, bound, root);
}

Narrowing meet(const Narrowing& a, const Narrowing& b, const Id& root) {
  Narrowing out;
  out.expiry_height = std::min(a.expiry_height, b.expiry_height);
  out.per_payment = std::min(a.per_payment, b.per_payment);
  out.period_cap = std::min(a.period_cap, b.period_cap);
  out.actions = static_cast<std::uint8_t>(a.actions & b.actions);
  const bool any = has(a.payee_classes, PayeeClass::any) && has(b.payee_classes, PayeeClass::any);
  if (any) {
    // Everyone is allowed: a list would add nothing.
    out.payee_classes = static_cast<std::uint8_t>(PayeeClass::any);
    return out;
  }
  if (allows(a, root, root) && allows(b, root, root)) {
    out.payee_classes = static_cast<std::uint8_t>(PayeeClass::root);
  }
  std::vector<Id> listed;
  std::merge(a.payees.begin(), a.payees.end(), b.payees.begin(), b.payees.end(), std::back_inserter(listed));
  listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
  for (const Id& payee : listed) {
    if (out.payees.size() == kMaxPayees) break;  // dropping a payee only narrows
    if (payee != root && allows(a, payee, root) && allows(b, payee, root)) out.payees.push_back(payee);
  }
  return out;
}

std::uint64_t EffectiveCaveats::expiry_height() const noexcept {
  std::uint64_t value = charter.expiry_height;
  for (const Narrowing& n : narrowings) value = std::min(value, n.expiry_height);
  return value;
}

Amount EffectiveCaveats::per_payment() const noexcept {
  Amount value = charter.per_payment;
  for (const Narrowing& n : narrowings) value = std::min(value, n.per_payment);
  return value;
}

Amount EffectiveCaveats::period_cap() const noexcept {
  Amount value = charter.period_cap;
  for (const Narrowing& n : narrowings) value = std::min(value, n.period_cap);
  return value;
}

std::uint8_t EffectiveCaveats::actions() const noexcept {
  std::uint8_t value = charter.actions;
  for (const Narrowing& n : narrowings) value = static_cast<std::uint8_t>(value & n.actions);
  return value;
}

bool EffectiveCaveats::allows_payee(const Id& payee) const noexcept {
  return allows(charter, payee, root) &&
         std::all_of(narrowings.begin(), narrowings.end(), [&](const Narrowing& n) { return allows(n, payee, root); });
}

bool EffectiveCaveats::admits(const Caveats& child) const noexcept {
  return within(child, charter, root) &&
         std::all_of(narrowings.begin(), narrowings.end(), [&](const Narrowing& n) { return within(child, n, root); });
}

}  // namespace sion::agents
