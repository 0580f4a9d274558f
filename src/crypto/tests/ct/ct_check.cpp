// Constant-time check of key generation and signing, run under valgrind
// memcheck by ctest (the ctgrind technique; sion/base/ct.hpp). Secret inputs
// are marked undefined; memcheck then reports, as an error, any branch or
// memory index that depends on them. The run fails on any report.
//
// Covered: ML-DSA-44/65/87 keygen from ξ and signing (hedged rnd secret too);
// SLH-DSA-SHA2-128f, SHAKE-128f and SHA2-192f keygen from SK.seed/SK.prf
// and signing (addrnd secret). The "s" parameter sets take seconds per
// signature under valgrind and share every code path with the "f" sets.

#include <cstdio>
#include <cstring>

#include "sion/base/ct.hpp"
#include "sion/crypto/mldsa.hpp"
#include "sion/crypto/slhdsa.hpp"

namespace {

using sion::base::Bytes;
using sion::base::ByteView;
namespace mldsa = sion::crypto::mldsa;
namespace slhdsa = sion::crypto::slhdsa;

int check_mldsa(mldsa::Level level) {
  mldsa::Seed xi;
  xi.fill(0x11);
  sion::base::ct_secret(xi.data(), xi.size());
  auto pair = mldsa::keygen(level, xi);
  sion::base::ct_public(pair.public_key.data(), pair.public_key.size());
  const Bytes message{'c', 't'};
  mldsa::Rnd rnd;
  rnd.fill(0x22);
  sion::base::ct_secret(rnd.data(), rnd.size());
  auto signature = mldsa::sign(pair.secret_key, message, {}, rnd);
  if (!signature) return 1;
  sion::base::ct_public(signature->data(), signature->size());
  auto deterministic = mldsa::sign_deterministic(pair.secret_key, message, {});
  if (!deterministic) return 1;
  sion::base::ct_public(deterministic->data(), deterministic->size());
  // Not a timing check, but proof the run signed for real.
  return mldsa::verify(level, pair.public_key, message, {}, *signature) ? 0 : 1;
}

int check_slhdsa(slhdsa::ParameterSet set) {
  const std::size_t n = slhdsa::params(set).n;
  Bytes sk_seed(n, 0x33);
  Bytes sk_prf(n, 0x44);
  const Bytes pk_seed(n, 0x55);  // public by definition
  sion::base::ct_secret(sk_seed.data(), n);
  sion::base::ct_secret(sk_prf.data(), n);
  auto pair = slhdsa::keygen(set, sk_seed, sk_prf, pk_seed);
  if (!pair) return 1;
  sion::base::ct_public(pair->public_key.bytes().data(), pair->public_key.bytes().size());
  const Bytes message{'c', 't'};
  Bytes addrnd(n, 0x66);
  sion::base::ct_secret(addrnd.data(), n);
  auto signature = slhdsa::sign(pair->secret_key, message, {}, addrnd);
  if (!signature) return 1;
  sion::base::ct_public(signature->data(), signature->size());
  return slhdsa::verify(pair->public_key, message, {}, *signature) ? 0 : 1;
}

}  // namespace

int main() {
  if (!sion::base::running_under_valgrind()) {
    std::puts("ct_check proves nothing outside valgrind: run it under valgrind --tool=memcheck");
    return 2;
  }
  int failures = 0;
  for (auto level : {mldsa::Level::k44, mldsa::Level::k65, mldsa::Level::k87}) failures += check_mldsa(level);
  for (auto set :
       {slhdsa::ParameterSet::sha2_128f, slhdsa::ParameterSet::shake_128f, slhdsa::ParameterSet::sha2_192f}) {
    failures += check_slhdsa(set);
  }
  std::printf("ct_check: %d signing runs failed to verify\n", failures);
  return failures == 0 ? 0 : 1;
}
