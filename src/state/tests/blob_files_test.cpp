#include "sion/state/blob_files.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>

#include "sion/base/testing/temp_dir.hpp"

namespace sion::state {
namespace {

namespace fs = std::filesystem;

base::Bytes filled(std::size_t size, std::uint8_t seed) {
  base::Bytes out(size);
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<std::uint8_t>(seed + i * 7);
  return out;
}

std::string folder(const base::testing::TempDir& dir) { return dir.str() + "/bodies"; }

std::unique_ptr<BlobFiles> open_files(const std::string& path, BlobFilesOptions options = {}) {
  auto files = BlobFiles::open(path, options);
  EXPECT_TRUE(files.ok()) << files.error().to_string();
  return files.ok() ? std::move(files).value() : nullptr;
}

// RFC 3720, Appendix B.4 (CRC-32C check values), and the usual "123456789".
TEST(Crc32c, MatchesTheRfc3720CheckValues) {
  const base::Bytes zeros(32, 0x00);
  const base::Bytes ones(32, 0xFF);
  base::Bytes up(32);
  std::iota(up.begin(), up.end(), std::uint8_t{0});
  base::Bytes down(up.rbegin(), up.rend());
  EXPECT_EQ(crc32c(zeros), 0x8A9136AAu);
  EXPECT_EQ(crc32c(ones), 0x62A8AB43u);
  EXPECT_EQ(crc32c(up), 0x46DD794Eu);
  EXPECT_EQ(crc32c(down), 0x113FDB5Cu);
  EXPECT_EQ(crc32c(base::as_bytes(std::string_view("123456789"))), 0xE3069283u);
  // Extended from the CRC of a prefix, as the consensus log frames its records.
  EXPECT_EQ(crc32c(base::as_bytes(std::string_view("6789")), crc32c(base::as_bytes(std::string_view("12345")))),
            0xE3069283u);
  EXPECT_EQ(crc32c(base::Bytes{0x00}), 0x527D5351u);  // the genesis body, docs/state.md
  EXPECT_EQ(crc32c(base::ByteView{}), 0x00000000u);
}

TEST(BlobRef, EncodesAsTwentyBigEndianBytes) {
  const BlobRef ref{1, 0x0203040506070809ull, 0x0A0B0C0D, 0x527D5351};
  const base::Bytes encoded = ref.encode();
  EXPECT_EQ(base::to_hex(encoded),
            "000000010203040506070809"
            "0a0b0c0d"
            "527d5351");
  auto decoded = BlobRef::decode(encoded);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, ref);
  base::Bytes short_one(encoded.begin(), encoded.end() - 1);
  auto refused = BlobRef::decode(short_one);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, base::Errc::invalid_value);
}

TEST(BlobFiles, AppendsReadBackAndSurviveReopen) {
  base::testing::TempDir dir;
  std::vector<std::pair<BlobRef, base::Bytes>> written;
  {
    auto files = open_files(folder(dir));
    ASSERT_NE(files, nullptr);
    for (std::uint8_t i = 0; i < 5; ++i) {
      base::Bytes value = filled(1000 + i, i);
      auto ref = files->append(value);
      ASSERT_TRUE(ref.ok()) << ref.error().to_string();
      EXPECT_EQ(ref->file, 0u);
      EXPECT_EQ(ref->crc32c, crc32c(value));
      written.emplace_back(*ref, std::move(value));
    }
    for (std::size_t i = 1; i < written.size(); ++i) {
      EXPECT_EQ(written[i].first.offset, written[i - 1].first.offset + written[i - 1].first.length);
    }
  }
  auto files = open_files(folder(dir));
  ASSERT_NE(files, nullptr);
  for (const auto& [ref, value] : written) {
    auto read = files->read(ref);
    ASSERT_TRUE(read.ok()) << read.error().to_string();
    EXPECT_EQ(*read, value);
  }
  // Appends continue after the last value.
  auto next = files->append(filled(10, 9));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->offset, written.back().first.offset + written.back().first.length);
}

TEST(BlobFiles, StartsANewFilePastTheSizeLimit) {
  base::testing::TempDir dir;
  BlobFilesOptions options;
  options.max_file_bytes = 2500;
  auto files = open_files(folder(dir), options);
  ASSERT_NE(files, nullptr);
  std::vector<BlobRef> refs;
  for (std::uint8_t i = 0; i < 5; ++i) {
    auto ref = files->append(filled(1000, i));
    ASSERT_TRUE(ref.ok());
    refs.push_back(*ref);
  }
  // Two values per file; one larger than the limit still gets a file.
  EXPECT_EQ(refs[0].file, 0u);
  EXPECT_EQ(refs[1].file, 0u);
  EXPECT_EQ(refs[2].file, 1u);
  EXPECT_EQ(refs[2].offset, 0u);
  EXPECT_EQ(refs[4].file, 2u);
  auto big = files->append(filled(4000, 1));
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->file, 3u);
  EXPECT_TRUE(fs::exists(folder(dir) + "/00000003.blob"));
  for (std::uint8_t i = 0; i < 5; ++i) {
    auto read = files->read(refs[i]);
    ASSERT_TRUE(read.ok());
    EXPECT_EQ(*read, filled(1000, i));
  }
}

TEST(BlobFiles, DiscardAfterCutsTheUnnamedTail) {
  base::testing::TempDir dir;
  BlobFilesOptions options;
  options.max_file_bytes = 2500;
  std::vector<BlobRef> refs;
  {
    auto files = open_files(folder(dir), options);
    for (std::uint8_t i = 0; i < 5; ++i) refs.push_back(files->append(filled(1000, i)).value());
  }
  auto files = open_files(folder(dir), options);
  ASSERT_TRUE(files->discard_after(refs[2]).ok());
  EXPECT_EQ(fs::file_size(folder(dir) + "/00000001.blob"), 1000u);
  EXPECT_FALSE(fs::exists(folder(dir) + "/00000002.blob"));
  auto gone = files->read(refs[4]);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, base::Errc::not_found);
  auto cut = files->read(refs[3]);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().code, base::Errc::corrupt_store);
  // The next append takes the discarded place.
  auto next = files->append(filled(1000, 7));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->file, 1u);
  EXPECT_EQ(next->offset, 1000u);
  EXPECT_EQ(files->read(refs[2]).value(), filled(1000, 2));
  // nullopt removes everything.
  ASSERT_TRUE(files->discard_after(std::nullopt).ok());
  EXPECT_TRUE(fs::is_empty(folder(dir)));
  // A last value the files no longer hold entirely is corruption.
  auto again = open_files(folder(dir), options);
  auto missing = again->discard_after(refs[1]);
  ASSERT_FALSE(missing.ok());
}

TEST(BlobFiles, ChangedBytesFailTheirCrc) {
  base::testing::TempDir dir;
  auto files = open_files(folder(dir));
  const base::Bytes value = filled(4096, 3);
  const BlobRef ref = files->append(value).value();
  {
    std::fstream file(folder(dir) + "/00000000.blob", std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(100);
    file.put(static_cast<char>(value[100] ^ 0x01));
  }
  auto read = files->read(ref);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, base::Errc::corrupt_store);
  EXPECT_NE(read.error().reason.find("CRC-32C"), std::string::npos) << read.error().reason;
}

TEST(BlobFiles, ReadOnlyRefusesWrites) {
  base::testing::TempDir dir;
  const BlobRef ref = open_files(folder(dir))->append(filled(10, 1)).value();
  BlobFilesOptions options;
  options.read_only = true;
  auto files = open_files(folder(dir), options);
  EXPECT_EQ(files->read(ref).value(), filled(10, 1));
  auto refused = files->append(filled(10, 2));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, base::Errc::invalid_argument);
  EXPECT_FALSE(files->discard_after(std::nullopt).ok());
  // A folder not there yet is empty to a reader, and is not created.
  auto absent = BlobFiles::open(dir.str() + "/none", options);
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(fs::exists(dir.str() + "/none"));
}

// A real failing write: the file-size limit (RLIMIT_FSIZE) makes write(2)
// fail with EFBIG, in a child process so the limit stays there.
TEST(BlobFiles, AFailedWriteIsAnIoErrorNamingTheFile) {
  base::testing::TempDir dir;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(2);
    auto files = BlobFiles::open(folder(dir));
    if (!files.ok()) ::_exit(3);
    if (!(*files)->append(filled(1000, 1)).ok()) ::_exit(4);
    auto failed = (*files)->append(filled(8000, 2));
    if (failed.ok()) ::_exit(5);
    if (failed.error().code != base::Errc::io_error) ::_exit(6);
    if (failed.error().reason.find("00000000.blob") == std::string::npos) ::_exit(7);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace sion::state
