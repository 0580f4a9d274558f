// The process tests/chain_store_test.cpp kills or starves: opens the chain
// store named on the command line (initializing it from the test genesis),
// catches up with the stored bodies, then commits one-transfer Pulses,
// printing each committed height, until killed.
//
// With a second argument BYTES it runs under RLIMIT_FSIZE = BYTES with
// SIGXFSZ ignored, so that a write past that file size fails (EFBIG), and
// exits 3 if the first failed commit fails and so does the next one (the
// store refuses to continue), 4 if the next one succeeds. The limit must
// leave room for RocksDB's info log (about 130 KB after an open): a failed
// append to it makes RocksDB 7.8 built with assertions abort.

#include <sys/resource.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "chain_fixture.hpp"

namespace {

int fail(const char* what, const sion::base::Error& error) {
  std::fprintf(stderr, "chain_writer: %s: %s\n", what, error.to_string().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sion;
  if (argc < 2) {
    std::fprintf(stderr, "usage: chain_writer DIRECTORY [FILE_SIZE_LIMIT]\n");
    return 2;
  }
  node::testing::ChainFixture chain;
  const bool starve = argc > 2;
  auto store = node::ChainStore::open(argv[1]);
  if (!store) return fail("open", store.error());
  if (auto status = (*store)->initialize(chain.genesis_writes, chain.genesis_root, chain.params); !status) {
    return fail("initialize", status.error());
  }
  for (std::uint64_t h = 1; h <= (*store)->height(); ++h) {
    auto body = (*store)->body(h);
    if (!body) return fail("body", body.error());
    chain.observe(*body);
  }
  if (starve) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlim_t bytes = std::strtoull(argv[2], nullptr, 10);
    const rlimit limit{bytes, bytes};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 2;
  }
  for (;;) {
    const auto tx = chain.transfer((*store)->height() + 1);
    auto committed = chain.commit(**store, std::span(&tx, 1));
    if (!committed) {
      if (!starve) return fail("commit", committed.error());
      std::fprintf(stderr, "chain_writer: first failure: %s\n", committed.error().to_string().c_str());
      auto again = chain.commit(**store, std::span(&tx, 1));
      if (again) return 4;
      std::fprintf(stderr, "chain_writer: then: %s\n", again.error().to_string().c_str());
      // Exit without closing the store: RocksDB 7.8 built with assertions
      // (Debian's) can abort when a database whose log append failed is
      // closed (WritableFileWriter::AssertFalseAndGetStatusForPrevError).
      std::fflush(stderr);
      std::_Exit(again.error().code == committed.error().code ? 3 : 5);
    }
    std::printf("%llu\n", static_cast<unsigned long long>((*store)->height()));
    std::fflush(stdout);
  }
}
