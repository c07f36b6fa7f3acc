//===- Json.cpp - a small JSON reader -------------------------------------===//

#include "tile/Runtime/Json.h"

#include <cerrno>
#include <cstdlib>

using namespace tile::runtime;

const JsonValue *JsonValue::get(std::string_view key) const {
  for (const auto &[name, value] : object)
    if (name == key)
      return &value;
  return nullptr;
}

namespace {
/// A recursive-descent parser over RFC 8259 JSON.
class JsonParser {
public:
  explicit JsonParser(std::string_view text) : text(text) {}

  Expected<JsonValue> parseDocument() {
    JsonValue value;
    if (Error error = parseValue(value, /*depth=*/0))
      return error;
    skipSpace();
    if (pos != text.size())
      return fail("unexpected text after the JSON value");
    return value;
  }

private:
  static constexpr int kMaxDepth = 128;

  Error fail(const std::string &what) const {
    return Error(ErrorKind::Input,
                 "malformed JSON at byte " + std::to_string(pos) + ": " + what);
  }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  bool consume(std::string_view word) {
    if (text.substr(pos, word.size()) != word)
      return false;
    pos += word.size();
    return true;
  }

  Error parseValue(JsonValue &value, int depth) {
    if (depth > kMaxDepth)
      return fail("nested deeper than " + std::to_string(kMaxDepth));
    skipSpace();
    if (pos == text.size())
      return fail("expected a value, found the end of the text");
    char c = text[pos];
    if (c == '{')
      return parseObject(value, depth);
    if (c == '[')
      return parseArray(value, depth);
    if (c == '"') {
      value.kind = JsonValue::Kind::String;
      return parseString(value.string);
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber(value);
    if (consume("true") || consume("false")) {
      value.kind = JsonValue::Kind::Bool;
      value.boolean = c == 't';
      return Error::success();
    }
    if (consume("null"))
      return Error::success();
    return fail(std::string("unexpected character '") + c + "'");
  }

  Error parseObject(JsonValue &value, int depth) {
    value.kind = JsonValue::Kind::Object;
    ++pos; // '{'
    skipSpace();
    if (consume("}"))
      return Error::success();
    while (true) {
      skipSpace();
      if (pos == text.size() || text[pos] != '"')
        return fail("expected a string key");
      size_t keyStart = pos;
      std::string key;
      if (Error error = parseString(key))
        return error;
      if (value.get(key)) {
        pos = keyStart;
        return fail("duplicate key \"" + key + "\"");
      }
      skipSpace();
      if (!consume(":"))
        return fail("expected ':' after a key");
      JsonValue member;
      if (Error error = parseValue(member, depth + 1))
        return error;
      value.object.emplace_back(std::move(key), std::move(member));
      skipSpace();
      if (consume("}"))
        return Error::success();
      if (!consume(","))
        return fail("expected ',' or '}' in an object");
    }
  }

  Error parseArray(JsonValue &value, int depth) {
    value.kind = JsonValue::Kind::Array;
    ++pos; // '['
    skipSpace();
    if (consume("]"))
      return Error::success();
    while (true) {
      JsonValue element;
      if (Error error = parseValue(element, depth + 1))
        return error;
      value.array.push_back(std::move(element));
      skipSpace();
      if (consume("]"))
        return Error::success();
      if (!consume(","))
        return fail("expected ',' or ']' in an array");
    }
  }

  static bool isDigit(char c) { return c >= '0' && c <= '9'; }

  Error parseNumber(JsonValue &value) {
    size_t start = pos;
    if (text[pos] == '-')
      ++pos;
    if (pos == text.size() || !isDigit(text[pos]))
      return fail("expected a digit");
    if (text[pos] == '0' && pos + 1 < text.size() && isDigit(text[pos + 1]))
      return fail("a number cannot start with 0");
    while (pos < text.size() && isDigit(text[pos]))
      ++pos;
    bool integral = true;
    if (pos < text.size() && text[pos] == '.') {
      integral = false;
      ++pos;
      if (pos == text.size() || !isDigit(text[pos]))
        return fail("expected a digit after '.'");
      while (pos < text.size() && isDigit(text[pos]))
        ++pos;
    }
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      integral = false;
      ++pos;
      if (pos < text.size() && (text[pos] == '+' || text[pos] == '-'))
        ++pos;
      if (pos == text.size() || !isDigit(text[pos]))
        return fail("expected a digit in the exponent");
      while (pos < text.size() && isDigit(text[pos]))
        ++pos;
    }
    // strtod/strtoll need a terminated string; the text may not be.
    std::string digits(text.substr(start, pos - start));
    value.kind = JsonValue::Kind::Number;
    value.number = std::strtod(digits.c_str(), nullptr);
    if (integral) {
      errno = 0;
      long long parsed = std::strtoll(digits.c_str(), nullptr, 10);
      value.isInteger = errno != ERANGE;
      value.integer = parsed;
    }
    return Error::success();
  }

  Error parseHex4(uint32_t &code) {
    if (text.size() - pos < 4)
      return fail("expected four hex digits after \\u");
    code = 0;
    for (int i = 0; i < 4; ++i, ++pos) {
      char c = text[pos];
      int digit = isDigit(c)               ? c - '0'
                  : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                  : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                           : -1;
      if (digit < 0)
        return fail("expected a hex digit after \\u");
      code = code * 16 + digit;
    }
    return Error::success();
  }

  static void appendUtf8(std::string &out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xe0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }

  Error parseString(std::string &out) {
    ++pos; // '"'
    while (true) {
      if (pos == text.size())
        return fail("unterminated string");
      char c = text[pos];
      if (c == '"') {
        ++pos;
        return Error::success();
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character in a string");
      ++pos;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos == text.size())
        return fail("unterminated escape");
      char escape = text[pos++];
      switch (escape) {
      case '"':
      case '\\':
      case '/':
        out += escape;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t code = 0;
        if (Error error = parseHex4(code))
          return error;
        if (code >= 0xd800 && code < 0xdc00) {
          uint32_t low;
          if (!consume("\\u"))
            return fail("expected the low half of a surrogate pair");
          if (Error error = parseHex4(low))
            return error;
          if (low < 0xdc00 || low >= 0xe000)
            return fail("invalid low surrogate");
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        } else if (code >= 0xdc00 && code < 0xe000) {
          return fail("unpaired low surrogate");
        }
        appendUtf8(out, code);
        break;
      }
      default:
        --pos;
        return fail(std::string("invalid escape '\\") + escape + "'");
      }
    }
  }

  std::string_view text;
  size_t pos = 0;
};
} // namespace

Expected<JsonValue> tile::runtime::parseJson(std::string_view text) {
  return JsonParser(text).parseDocument();
}
