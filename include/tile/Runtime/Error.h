//===- Error.h - errors of the tile runtime ---------------------*- C++ -*-===//
//
// The runtime builds without exceptions and without LLVM, so it reports
// failures with these two small types instead of llvm::Error/llvm::Expected.
// An Error says what went wrong in a sentence and, through its kind, which
// exit code a tool should use.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_ERROR_H
#define TILE_RUNTIME_ERROR_H

#include <optional>
#include <string>
#include <utility>

namespace tile::runtime {

enum class ErrorKind {
  None,
  /// Bad input: a manifest, a buffer, a symbol value or a file.
  Input,
  /// No CUDA driver could be loaded or no device answers.
  NoDevice,
  /// A CUDA driver call failed (the PTX did not load, a launch failed, ...).
  Driver,
};

class [[nodiscard]] Error {
public:
  static Error success() { return Error(); }
  Error(ErrorKind kind, std::string message)
      : kind(kind), text(std::move(message)) {}
  /// A printf-style Input error, the common case.
  static Error input(const char *format, ...)
      __attribute__((format(printf, 1, 2)));

  /// True on failure, as llvm::Error.
  explicit operator bool() const { return kind != ErrorKind::None; }
  ErrorKind getKind() const { return kind; }
  const std::string &message() const { return text; }
  /// Prefixes the message with context ("manifest: " + message).
  Error &prefix(const std::string &context) {
    text = context + text;
    return *this;
  }

private:
  Error() = default;
  ErrorKind kind = ErrorKind::None;
  std::string text;
};

/// A value or the Error explaining why there is none.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : value(std::move(value)), error(Error::success()) {}
  Expected(Error error) : error(std::move(error)) {}

  explicit operator bool() const { return value.has_value(); }
  T &operator*() { return *value; }
  const T &operator*() const { return *value; }
  T *operator->() { return &*value; }
  const T *operator->() const { return &*value; }
  const Error &getError() const { return error; }
  Error takeError() { return std::move(error); }

private:
  std::optional<T> value;
  Error error;
};

} // namespace tile::runtime

#endif // TILE_RUNTIME_ERROR_H
