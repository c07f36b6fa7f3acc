//===- Manifest.cpp - the kernel manifest of docs/abi.md ------------------===//

#include "tile/Runtime/Manifest.h"
#include "tile/Runtime/Check.h"
#include "tile/Runtime/Json.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <unistd.h>

using namespace tile::runtime;

//===----------------------------------------------------------------------===//
// Integer arithmetic and the grid expressions
//===----------------------------------------------------------------------===//

Expected<int64_t> tile::runtime::applyIntOp(IntOp op, int64_t lhs,
                                            int64_t rhs) {
  int64_t result = 0;
  bool overflow = false;
  switch (op) {
  case IntOp::Add:
    overflow = __builtin_add_overflow(lhs, rhs, &result);
    break;
  case IntOp::Sub:
    overflow = __builtin_sub_overflow(lhs, rhs, &result);
    break;
  case IntOp::Mul:
    overflow = __builtin_mul_overflow(lhs, rhs, &result);
    break;
  case IntOp::FloorDiv:
  case IntOp::CeilDiv:
  case IntOp::Mod: {
    if (rhs == 0)
      return Error::input("division by zero");
    if (lhs == INT64_MIN && rhs == -1)
      return Error::input("integer overflow");
    int64_t quotient = lhs / rhs, remainder = lhs % rhs;
    bool inexact = remainder != 0;
    bool negative = (lhs < 0) != (rhs < 0);
    if (op == IntOp::FloorDiv)
      result = quotient - (inexact && negative);
    else if (op == IntOp::CeilDiv)
      result = quotient + (inexact && !negative);
    else
      result = (inexact && negative) ? remainder + rhs : remainder;
    break;
  }
  }
  if (overflow)
    return Error::input("integer overflow");
  return result;
}

namespace {
/// Recursive descent over the grammar of docs/abi.md:
///   expr := term (("+" | "-") term)*
///   term := factor (("*" | "floordiv" | "ceildiv" | "mod") factor)*
///   factor := INT | SYMBOL | "(" expr ")" | "-" factor
/// With `checkOnly`, arithmetic errors are ignored, so a manifest can be
/// checked for syntax and unknown symbols before any symbol has a value.
class ExpressionEvaluator {
public:
  ExpressionEvaluator(std::string_view text, const SymbolBindings &symbols,
                      bool checkOnly)
      : text(text), symbols(symbols), checkOnly(checkOnly) {}

  Expected<int64_t> evaluate() {
    Expected<int64_t> value = parseExpr(0);
    if (!value)
      return value;
    skipSpace();
    if (pos != text.size())
      return fail("unexpected '" + std::string(text.substr(pos)) + "'");
    return value;
  }

private:
  static constexpr int kMaxDepth = 64;

  Error fail(const std::string &what) const {
    return Error::input("in '%s' at column %zu: %s", std::string(text).c_str(),
                        pos + 1, what.c_str());
  }

  void skipSpace() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }

  static bool isIdentifierChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  }

  /// The next word (identifier or number), without consuming it.
  std::string_view peekWord() {
    skipSpace();
    size_t end = pos;
    while (end < text.size() && isIdentifierChar(text[end]))
      ++end;
    return text.substr(pos, end - pos);
  }

  /// `lhs op rhs`; an error points at the operator, at `opPos`.
  Expected<int64_t> combine(IntOp op, int64_t lhs, int64_t rhs, size_t opPos) {
    Expected<int64_t> result = applyIntOp(op, lhs, rhs);
    if (!result && checkOnly)
      return int64_t(1);
    if (!result) {
      pos = opPos;
      return fail(result.getError().message());
    }
    return result;
  }

  Expected<int64_t> parseExpr(int depth) {
    Expected<int64_t> value = parseTerm(depth);
    while (value) {
      skipSpace();
      if (pos == text.size() || (text[pos] != '+' && text[pos] != '-'))
        break;
      size_t opPos = pos;
      IntOp op = text[pos++] == '+' ? IntOp::Add : IntOp::Sub;
      Expected<int64_t> rhs = parseTerm(depth);
      if (!rhs)
        return rhs;
      value = combine(op, *value, *rhs, opPos);
    }
    return value;
  }

  Expected<int64_t> parseTerm(int depth) {
    Expected<int64_t> value = parseFactor(depth);
    while (value) {
      skipSpace();
      size_t opPos = pos;
      IntOp op;
      if (pos < text.size() && text[pos] == '*') {
        ++pos;
        op = IntOp::Mul;
      } else {
        std::string_view word = peekWord();
        if (word == "floordiv")
          op = IntOp::FloorDiv;
        else if (word == "ceildiv")
          op = IntOp::CeilDiv;
        else if (word == "mod")
          op = IntOp::Mod;
        else
          break;
        pos += word.size();
      }
      Expected<int64_t> rhs = parseFactor(depth);
      if (!rhs)
        return rhs;
      value = combine(op, *value, *rhs, opPos);
    }
    return value;
  }

  Expected<int64_t> parseFactor(int depth) {
    if (depth > kMaxDepth)
      return fail("nested too deeply");
    skipSpace();
    if (pos == text.size())
      return fail("expected a number, a symbol or '('");
    if (text[pos] == '(') {
      ++pos;
      Expected<int64_t> value = parseExpr(depth + 1);
      if (!value)
        return value;
      skipSpace();
      if (pos == text.size() || text[pos] != ')')
        return fail("expected ')'");
      ++pos;
      return value;
    }
    if (text[pos] == '-') {
      size_t opPos = pos++;
      Expected<int64_t> value = parseFactor(depth + 1);
      if (!value)
        return value;
      return combine(IntOp::Sub, 0, *value, opPos);
    }
    std::string_view word = peekWord();
    if (word.empty())
      return fail("expected a number, a symbol or '('");
    if (std::isdigit(static_cast<unsigned char>(word[0]))) {
      int64_t value = 0;
      for (char c : word) {
        if (!std::isdigit(static_cast<unsigned char>(c)))
          return fail("malformed number '" + std::string(word) + "'");
        if (__builtin_mul_overflow(value, 10, &value) ||
            __builtin_add_overflow(value, c - '0', &value))
          return fail("number '" + std::string(word) + "' is too large");
      }
      pos += word.size();
      return value;
    }
    auto symbol = symbols.find(std::string(word));
    if (symbol == symbols.end())
      return fail("unknown symbol '" + std::string(word) + "'");
    pos += word.size();
    return symbol->second;
  }

  std::string_view text;
  const SymbolBindings &symbols;
  bool checkOnly;
  size_t pos = 0;
};
} // namespace

Expected<int64_t>
tile::runtime::evaluateExpression(std::string_view expression,
                                  const SymbolBindings &symbols) {
  return ExpressionEvaluator(expression, symbols, /*checkOnly=*/false)
      .evaluate();
}

Error tile::runtime::checkGrid(const std::array<int64_t, 3> &grid) {
  static const char *const axes[] = {"x", "y", "z"};
  for (int axis = 0; axis < 3; ++axis)
    if (grid[axis] <= 0 || grid[axis] > INT32_MAX)
      return Error::input("grid size in %s is %lld; it must be in [1, "
                          "2^31 - 1]",
                          axes[axis], static_cast<long long>(grid[axis]));
  return Error::success();
}

/// Whether a scalar of `dtype` is an integer a grid may name.
static bool isIntegerScalar(const ParamSpec &param) {
  return param.isScalar() &&
         (param.dtype == DType::I32 || param.dtype == DType::Index);
}

Expected<std::array<int64_t, 3>>
tile::runtime::evaluateGrid(const KernelManifest &manifest,
                            const SymbolBindings &symbols,
                            const std::vector<const HostTensor *> &arguments) {
  SymbolBindings names = symbols;
  for (size_t i = 0; i < arguments.size() && i < manifest.params.size(); ++i)
    if (isIntegerScalar(manifest.params[i]) && arguments[i] &&
        arguments[i]->isScalar())
      names[manifest.params[i].name] = arguments[i]->getInt(0);
  std::array<int64_t, 3> grid;
  for (int axis = 0; axis < 3; ++axis) {
    Expected<int64_t> size = evaluateExpression(manifest.grid[axis], names);
    if (!size)
      return size.takeError().prefix("grid: ");
    grid[axis] = *size;
  }
  if (Error error = checkGrid(grid))
    return error;
  return grid;
}

//===----------------------------------------------------------------------===//
// Symbols and argument checks
//===----------------------------------------------------------------------===//

static bool isIdentifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

Error tile::runtime::parseSymbolAssignment(std::string_view text,
                                           SymbolBindings &symbols) {
  size_t equals = text.find('=');
  std::string name(text.substr(0, equals));
  std::string value = equals == std::string_view::npos
                          ? ""
                          : std::string(text.substr(equals + 1));
  if (!isIdentifier(name) || value.empty())
    return Error::input("'%s' is not a symbol assignment such as K=4096",
                        std::string(text).c_str());
  // A symbol is a tensor size: positive.
  Expected<int64_t> parsed = evaluateExpression(value, {});
  if (value.find_first_not_of("0123456789") != std::string::npos || !parsed ||
      *parsed <= 0)
    return Error::input("value of %s, '%s', is not a positive integer",
                        name.c_str(), value.c_str());
  auto [it, inserted] = symbols.emplace(name, *parsed);
  if (!inserted && it->second != *parsed)
    return Error::input("%s is given twice, as %lld and %lld", name.c_str(),
                        static_cast<long long>(it->second),
                        static_cast<long long>(*parsed));
  return Error::success();
}

Expected<HostTensor> tile::runtime::parseScalarValue(const ParamSpec &param,
                                                     std::string_view text) {
  std::string value(text);
  HostTensor scalar = HostTensor::zeros(param.dtype, {});
  const char *begin = value.c_str();
  char *end = nullptr;
  errno = 0;
  if (isFloat(param.dtype)) {
    double number = std::strtod(begin, &end);
    if (value.empty() || *end != '\0' || errno == ERANGE || std::isnan(number))
      return Error::input("value of %s, '%s', is not a %s number",
                          param.name.c_str(), value.c_str(),
                          dtypeName(param.dtype));
    scalar.set(0, number);
    // A finite value beyond the type's range would arrive as an infinity.
    if (std::isfinite(number) && !std::isfinite(scalar.get(0)))
      return Error::input("value of %s, '%s', is beyond the range of %s",
                          param.name.c_str(), value.c_str(),
                          dtypeName(param.dtype));
    return scalar;
  }
  long long number = std::strtoll(begin, &end, 10);
  bool fits =
      param.dtype != DType::I32 || (number >= INT32_MIN && number <= INT32_MAX);
  if (value.empty() || *end != '\0' || errno == ERANGE || !fits)
    return Error::input("value of %s, '%s', is not an %s integer",
                        param.name.c_str(), value.c_str(),
                        dtypeName(param.dtype));
  scalar.setInt(0, number);
  return scalar;
}

std::string tile::runtime::formatScalarValue(const HostTensor &value) {
  char text[40];
  if (isFloat(value.dtype))
    std::snprintf(text, sizeof(text), "%.17g", value.get(0));
  else
    std::snprintf(text, sizeof(text), "%lld",
                  static_cast<long long>(value.getInt(0)));
  return text;
}

Expected<std::vector<int64_t>>
tile::runtime::resolveShape(const ParamSpec &param,
                            const SymbolBindings &symbols) {
  std::vector<int64_t> shape;
  for (const Dim &dim : param.shape) {
    if (!dim.isSymbolic()) {
      shape.push_back(dim.size);
      continue;
    }
    if (dim.isExpression()) {
      Expected<int64_t> value = evaluateExpression(dim.symbol, symbols);
      if (!value)
        return value.takeError().prefix("parameter '" + param.name + "': ");
      if (*value <= 0)
        return Error::input("parameter '%s': dimension %s is %lld; sizes "
                            "must be positive",
                            param.name.c_str(), dim.symbol.c_str(),
                            static_cast<long long>(*value));
      shape.push_back(*value);
      continue;
    }
    auto value = symbols.find(dim.symbol);
    if (value == symbols.end())
      return Error::input("parameter '%s': symbol %s has no value",
                          param.name.c_str(), dim.symbol.c_str());
    shape.push_back(value->second);
  }
  std::optional<int64_t> count = countElements(shape);
  int64_t bytes;
  if (!count ||
      __builtin_mul_overflow(*count, int64_t(dtypeSize(param.dtype)), &bytes))
    return Error::input("parameter '%s': %s of %s is more elements than a "
                        "buffer can hold",
                        param.name.c_str(), formatShape(shape).c_str(),
                        dtypeName(param.dtype));
  return shape;
}

Error tile::runtime::reserveTensorBytes(const ParamSpec &param,
                                        const std::vector<int64_t> &shape,
                                        int64_t limit,
                                        const std::string &limitName,
                                        int64_t &total) {
  // resolveShape checked that the bytes fit in 64 bits.
  int64_t bytes = *countElements(shape) * int64_t(dtypeSize(param.dtype));
  if (bytes > limit - total)
    return Error::input("parameter '%s': %s of %s takes the kernel's tensors "
                        "over %s",
                        param.name.c_str(), formatShape(shape).c_str(),
                        dtypeName(param.dtype), limitName.c_str());
  total += bytes;
  return Error::success();
}

Error tile::runtime::checkIndexRange(
    const KernelManifest &manifest, const SymbolBindings &symbols,
    const std::vector<const HostTensor *> &buffers, size_t *badParam) {
  if (manifest.indexBits != 32)
    return Error::success();
  constexpr int64_t kMax = INT32_MAX;
  std::string over = "over the 2^31 - 1 that kernel '" + manifest.kernel +
                     "' reaches with 32-bit index arithmetic; compile it "
                     "with --index-bits=64";
  for (const std::string &symbol : manifest.symbols) {
    auto value = symbols.find(symbol);
    if (value != symbols.end() && value->second > kMax)
      return Error::input("symbol %s = %lld is %s", symbol.c_str(),
                          static_cast<long long>(value->second), over.c_str());
  }
  for (size_t i = 0; i < manifest.params.size(); ++i) {
    const ParamSpec &param = manifest.params[i];
    if (param.isScalar()) {
      const HostTensor *scalar = i < buffers.size() ? buffers[i] : nullptr;
      if (param.dtype != DType::Index || !scalar || scalar->bytes.size() != 8)
        continue;
      int64_t value;
      std::memcpy(&value, scalar->bytes.data(), sizeof(value));
      if ((value > kMax || value < -kMax - 1) && badParam)
        *badParam = i;
      if (value > kMax || value < -kMax - 1)
        return Error::input("parameter '%s': the index %lld is %s",
                            param.name.c_str(), static_cast<long long>(value),
                            over.c_str());
      continue;
    }
    Expected<std::vector<int64_t>> shape = resolveShape(param, symbols);
    if (!shape)
      continue; // unbound symbols are reported where they are bound
    int64_t elements = *countElements(*shape);
    if (elements > kMax && badParam)
      *badParam = i;
    if (elements > kMax)
      return Error::input("parameter '%s': %s of %s is %lld elements, %s",
                          param.name.c_str(), formatShape(*shape).c_str(),
                          dtypeName(param.dtype),
                          static_cast<long long>(elements), over.c_str());
  }
  return Error::success();
}

/// The product of the integers after `directive` ("256, 1, 1") in
/// `text`, or none when the directive is not there.
static std::optional<int64_t> readExtents(std::string_view text,
                                          std::string_view directive) {
  size_t at = text.find(directive);
  if (at == std::string_view::npos)
    return std::nullopt;
  int64_t product = 1;
  const char *cursor = text.data() + at + directive.size();
  const char *end = text.data() + text.size();
  for (int dims = 0; dims < 3; ++dims) {
    while (cursor < end && (*cursor == ' ' || *cursor == '\t'))
      ++cursor;
    if (cursor == end || !std::isdigit(static_cast<unsigned char>(*cursor)))
      break;
    int64_t extent = 0;
    while (cursor < end && std::isdigit(static_cast<unsigned char>(*cursor)))
      extent = std::min<int64_t>(extent * 10 + (*cursor++ - '0'), INT32_MAX);
    if (__builtin_mul_overflow(product, extent, &product))
      product = INT64_MAX;
    while (cursor < end && (*cursor == ' ' || *cursor == '\t'))
      ++cursor;
    if (cursor == end || *cursor != ',')
      break;
    ++cursor;
  }
  return product;
}

Error tile::runtime::checkThreads(const KernelManifest &manifest,
                                  std::string_view ptx,
                                  const std::string &entry) {
  auto mismatch = [&](const char *what, int64_t count) {
    return Error::input("manifest: threads: %lld, but the PTX entry '%s' was "
                        "compiled for %s%lld threads",
                        static_cast<long long>(manifest.threads), entry.c_str(),
                        what, static_cast<long long>(count));
  };
  std::string comment = std::string(kThreadsComment) + " " + entry + " ";
  for (size_t at = ptx.find(comment); at != std::string_view::npos;
       at = ptx.find(comment, at + 1)) {
    if (at != 0 && ptx[at - 1] != '\n')
      continue;
    std::optional<int64_t> count =
        readExtents(ptx.substr(at, ptx.find('\n', at) - at), comment);
    if (count && *count != manifest.threads)
      return mismatch("", *count);
  }
  // The directives between the entry's name and its body.
  size_t at = ptx.find(".entry " + entry + "(");
  if (at == std::string_view::npos)
    return Error::success();
  std::string_view directives = ptx.substr(at, ptx.find('{', at) - at);
  if (std::optional<int64_t> count = readExtents(directives, ".reqntid"))
    if (*count != manifest.threads)
      return mismatch(".reqntid ", *count);
  if (std::optional<int64_t> count = readExtents(directives, ".maxntid"))
    if (manifest.threads > *count)
      return mismatch("at most .maxntid ", *count);
  return Error::success();
}

int64_t tile::runtime::hostMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  int64_t bytes;
  if (pages <= 0 || pageSize <= 0 ||
      __builtin_mul_overflow(int64_t(pages), int64_t(pageSize), &bytes))
    return INT64_MAX;
  return bytes;
}

Error tile::runtime::bindArgument(const ParamSpec &param,
                                  const HostTensor &buffer,
                                  SymbolBindings &symbols,
                                  SymbolOrigins &origins) {
  const char *name = param.name.c_str();
  if (buffer.dtype != param.dtype)
    return Error::input("parameter '%s': expected %s elements, got %s", name,
                        dtypeName(param.dtype), dtypeName(buffer.dtype));
  if (buffer.shape.size() != param.shape.size())
    return Error::input("parameter '%s': expected rank %zu, got shape %s", name,
                        param.shape.size(), formatShape(buffer.shape).c_str());
  for (size_t d = 0; d < param.shape.size(); ++d) {
    const Dim &dim = param.shape[d];
    int64_t size = buffer.shape[d];
    if (!dim.isSymbolic()) {
      if (size != dim.size)
        return Error::input("parameter '%s': dimension %zu is %lld, "
                            "expected %lld",
                            name, d, static_cast<long long>(size),
                            static_cast<long long>(dim.size));
      continue;
    }
    if (dim.isExpression())
      continue; // checkExpressionDims, once every symbol is bound
    auto [bound, inserted] = symbols.emplace(dim.symbol, size);
    std::string here =
        "parameter '" + param.name + "' dimension " + std::to_string(d);
    if (inserted) {
      origins[dim.symbol] = here;
    } else if (bound->second != size) {
      auto origin = origins.find(dim.symbol);
      return Error::input(
          "parameter '%s': dimension %zu is %s = %lld, but %s = %lld (%s)",
          name, d, dim.symbol.c_str(), static_cast<long long>(size),
          dim.symbol.c_str(), static_cast<long long>(bound->second),
          origin == origins.end() ? "given" : origin->second.c_str());
    }
    if (size <= 0)
      return Error::input("parameter '%s': dimension %zu (%s) is %lld; "
                          "sizes must be positive",
                          name, d, dim.symbol.c_str(),
                          static_cast<long long>(size));
  }
  std::optional<int64_t> count = countElements(buffer.shape);
  if (!count || buffer.bytes.size() !=
                    static_cast<size_t>(*count) * dtypeSize(param.dtype))
    return Error::input("parameter '%s': %zu bytes do not hold a %s %s "
                        "tensor",
                        name, buffer.bytes.size(),
                        formatShape(buffer.shape).c_str(),
                        dtypeName(param.dtype));
  return Error::success();
}

Error tile::runtime::checkExpressionDims(const ParamSpec &param,
                                         const std::vector<int64_t> &shape,
                                         const SymbolBindings &symbols,
                                         const SymbolOrigins &origins) {
  for (size_t d = 0; d < param.shape.size() && d < shape.size(); ++d) {
    const Dim &dim = param.shape[d];
    if (!dim.isExpression())
      continue;
    Expected<int64_t> want = evaluateExpression(dim.symbol, symbols);
    if (!want)
      return want.takeError().prefix("parameter '" + param.name + "': ");
    if (*want == shape[d])
      continue;
    // Where its symbols' values came from: "H = 300 (parameter 'Y'
    // dimension 1)".
    std::string from;
    for (const auto &[symbol, value] : symbols) {
      size_t at = dim.symbol.find(symbol);
      bool whole =
          at != std::string::npos &&
          (at == 0 ||
           !std::isalnum(static_cast<unsigned char>(dim.symbol[at - 1]))) &&
          (at + symbol.size() == dim.symbol.size() ||
           !std::isalnum(
               static_cast<unsigned char>(dim.symbol[at + symbol.size()])));
      if (!whole)
        continue;
      auto origin = origins.find(symbol);
      from += (from.empty() ? "" : ", ") + symbol + " = " +
              std::to_string(value) + " (" +
              (origin == origins.end() ? "given" : origin->second) + ")";
    }
    return Error::input("parameter '%s': dimension %zu is %lld, but %s = %lld "
                        "with %s",
                        param.name.c_str(), d, static_cast<long long>(shape[d]),
                        dim.symbol.c_str(), static_cast<long long>(*want),
                        from.c_str());
  }
  return Error::success();
}

Error tile::runtime::bindArguments(
    const std::vector<ParamSpec> &params,
    const std::vector<const HostTensor *> &buffers, SymbolBindings &symbols) {
  if (buffers.size() != params.size())
    return Error::input("the kernel has %zu parameters, %zu buffers given",
                        params.size(), buffers.size());
  SymbolOrigins origins;
  for (size_t i = 0; i < params.size(); ++i) {
    if (!buffers[i])
      return Error::input("parameter '%s': no buffer given",
                          params[i].name.c_str());
    if (Error error = bindArgument(params[i], *buffers[i], symbols, origins))
      return error;
  }
  // Expressions of symbols once every symbol is bound (each is also a
  // dimension of its own: the compiler's rule).
  for (size_t i = 0; i < params.size(); ++i)
    if (Error error =
            checkExpressionDims(params[i], buffers[i]->shape, symbols, origins))
      return error;
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Manifest parsing
//===----------------------------------------------------------------------===//

namespace {
/// Reads the members of one JSON object, naming the path in its errors.
class ObjectReader {
public:
  /// `document` names what the object is in ("manifest").
  ObjectReader(const JsonValue &object, std::string path,
               const char *document = "manifest")
      : object(object), path(std::move(path)), document(document) {}

  Error fail(const std::string &field, const std::string &what) const {
    return Error::input("%s: %s%s: %s", document, path.c_str(), field.c_str(),
                        what.c_str());
  }

  /// The member, or null (an error in `error` when it is required).
  const JsonValue *member(const char *key, JsonValue::Kind kind,
                          const char *kindName, bool required, Error &error) {
    const JsonValue *value = object.get(key);
    if (!value) {
      if (required)
        error = fail(key, "missing");
      return nullptr;
    }
    if (value->kind != kind) {
      error = fail(key, std::string("must be ") + kindName);
      return nullptr;
    }
    return value;
  }

  Error readString(const char *key, std::string &out, bool required = true) {
    Error error = Error::success();
    if (const JsonValue *value =
            member(key, JsonValue::Kind::String, "a string", required, error))
      out = value->string;
    return error;
  }

  Error readInt(const char *key, int64_t &out, int64_t min, int64_t max,
                bool required = true) {
    Error error = Error::success();
    const JsonValue *value =
        member(key, JsonValue::Kind::Number, "an integer", required, error);
    if (!value)
      return error;
    if (!value->isInteger || value->integer < min || value->integer > max)
      return fail(key, "must be an integer in [" + std::to_string(min) + ", " +
                           std::to_string(max) + "]");
    out = value->integer;
    return Error::success();
  }

  Error readBool(const char *key, bool &out) {
    Error error = Error::success();
    if (const JsonValue *value =
            member(key, JsonValue::Kind::Bool, "true or false", false, error))
      out = value->boolean;
    return error;
  }

  const JsonValue &object;
  std::string path;
  const char *document;
};
} // namespace

/// `fp_contract` and `fp_div`, where the object has them.
static Error readFloatOptions(ObjectReader &reader, FloatOptions &options) {
  std::string division = floatDivisionName(options.division);
  if (Error error = reader.readBool("fp_contract", options.contract))
    return error;
  if (Error error = reader.readString("fp_div", division, false))
    return error;
  std::optional<FloatDivision> parsed = parseFloatDivision(division);
  if (!parsed)
    return reader.fail("fp_div", "must be \"ieee\" or \"full\", not \"" +
                                     division + "\"");
  options.division = *parsed;
  return Error::success();
}

Expected<FloatOptions> tile::runtime::parseFloatOptions(std::string_view text,
                                                        int64_t *marksVersion) {
  Expected<JsonValue> json = parseJson(text);
  if (!json)
    return json.takeError().prefix("floating-point options: ");
  if (json->kind != JsonValue::Kind::Object)
    return Error::input("floating-point options: must be a JSON object");
  ObjectReader reader(*json, "", "floating-point options");
  FloatOptions options;
  if (Error error = readFloatOptions(reader, options))
    return error;
  if (marksVersion) {
    *marksVersion = 1;
    if (Error error = reader.readInt("marks_version", *marksVersion, 1,
                                     kMarksVersion, false))
      return error;
  }
  return options;
}

std::string
tile::runtime::formatFloatOptions(const FloatOptions &options,
                                  std::optional<int64_t> marksVersion) {
  std::string text = std::string("{\"fp_contract\": ") +
                     (options.contract ? "true" : "false") +
                     ", \"fp_div\": \"" + floatDivisionName(options.division) +
                     "\"";
  if (marksVersion)
    text += ", \"marks_version\": " + std::to_string(*marksVersion);
  return text + "}";
}

static Error readParam(const JsonValue &json, size_t index, ParamSpec &param) {
  ObjectReader reader(json, "params[" + std::to_string(index) + "].");
  if (json.kind != JsonValue::Kind::Object)
    return Error::input("manifest: params[%zu] must be an object", index);
  if (Error error = reader.readString("name", param.name))
    return error;
  if (!isIdentifier(param.name))
    return reader.fail("name", "'" + param.name + "' is not an identifier");
  std::string dtype, access;
  if (Error error = reader.readString("dtype", dtype))
    return error;
  std::optional<DType> parsed = parseDType(dtype);
  if (!parsed)
    return reader.fail("dtype", "'" + dtype +
                                    "' is not one of f32, f16, bf16, i32, "
                                    "i1, index");
  param.dtype = *parsed;
  if (Error error = reader.readString("access", access))
    return error;
  if (access == "read")
    param.access = Access::Read;
  else if (access == "write")
    param.access = Access::Write;
  else if (access == "readwrite")
    param.access = Access::ReadWrite;
  else
    return reader.fail("access",
                       "'" + access + "' is not read, write or readwrite");
  Error error = Error::success();
  const JsonValue *shape =
      reader.member("shape", JsonValue::Kind::Array, "an array", true, error);
  if (!shape)
    return error;
  // An empty shape is a scalar, passed by value (version 2).
  if (shape->array.empty()) {
    if (param.access != Access::Read)
      return reader.fail("access", "a scalar parameter (shape []) is read");
    if (param.dtype == DType::I1)
      return reader.fail("dtype", "a scalar parameter is f32, f16, bf16, "
                                  "i32 or index");
    return Error::success();
  }
  if (param.dtype == DType::Index)
    return reader.fail("dtype", "index is the type of a scalar parameter "
                                "(shape []), not of a tensor");
  for (const JsonValue &dim : shape->array) {
    // A symbol, or an expression of symbols (checked with the symbols).
    if (dim.kind == JsonValue::Kind::String &&
        (isIdentifier(dim.string) ||
         (!dim.string.empty() &&
          dim.string.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
                                       "KLMNOPQRSTUVWXYZ0123456789_ +-*()") ==
              std::string::npos &&
          Dim{0, dim.string}.isExpression())))
      param.shape.push_back({0, dim.string});
    else if (dim.kind == JsonValue::Kind::Number && dim.isInteger &&
             dim.integer > 0)
      param.shape.push_back({dim.integer, ""});
    else
      return reader.fail("shape", "each dimension must be a positive "
                                  "integer, a symbol name or an expression "
                                  "of symbols");
  }
  return Error::success();
}

static Error readGrid(ObjectReader &reader, KernelManifest &manifest) {
  Error error = Error::success();
  const JsonValue *grid =
      reader.member("grid", JsonValue::Kind::Array, "an array", true, error);
  if (!grid)
    return error;
  if (grid->array.empty() || grid->array.size() > 3)
    return reader.fail("grid", "needs 1 to 3 expressions");
  SymbolBindings ones;
  for (const std::string &symbol : manifest.symbols)
    ones[symbol] = 1;
  for (const ParamSpec &param : manifest.params)
    if (isIntegerScalar(param))
      ones[param.name] = 1;
  for (size_t axis = 0; axis < grid->array.size(); ++axis) {
    const JsonValue &size = grid->array[axis];
    if (size.kind == JsonValue::Kind::Number && size.isInteger)
      manifest.grid[axis] = std::to_string(size.integer);
    else if (size.kind == JsonValue::Kind::String)
      manifest.grid[axis] = size.string;
    else
      return reader.fail("grid", "each size must be a string or an integer");
    // Syntax and symbol names now; arithmetic once the symbols have values.
    Expected<int64_t> checked =
        ExpressionEvaluator(manifest.grid[axis], ones, /*checkOnly=*/true)
            .evaluate();
    if (!checked)
      return reader.fail("grid", checked.getError().message());
  }
  return Error::success();
}

/// The symbols in order of first appearance in the shapes, as the ABI
/// passes them; the manifest's list must be exactly that.
static Error checkSymbols(ObjectReader &reader,
                          const KernelManifest &manifest) {
  std::vector<std::string> used;
  auto use = [&](const std::string &name) {
    if (std::find(used.begin(), used.end(), name) == used.end())
      used.push_back(name);
  };
  SymbolBindings ones;
  for (const std::string &symbol : manifest.symbols)
    ones[symbol] = 1;
  for (const ParamSpec &param : manifest.params)
    for (const Dim &dim : param.shape) {
      if (!dim.isExpression()) {
        if (dim.isSymbolic())
          use(dim.symbol);
        continue;
      }
      // The names an expression uses, in order; its syntax and names.
      for (size_t at = 0; at < dim.symbol.size();) {
        size_t end = at;
        while (end < dim.symbol.size() &&
               (std::isalnum(static_cast<unsigned char>(dim.symbol[end])) ||
                dim.symbol[end] == '_'))
          ++end;
        std::string word = dim.symbol.substr(at, end - at);
        if (end > at && isIdentifier(word))
          use(word);
        at = end > at ? end : at + 1;
      }
      Expected<int64_t> checked =
          ExpressionEvaluator(dim.symbol, ones, /*checkOnly=*/true).evaluate();
      if (!checked)
        return reader.fail("params", "'" + param.name + "' shape: " +
                                         checked.getError().message());
    }
  if (used == manifest.symbols)
    return Error::success();
  auto list = [](const std::vector<std::string> &names) {
    std::string out = "[";
    for (size_t i = 0; i < names.size(); ++i)
      out += (i ? ", " : "") + names[i];
    return out + "]";
  };
  return reader.fail("symbols", list(manifest.symbols) +
                                    " differs from the symbols of the "
                                    "parameter shapes in order of first "
                                    "appearance, " +
                                    list(used));
}

/// The `variants` of a version 3 manifest, else the general kernel alone.
static Error readVariants(ObjectReader &reader, KernelManifest &manifest) {
  Error error = Error::success();
  const JsonValue *variants = reader.member("variants", JsonValue::Kind::Array,
                                            "an array", false, error);
  if (error)
    return error;
  if (!variants) {
    manifest.variants.push_back({manifest.entry, {}, kTensorAlignment});
    return Error::success();
  }
  for (size_t i = 0; i < variants->array.size(); ++i) {
    const JsonValue &json = variants->array[i];
    std::string path = reader.path + "variants[" + std::to_string(i) + "].";
    if (json.kind != JsonValue::Kind::Object)
      return Error::input("manifest: %svariants[%zu] must be an object",
                          reader.path.c_str(), i);
    ObjectReader entry(json, path);
    Variant variant;
    if ((error = entry.readString("entry", variant.entry)) ||
        (error = entry.readInt("aligned", variant.aligned, 1, 1 << 30)))
      return error;
    if (variant.entry.empty())
      return entry.fail("entry", "must not be empty");
    const JsonValue *divisible = entry.member(
        "divisible", JsonValue::Kind::Object, "an object", true, error);
    if (!divisible)
      return error;
    for (const auto &[symbol, divisor] : divisible->object) {
      if (std::find(manifest.symbols.begin(), manifest.symbols.end(), symbol) ==
          manifest.symbols.end())
        return entry.fail("divisible",
                          "'" + symbol + "' is not a symbol of the kernel");
      if (divisor.kind != JsonValue::Kind::Number || !divisor.isInteger ||
          divisor.integer < 1)
        return entry.fail("divisible", "the divisor of '" + symbol +
                                           "' must be a positive integer");
      variant.divisible[symbol] = divisor.integer;
    }
    manifest.variants.push_back(std::move(variant));
  }
  if (manifest.variants.empty() ||
      manifest.variants.back().entry != manifest.entry)
    return reader.fail("variants", "the last variant must be the kernel's "
                                   "entry '" +
                                       manifest.entry + "'");
  return Error::success();
}

Expected<const Variant *>
tile::runtime::chooseVariant(const KernelManifest &manifest,
                             const SymbolBindings &symbols) {
  std::string unmet;
  for (const Variant &variant : manifest.variants) {
    bool meets = true;
    for (const auto &[symbol, divisor] : variant.divisible) {
      auto value = symbols.find(symbol);
      if (value != symbols.end() && value->second % divisor == 0)
        continue;
      meets = false;
      if (value != symbols.end())
        unmet = symbol + " = " + std::to_string(value->second) +
                " is not a multiple of " + std::to_string(divisor);
      else
        unmet = "symbol " + symbol + " has no value";
      break;
    }
    if (meets)
      return &variant;
  }
  return Error::input("kernel '%s' has no variant for this launch: %s, "
                      "which every variant needs",
                      manifest.kernel.c_str(), unmet.c_str());
}

std::string tile::runtime::describeVariant(const Variant &variant) {
  if (variant.divisible.empty())
    return variant.entry + " (general)";
  std::string conditions;
  for (const auto &[symbol, divisor] : variant.divisible)
    conditions += (conditions.empty() ? "" : ", ") + symbol + " % " +
                  std::to_string(divisor) + " == 0";
  return variant.entry + " (" + conditions + ")";
}

/// One manifest object; `path` prefixes its fields in errors ("[1].").
static Expected<KernelManifest> readManifest(const JsonValue &json,
                                             const std::string &path) {
  if (json.kind != JsonValue::Kind::Object)
    return Error::input(
        "manifest: %smust be a JSON object",
        path.empty() ? "" : (path.substr(0, path.size() - 1) + " ").c_str());
  KernelManifest manifest;
  ObjectReader reader(json, path);
  Error error = Error::success();
  if ((error =
           reader.readInt("version", manifest.version, 1, kManifestVersion)) ||
      (error = reader.readString("kernel", manifest.kernel)) ||
      (error = reader.readString("entry", manifest.entry)) ||
      (error = reader.readString("chip", manifest.chip, false)) ||
      (error = reader.readInt("threads", manifest.threads, 1, 1024)) ||
      (error = reader.readInt("shared_bytes", manifest.sharedBytes, 0,
                              kMostSharedBytes, false)) ||
      (error = reader.readBool("dynamic_shared", manifest.dynamicShared)) ||
      (error = reader.readInt("index_bits", manifest.indexBits, 32, 64,
                              /*required=*/manifest.version >= 4)))
    return error;
  // Each field as the compiler writes it: a launch with any other value
  // would run the PTX on a CTA it was not compiled for.
  if (manifest.threads % kThreadsPerWarp != 0)
    return reader.fail("threads", "must be a multiple of " +
                                      std::to_string(kThreadsPerWarp) +
                                      " (tile compiles whole warps), not " +
                                      std::to_string(manifest.threads));
  // A launch would give such a kernel no shared memory at all: the
  // compiler makes shared memory past 48 KiB dynamic.
  if (!manifest.dynamicShared && manifest.sharedBytes > kMostStaticSharedBytes)
    return reader.fail(
        "dynamic_shared",
        "must be true for shared_bytes of " +
            std::to_string(manifest.sharedBytes) + " (shared memory past " +
            std::to_string(kMostStaticSharedBytes) + " bytes is dynamic)");
  if (manifest.indexBits != 32 && manifest.indexBits != 64)
    return reader.fail("index_bits", "must be 32 or 64");
  // A field that the version has is required: a manifest without it was
  // not written by the compiler of that version.
  if (manifest.version >= 5)
    for (const char *field : {"fp_contract", "fp_div"})
      if (!json.get(field))
        return reader.fail(field, "missing (a version " +
                                      std::to_string(manifest.version) +
                                      " manifest has it)");
  if (Error error = readFloatOptions(reader, manifest.floatOptions))
    return error;
  if (manifest.entry.empty())
    return reader.fail("entry", "must not be empty");

  const JsonValue *symbols =
      reader.member("symbols", JsonValue::Kind::Array, "an array", true, error);
  if (!symbols)
    return error;
  for (const JsonValue &symbol : symbols->array) {
    if (symbol.kind != JsonValue::Kind::String || !isIdentifier(symbol.string))
      return reader.fail("symbols", "each symbol must be an identifier");
    manifest.symbols.push_back(symbol.string);
  }

  const JsonValue *params =
      reader.member("params", JsonValue::Kind::Array, "an array", true, error);
  if (!params)
    return error;
  for (size_t i = 0; i < params->array.size(); ++i) {
    ParamSpec param;
    if (Error error = readParam(params->array[i], i, param))
      return error;
    for (const ParamSpec &other : manifest.params)
      if (other.name == param.name)
        return reader.fail("params",
                           "two parameters named '" + param.name + "'");
    manifest.params.push_back(std::move(param));
  }
  if (Error error = checkSymbols(reader, manifest))
    return error;
  if (Error error = readGrid(reader, manifest))
    return error;
  if (Error error = readVariants(reader, manifest))
    return error;
  return manifest;
}

Expected<KernelManifest>
tile::runtime::parseManifest(std::string_view text, const std::string &kernel) {
  Expected<JsonValue> json = parseJson(text);
  if (!json)
    return json.takeError().prefix("manifest: ");
  if (json->kind != JsonValue::Kind::Array) {
    Expected<KernelManifest> manifest = readManifest(*json, "");
    if (manifest && !kernel.empty() && manifest->kernel != kernel)
      return Error::input(
          "manifest: this is the manifest of kernel '%s', not '%s'",
          manifest->kernel.c_str(), kernel.c_str());
    return manifest;
  }
  // An array of manifests, one per kernel of a file (tile-translate
  // --tile-to-manifest): the one named `kernel`, or the only one.
  std::vector<std::string> names;
  for (const JsonValue &entry : json->array) {
    const JsonValue *name =
        entry.kind == JsonValue::Kind::Object ? entry.get("kernel") : nullptr;
    names.push_back(name && name->kind == JsonValue::Kind::String ? name->string
                                                                  : "?");
  }
  std::string list;
  for (const std::string &name : names)
    list += (list.empty() ? "" : ", ") + name;
  if (kernel.empty() && names.size() != 1)
    return Error::input("manifest: an array of %zu manifests (%s); choose a "
                        "kernel by its name",
                        names.size(), list.c_str());
  for (size_t i = 0; i < names.size(); ++i)
    if (kernel.empty() || names[i] == kernel)
      return readManifest(json->array[i], "[" + std::to_string(i) + "].");
  return Error::input("manifest: no manifest of kernel '%s' among %s",
                      kernel.c_str(), list.empty() ? "none" : list.c_str());
}

Expected<KernelManifest>
tile::runtime::readManifestFile(const std::string &path,
                                const std::string &kernel) {
  Expected<std::string> text = readFile(path);
  if (!text)
    return text.takeError();
  Expected<KernelManifest> manifest = parseManifest(*text, kernel);
  if (!manifest)
    return manifest.takeError().prefix(path + ": ");
  return manifest;
}
