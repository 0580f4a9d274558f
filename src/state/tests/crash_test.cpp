// Crash safety: a writer process is killed with SIGKILL at random moments
// while it commits versions; every reopen must find the last version whose
// write completed, whole, with the root the workload implies, and every
// retained version still provable.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "crash_workload.hpp"
#include "sion/base/testing/temp_dir.hpp"

#ifndef SION_CRASH_WRITER
#error "SION_CRASH_WRITER names the crash_writer binary"
#endif

namespace sion::state {
namespace {

commit::Hash root_of(const std::map<ObjectId, Object>& model) {
  std::vector<commit::StateEntry> entries;
  for (const auto& [id, object] : model) entries.push_back({id, object_hash(object)});
  auto root = commit::state_root(entries);
  EXPECT_TRUE(root.ok());
  return *root;
}

struct Writer {
  pid_t pid = -1;
  int output = -1;  // the writer's stdout: one line per committed version
};

Writer start_writer(const std::string& directory) {
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(pipe_ends[0]);
    if (dup2(pipe_ends[1], STDOUT_FILENO) < 0) _exit(126);
    execl(SION_CRASH_WRITER, SION_CRASH_WRITER, directory.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipe_ends[1]);
  return {pid, pipe_ends[0]};
}

// Blocks until the writer has reported `count` more committed versions:
// then it is inside its commit loop, where the kill must land.
bool wait_for_commits(const Writer& writer, int count) {
  char c = 0;
  while (count > 0) {
    if (read(writer.output, &c, 1) != 1) return false;
    if (c == '\n') --count;
  }
  return true;
}

void check_store(const std::string& directory, std::uint64_t& last_seen) {
  ObjectStoreOptions options;
  options.retain_versions = 8;
  auto store = ObjectStore::open(directory, options);
  ASSERT_TRUE(store.ok()) << store.error().to_string();
  const std::uint64_t version = (*store)->version();
  // Committed versions are never lost.
  EXPECT_GE(version, last_seen);
  last_seen = version;

  const auto model = testing::crash_model(version);
  EXPECT_EQ((*store)->root(), root_of(model)) << "version " << version;
  EXPECT_EQ((*store)->size(), model.size());
  std::size_t visited = 0;
  ASSERT_TRUE((*store)
                  ->for_each([&](const ObjectId& id, const Object& object) {
                    const auto found = model.find(id);
                    EXPECT_TRUE(found != model.end() && found->second == object);
                    ++visited;
                    return true;
                  })
                  .ok());
  EXPECT_EQ(visited, model.size());

  // Every retained version's root reopens and proves an object.
  for (std::uint64_t v = (*store)->oldest_version(); v <= version; ++v) {
    const auto old_model = testing::crash_model(v);
    auto root = (*store)->root_at(v);
    ASSERT_TRUE(root.ok()) << root.error().to_string();
    EXPECT_EQ(*root, root_of(old_model));
    const ObjectId id = testing::crash_id(v % 500);
    auto proof = (*store)->prove_at(id, v);
    ASSERT_TRUE(proof.ok()) << proof.error().to_string();
    const auto found = old_model.find(id);
    std::optional<commit::Hash> value;
    if (found != old_model.end()) value = object_hash(found->second);
    EXPECT_TRUE(commit::verify_state_proof(*root, id, value, *proof)) << "version " << v;
  }
}

TEST(CrashSafety, KilledWriterReopensAtItsLastCompleteVersion) {
  base::testing::TempDir dir;
  std::mt19937 random(20261202);
  std::uint64_t last_seen = 0;
  for (int round = 0; round < 8; ++round) {
    const Writer writer = start_writer(dir.str());
    ASSERT_GT(writer.pid, 0);
    ASSERT_TRUE(wait_for_commits(writer, 2));
    // Then a random moment inside later commits: each takes a few ms.
    std::this_thread::sleep_for(std::chrono::microseconds(random() % 20000));
    ASSERT_EQ(kill(writer.pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(writer.pid, &status, 0), writer.pid);
    close(writer.output);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer exited by itself: status " << status;
    check_store(dir.str(), last_seen);
    if (HasFatalFailure()) return;
  }
  // The writer committed at least two versions in every round.
  EXPECT_GE(last_seen, 16u);
}

}  // namespace
}  // namespace sion::state
