//===- ThreadsTest.cpp - a manifest's launch shape against its PTX --------===//

#include "tile/Runtime/Manifest.h"

#include "gtest/gtest.h"

using namespace tile::runtime;

namespace {
KernelManifest withThreads(int64_t threads) {
  KernelManifest manifest;
  manifest.kernel = manifest.entry = "k";
  manifest.threads = threads;
  return manifest;
}

/// checkThreads' message, or "" when the threads agree with `ptx`.
std::string threadsError(int64_t threads, const std::string &ptx,
                         const std::string &entry = "k") {
  Error error = checkThreads(withThreads(threads), ptx, entry);
  EXPECT_TRUE(!error || error.getKind() == ErrorKind::Input);
  return error ? error.message() : "";
}

const char *const kEntry = ".visible .entry k(\n  .param .u64 k_param_0\n)\n";

TEST(ThreadsTest, TheCompilersCommentMustBeMet) {
  std::string ptx = std::string(kEntry) + "{\n  ret;\n}\n" + kThreadsComment +
                    " k 256\n" + kThreadsComment + " k_div16 128\n";
  EXPECT_EQ(threadsError(256, ptx), "");
  EXPECT_EQ(threadsError(64, ptx),
            "manifest: threads: 64, but the PTX entry 'k' was compiled for "
            "256 threads");
  // Each entry its own: k_div16's line is not k's.
  EXPECT_EQ(threadsError(128, ptx, "k_div16"), "");
  EXPECT_EQ(threadsError(256, ptx, "k_div16"),
            "manifest: threads: 256, but the PTX entry 'k_div16' was "
            "compiled for 128 threads");
}

TEST(ThreadsTest, DirectivesBoundTheCtaSize) {
  std::string required = std::string(kEntry) + ".reqntid 32, 4, 1\n{\n}\n";
  EXPECT_EQ(threadsError(128, required), "");
  EXPECT_EQ(threadsError(256, required),
            "manifest: threads: 256, but the PTX entry 'k' was compiled for "
            ".reqntid 128 threads");
  std::string most = std::string(kEntry) + ".maxntid 512, 1, 1\n{\n}\n";
  EXPECT_EQ(threadsError(512, most), "");
  EXPECT_EQ(threadsError(256, most), "");
  EXPECT_EQ(threadsError(1024, most),
            "manifest: threads: 1024, but the PTX entry 'k' was compiled for "
            "at most .maxntid 512 threads");
  // A directive of the body (another entry's, after it) is not the
  // entry's; an absurd extent saturates rather than wraps.
  std::string later = std::string(kEntry) + "{\n}\n.entry j()\n.reqntid 64\n";
  EXPECT_EQ(threadsError(1024, later), "");
  std::string huge =
      std::string(kEntry) + ".maxntid 99999999999999999999, 99999999999\n{}";
  EXPECT_EQ(threadsError(1024, huge), "");
}

TEST(ThreadsTest, APtxThatSaysNothingIsTakenAsTheManifestSays) {
  EXPECT_EQ(threadsError(96, std::string(kEntry) + "{\n}\n"), "");
  EXPECT_EQ(threadsError(96, ""), "");
  // A comment that is not at a line's start is not the compiler's.
  std::string quoted =
      std::string(kEntry) + "{\n}\n// x " + kThreadsComment + " k 32\n";
  EXPECT_EQ(threadsError(96, quoted), "");
}

/// parseManifest's message for a manifest with `shared` bytes and
/// `dynamic`, or "".
std::string sharedError(int64_t shared, bool dynamic) {
  std::string json =
      R"({"version": 1, "kernel": "k", "entry": "k", "threads": 128,
          "grid": ["1"], "symbols": [], "params": [], "shared_bytes": )" +
      std::to_string(shared) +
      ", \"dynamic_shared\": " + (dynamic ? "true" : "false") + "}";
  Expected<KernelManifest> manifest = parseManifest(json);
  return manifest ? "" : manifest.getError().message();
}

TEST(ThreadsTest, SharedMemoryPast48KiBIsDynamic) {
  EXPECT_EQ(sharedError(49152, false), "");
  EXPECT_EQ(sharedError(49152, true), "");
  EXPECT_EQ(sharedError(100000, true), "");
  // The launch would give the kernel none.
  EXPECT_EQ(sharedError(49153, false),
            "manifest: dynamic_shared: must be true for shared_bytes of 49153 "
            "(shared memory past 49152 bytes is dynamic)");
}
} // namespace
