//===- Error.cpp - errors of the tile runtime -----------------------------===//

#include "tile/Runtime/Error.h"

#include <cstdarg>
#include <cstdio>

using namespace tile::runtime;

Error Error::input(const char *format, ...) {
  va_list args, copy;
  va_start(args, format);
  va_copy(copy, args);
  int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string message(length > 0 ? length : 0, '\0');
  std::vsnprintf(message.data(), message.size() + 1, format, args);
  va_end(args);
  return Error(ErrorKind::Input, std::move(message));
}
