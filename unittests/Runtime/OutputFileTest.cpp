//===- OutputFileTest.cpp - outputs written whole or not at all -----------===//

#include "tile/Runtime/OutputFile.h"
#include "tile/Runtime/Tensor.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace tile::runtime;

namespace {

/// A fresh directory of its own, removed with what is left in it.
class OutputFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/tile-output-XXXXXX";
    ASSERT_TRUE(mkdtemp(pattern.data()));
    dir = pattern;
  }
  void TearDown() override {
    for (const std::string &name : entries())
      unlink((dir + "/" + name).c_str());
    rmdir(dir.c_str());
  }
  /// The names in the directory.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    if (DIR *handle = opendir(dir.c_str())) {
      while (dirent *entry = readdir(handle))
        if (std::string(entry->d_name) != "." &&
            std::string(entry->d_name) != "..")
          names.push_back(entry->d_name);
      closedir(handle);
    }
    return names;
  }
  std::string contents(const std::string &path) const {
    Expected<std::string> text = readFile(path);
    return text ? *text : "<" + text.getError().message() + ">";
  }
  std::string dir;
};

TEST_F(OutputFileTest, ReplacesTheFileOnlyOnCommit) {
  std::string path = dir + "/out.txt";
  ASSERT_FALSE(writeFileAtomically(path, "old"));
  chmod(path.c_str(), 0640);
  {
    Expected<AtomicOutput> output = AtomicOutput::create(path);
    ASSERT_TRUE(output) << output.getError().message();
    // Beside the output, so that the rename is atomic.
    EXPECT_EQ(output->temporaryPath().rfind(dir + "/", 0), 0u);
    ASSERT_FALSE(writeFileAtomically(output->temporaryPath(), "new"));
    EXPECT_EQ(contents(path), "old");
    // Dropped without a commit: the output as it was, no temporary left.
  }
  EXPECT_EQ(contents(path), "old");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.txt"});
  Expected<AtomicOutput> output = AtomicOutput::create(path);
  ASSERT_TRUE(output);
  ASSERT_FALSE(writeFileAtomically(output->temporaryPath(), "new"));
  EXPECT_FALSE(output->commit());
  EXPECT_EQ(contents(path), "new");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.txt"});
  // The replaced file keeps its mode.
  struct stat info;
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0640u);
}

TEST_F(OutputFileTest, WritesThroughASymbolicLink) {
  std::string target = dir + "/target.txt", link = dir + "/link.txt";
  ASSERT_FALSE(writeFileAtomically(target, "old"));
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  ASSERT_FALSE(writeFileAtomically(link, "new"));
  EXPECT_EQ(contents(target), "new");
  struct stat info;
  ASSERT_EQ(lstat(link.c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
}

TEST_F(OutputFileTest, DevicesAreWrittenInPlace) {
  // Not replaced by a rename (which would need /dev writable, and would
  // replace the device): the bytes are copied in, and a failure is said.
  EXPECT_FALSE(writeFileAtomically("/dev/null", "bytes"));
  Error full = writeFileAtomically("/dev/full", "bytes");
  ASSERT_TRUE(full);
  EXPECT_EQ(full.message(), "cannot write /dev/full: No space left on device");
}

TEST_F(OutputFileTest, UnwritablePlacesAreErrors) {
  Error directory = writeFileAtomically(dir, "bytes");
  ASSERT_TRUE(directory);
  EXPECT_EQ(directory.message(), "cannot write " + dir + ": Is a directory");
  Error missing = writeFileAtomically(dir + "/none/out.txt", "bytes");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing.message(),
            "cannot write " + dir + "/none/out.txt: No such file or directory");
  EXPECT_TRUE(entries().empty());
}

} // namespace
