//===- OutputFile.h - outputs written whole or not at all -------*- C++ -*-===//
//
// Every tile tool writes its output files through this: the bytes go to a
// temporary file beside the output, renamed over it only once they are all
// written, so a failed compile, a full disk or `-o` naming the input leaves
// what was there untouched. An output that is not a regular file (a
// device, a pipe, /dev/stdout) cannot be replaced by a rename: its bytes
// are copied into it on commit instead, and a failed write is an error.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_OUTPUTFILE_H
#define TILE_RUNTIME_OUTPUTFILE_H

#include "tile/Runtime/Error.h"

#include <string>
#include <string_view>

namespace tile::runtime {

/// A temporary file to write in place of `path`. Destroyed without a
/// commit, it removes the temporary file and leaves `path` as it was.
class AtomicOutput {
public:
  /// Creates the temporary file (in `path`'s directory where the output is
  /// or will be a regular file, else in TMPDIR). An Input error "cannot
  /// write PATH: REASON" when it cannot be created.
  static Expected<AtomicOutput> create(const std::string &path);
  AtomicOutput(AtomicOutput &&other) noexcept;
  AtomicOutput &operator=(AtomicOutput &&) = delete;
  AtomicOutput(const AtomicOutput &) = delete;
  ~AtomicOutput();

  /// Where to write the bytes (the file exists, empty).
  const std::string &temporaryPath() const { return temporary; }
  /// Replaces `path` with the temporary file's bytes; "cannot write PATH:
  /// REASON" when that fails, `path` then as it was (but a device or a
  /// pipe, which may have taken part of the bytes).
  Error commit();

private:
  AtomicOutput(std::string path, std::string temporary, bool replace)
      : path(std::move(path)), temporary(std::move(temporary)),
        replace(replace) {}
  /// The output, symbolic links resolved.
  std::string path;
  std::string temporary;
  /// Whether commit renames (a regular file) or copies (anything else).
  bool replace;
};

/// Writes `bytes` to `path` through an AtomicOutput.
Error writeFileAtomically(const std::string &path, std::string_view bytes);

} // namespace tile::runtime

#endif // TILE_RUNTIME_OUTPUTFILE_H
