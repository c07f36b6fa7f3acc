//===- OutputFile.cpp - outputs written whole or not at all ---------------===//

#include "tile/Runtime/OutputFile.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace tile::runtime;

static Error cannotWrite(const std::string &path, int error) {
  return Error::input("cannot write %s: %s", path.c_str(),
                      std::strerror(error));
}

/// Writes all of `size` bytes to `fd`, through short writes and signals.
static bool writeAll(int fd, const char *data, size_t size) {
  while (size) {
    ssize_t written = ::write(fd, data, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return false;
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

Expected<AtomicOutput> AtomicOutput::create(const std::string &path) {
  if (path.empty())
    return Error::input("cannot write an output with an empty name");
  // A symbolic link stays: its target is what gets replaced.
  std::string resolved = path;
  struct stat info;
  if (lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode))
    if (char *real = realpath(path.c_str(), nullptr)) {
      resolved = real;
      std::free(real);
    }
  bool exists = stat(resolved.c_str(), &info) == 0;
  if (exists && S_ISDIR(info.st_mode))
    return cannotWrite(path, EISDIR);
  bool replace = !exists || S_ISREG(info.st_mode);
  // Beside the output, so that the rename stays in one file system.
  std::string directory;
  if (replace) {
    size_t slash = resolved.rfind('/');
    directory = slash == std::string::npos ? "."
                : slash == 0               ? "/"
                                           : resolved.substr(0, slash);
  } else {
    const char *tmp = std::getenv("TMPDIR");
    directory = tmp && *tmp ? tmp : "/tmp";
  }
  std::string base = resolved.substr(resolved.rfind('/') + 1);
  std::string pattern =
      directory + (directory.back() == '/' ? "." : "/.") + base + ".tmp-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0)
    return cannotWrite(path, errno);
  // The mode the output has, or would get if created.
  mode_t mode;
  if (exists && replace) {
    mode = info.st_mode & 07777;
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  fchmod(fd, mode);
  close(fd);
  return AtomicOutput(resolved, name.data(), replace);
}

AtomicOutput::AtomicOutput(AtomicOutput &&other) noexcept
    : path(std::move(other.path)), temporary(std::move(other.temporary)),
      replace(other.replace) {
  other.temporary.clear();
}

AtomicOutput::~AtomicOutput() {
  if (!temporary.empty())
    unlink(temporary.c_str());
}

Error AtomicOutput::commit() {
  if (temporary.empty())
    return Error::input("the output %s was already committed", path.c_str());
  if (replace) {
    if (rename(temporary.c_str(), path.c_str()) != 0)
      return cannotWrite(path, errno);
    temporary.clear();
    return Error::success();
  }
  // A device or a pipe: its bytes, copied in.
  int in = open(temporary.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return cannotWrite(path, errno);
  int out = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (out < 0) {
    int error = errno;
    close(in);
    return cannotWrite(path, error);
  }
  char buffer[1 << 16];
  int error = 0;
  while (!error) {
    ssize_t count = read(in, buffer, sizeof buffer);
    if (count < 0 && errno == EINTR)
      continue;
    if (count <= 0) {
      error = count < 0 ? errno : 0;
      break;
    }
    if (!writeAll(out, buffer, static_cast<size_t>(count)))
      error = errno ? errno : EIO;
  }
  close(in);
  if (close(out) != 0 && !error)
    error = errno;
  if (error)
    return cannotWrite(path, error);
  return Error::success();
}

Error tile::runtime::writeFileAtomically(const std::string &path,
                                         std::string_view bytes) {
  Expected<AtomicOutput> output = AtomicOutput::create(path);
  if (!output)
    return output.takeError();
  int fd = open(output->temporaryPath().c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return cannotWrite(path, errno);
  bool written = writeAll(fd, bytes.data(), bytes.size());
  int error = written ? 0 : (errno ? errno : EIO);
  if (close(fd) != 0 && !error)
    error = errno;
  if (error)
    return cannotWrite(path, error);
  return output->commit();
}
