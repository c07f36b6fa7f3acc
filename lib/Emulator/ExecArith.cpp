//===- ExecArith.cpp - arith and math, on scalars and vectors -------------===//
//
// Every op here is elementwise: it maps the slots of its operands to the
// slots of its result, one element at a time. Floats narrower than f64
// compute in float and round once to their type, as the GPU does.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tile::emulator;

namespace {
/// The result slots of an elementwise op over `count` elements, where a
/// scalar operand stands for every element.
template <typename Fn> void mapElements(Slots &result, size_t count, Fn fn) {
  result.resize(count);
  for (size_t i = 0; i < count; ++i)
    result[i] = fn(i);
}

inline uint64_t at(const Slots &slots, size_t i) {
  return slots.size() == 1 ? slots[0] : slots[i];
}

/// `fn` on two float slots of `kind`, in float (double for f64).
template <typename Fn>
uint64_t applyFloat(ElementKind kind, uint64_t a, uint64_t b, Fn fn) {
  if (kind == ElementKind::F64)
    return bitCast<uint64_t>(
        static_cast<double>(fn(bitCast<double>(a), bitCast<double>(b))));
  return encodeFloat(kind, fn(decodeFloat(kind, a), decodeFloat(kind, b)));
}

template <typename Fn>
uint64_t applyFloat(ElementKind kind, uint64_t a, Fn fn) {
  return applyFloat(kind, a, a, [&](auto x, auto) { return fn(x); });
}

/// IEEE 754-2019 maximum/minimum: NaN wins, and -0 < +0.
template <typename T> T maximum(T x, T y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<T>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
template <typename T> T minimum(T x, T y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<T>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

bool compareFloats(arith::CmpFPredicate predicate, double x, double y) {
  using P = arith::CmpFPredicate;
  bool unordered = std::isnan(x) || std::isnan(y);
  switch (predicate) {
  case P::AlwaysFalse:
    return false;
  case P::AlwaysTrue:
    return true;
  case P::OEQ:
    return !unordered && x == y;
  case P::OGT:
    return !unordered && x > y;
  case P::OGE:
    return !unordered && x >= y;
  case P::OLT:
    return !unordered && x < y;
  case P::OLE:
    return !unordered && x <= y;
  case P::ONE:
    return !unordered && x != y;
  case P::ORD:
    return !unordered;
  case P::UEQ:
    return unordered || x == y;
  case P::UGT:
    return unordered || x > y;
  case P::UGE:
    return unordered || x >= y;
  case P::ULT:
    return unordered || x < y;
  case P::ULE:
    return unordered || x <= y;
  case P::UNE:
    return unordered || x != y;
  case P::UNO:
    return unordered;
  }
  return false;
}

bool compareIntegers(arith::CmpIPredicate predicate, uint64_t x, uint64_t y,
                     unsigned bits) {
  using P = arith::CmpIPredicate;
  int64_t sx = signExtend(x, bits), sy = signExtend(y, bits);
  switch (predicate) {
  case P::eq:
    return x == y;
  case P::ne:
    return x != y;
  case P::slt:
    return sx < sy;
  case P::sle:
    return sx <= sy;
  case P::sgt:
    return sx > sy;
  case P::sge:
    return sx >= sy;
  case P::ult:
    return x < y;
  case P::ule:
    return x <= y;
  case P::ugt:
    return x > y;
  case P::uge:
    return x >= y;
  }
  return false;
}

/// fptosi/fptoui as the GPU's cvt.rzi: toward zero, saturating, NaN to 0.
uint64_t floatToInteger(double value, unsigned bits, bool isSigned) {
  if (std::isnan(value))
    return 0;
  value = std::trunc(value);
  double low = isSigned ? -std::ldexp(1.0, bits - 1) : 0;
  double high = isSigned ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);
  if (value <= low)
    return isSigned ? truncateBits(uint64_t(1) << (bits - 1), bits) : 0;
  if (value >= high)
    return truncateBits(isSigned ? (uint64_t(1) << (bits - 1)) - 1 : ~0ull,
                        bits);
  return truncateBits(isSigned
                          ? static_cast<uint64_t>(static_cast<int64_t>(value))
                          : static_cast<uint64_t>(value),
                      bits);
}
} // namespace

LogicalResult Interpreter::executeDecoded(const DecodedOp &op) {
  std::vector<Slots> &values = thread->values;
  Slots &out = values[op.result];
  const Slots &a = values[op.operands[0]], &b = values[op.operands[1]];
  unsigned bits = op.bits;
  ElementKind kind = op.kind;
  // Binary integer ops on the operands' width; `fn` sees zero-extended bits.
  auto integer = [&](auto fn) {
    mapElements(out, op.count, [&](size_t i) {
      return truncateBits(fn(at(a, i), at(b, i)), bits);
    });
  };
  auto signedInteger = [&](auto fn) {
    integer([&](uint64_t x, uint64_t y) {
      return static_cast<uint64_t>(
          fn(signExtend(x, bits), signExtend(y, bits)));
    });
  };
  auto floating = [&](auto fn) {
    mapElements(out, op.count, [&](size_t i) {
      return applyFloat(kind, at(a, i), at(b, i), fn);
    });
  };
  // Conversions, one element at a time.
  auto convert = [&](auto fn) {
    mapElements(out, op.count, [&](size_t i) { return fn(a[i]); });
  };
  // Division: by zero is undefined on the GPU; report it.
  bool dividedByZero = false;
  auto division = [&](auto fn) {
    integer([&](uint64_t x, uint64_t y) -> uint64_t {
      if (y == 0) {
        dividedByZero = true;
        return 0;
      }
      return fn(x, y);
    });
  };
  auto signedDivision = [&](auto fn) {
    division([&](uint64_t x, uint64_t y) {
      int64_t sx = signExtend(x, bits), sy = signExtend(y, bits);
      if (sy == -1) // INT_MIN / -1 wraps, as on the GPU
        return uint64_t(0) - static_cast<uint64_t>(fn(sx, int64_t(1)));
      return static_cast<uint64_t>(fn(sx, sy));
    });
  };

  switch (op.opcode) {
  case Opcode::Generic:
    return execute(op.op);
  case Opcode::Copy:
    out = *op.constant;
    break;
  case Opcode::AddI:
    integer([](uint64_t x, uint64_t y) { return x + y; });
    break;
  case Opcode::SubI:
    integer([](uint64_t x, uint64_t y) { return x - y; });
    break;
  case Opcode::MulI:
    integer([](uint64_t x, uint64_t y) { return x * y; });
    break;
  case Opcode::AndI:
    integer([](uint64_t x, uint64_t y) { return x & y; });
    break;
  case Opcode::OrI:
    integer([](uint64_t x, uint64_t y) { return x | y; });
    break;
  case Opcode::XOrI:
    integer([](uint64_t x, uint64_t y) { return x ^ y; });
    break;
  case Opcode::ShLI:
    integer([&](uint64_t x, uint64_t y) { return y >= bits ? 0 : x << y; });
    break;
  case Opcode::ShRUI:
    integer([&](uint64_t x, uint64_t y) { return y >= bits ? 0 : x >> y; });
    break;
  case Opcode::ShRSI:
    integer([&](uint64_t x, uint64_t y) {
      return static_cast<uint64_t>(signExtend(x, bits) >>
                                   std::min<uint64_t>(y, 63));
    });
    break;
  case Opcode::MaxSI:
    signedInteger([](int64_t x, int64_t y) { return std::max(x, y); });
    break;
  case Opcode::MinSI:
    signedInteger([](int64_t x, int64_t y) { return std::min(x, y); });
    break;
  case Opcode::MaxUI:
    integer([](uint64_t x, uint64_t y) { return std::max(x, y); });
    break;
  case Opcode::MinUI:
    integer([](uint64_t x, uint64_t y) { return std::min(x, y); });
    break;
  case Opcode::AddF:
    floating([](auto x, auto y) { return x + y; });
    break;
  case Opcode::SubF:
    floating([](auto x, auto y) { return x - y; });
    break;
  case Opcode::MulF:
    floating([](auto x, auto y) { return x * y; });
    break;
  case Opcode::MaxNumF:
    floating([](auto x, auto y) { return std::fmax(x, y); });
    break;
  case Opcode::MinNumF:
    floating([](auto x, auto y) { return std::fmin(x, y); });
    break;
  case Opcode::MaximumF:
    floating([](auto x, auto y) { return maximum(x, y); });
    break;
  case Opcode::MinimumF:
    floating([](auto x, auto y) { return minimum(x, y); });
    break;
  case Opcode::FusedMultiplyAdd: {
    // One fma, as the GPU computes an add of a product both marked
    // contract: a subtrahend negated.
    const Slots &addend = values[op.operands[2]];
    mapElements(out, op.count, [&](size_t i) {
      uint64_t x = at(a, i), c = at(addend, i);
      if (op.negateProduct)
        x = negateFloat(kind, x);
      if (op.negateAddend)
        c = negateFloat(kind, c);
      return fusedMultiplyAdd(kind, x, at(b, i), c);
    });
    break;
  }
  case Opcode::CmpI: {
    auto predicate = static_cast<arith::CmpIPredicate>(op.predicate);
    mapElements(out, op.count, [&](size_t i) -> uint64_t {
      return compareIntegers(predicate, a[i], b[i], bits);
    });
    break;
  }
  case Opcode::CmpF: {
    auto predicate = static_cast<arith::CmpFPredicate>(op.predicate);
    mapElements(out, op.count, [&](size_t i) -> uint64_t {
      return compareFloats(predicate, decodeDouble(kind, a[i]),
                           decodeDouble(kind, b[i]));
    });
    break;
  }
  case Opcode::Select: {
    const Slots &no = values[op.operands[2]];
    mapElements(out, op.count,
                [&](size_t i) { return at(a, i) ? b[i] : no[i]; });
    break;
  }
  case Opcode::SignExtend:
    convert([&](uint64_t x) {
      return truncateBits(static_cast<uint64_t>(signExtend(x, bits)),
                          op.resultBits);
    });
    break;
  case Opcode::ZeroExtend:
    convert([&](uint64_t x) { return truncateBits(x, op.resultBits); });
    break;
  case Opcode::FloatConvert:
    convert([&](uint64_t x) {
      return encodeFloat(op.resultKind, decodeDouble(kind, x));
    });
    break;
  case Opcode::SignedToFloat:
    convert([&](uint64_t x) {
      return encodeFloat(op.resultKind,
                         static_cast<double>(signExtend(x, bits)));
    });
    break;
  case Opcode::Extract:
    out.assign(a.begin() + op.first, a.begin() + op.first + op.span);
    return success();
  case Opcode::Insert: {
    // operands: the value, then the destination.
    if (op.reuseDestination)
      out = std::move(values[op.operands[1]]);
    else
      out = b;
    std::copy(a.begin(), a.end(), out.begin() + op.first);
    return success();
  }
  case Opcode::Splat:
    out.assign(op.count, a[0]);
    return success();
  case Opcode::DivUI:
    division([](uint64_t x, uint64_t y) { return x / y; });
    break;
  case Opcode::RemUI:
    division([](uint64_t x, uint64_t y) { return x % y; });
    break;
  case Opcode::CeilDivUI:
    division([](uint64_t x, uint64_t y) { return x / y + (x % y != 0); });
    break;
  case Opcode::DivSI:
    signedDivision([](int64_t x, int64_t y) { return x / y; });
    break;
  case Opcode::RemSI:
    signedDivision([](int64_t x, int64_t y) { return x % y; });
    break;
  case Opcode::FloorDivSI:
    signedDivision([](int64_t x, int64_t y) {
      int64_t q = x / y;
      return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
    });
    break;
  case Opcode::CeilDivSI:
    signedDivision([](int64_t x, int64_t y) {
      int64_t q = x / y;
      return (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
    });
    break;
  case Opcode::GetElementPtr: {
    // Wrapping, as the GPU's address arithmetic: a wild index is caught by
    // the bounds check of the access, not undefined here.
    int64_t index = op.constantIndex ? op.first : signExtend(b[0], bits);
    Address address = Address::fromSlots(a);
    address.offset = static_cast<int64_t>(
        static_cast<uint64_t>(address.offset) +
        static_cast<uint64_t>(index) * static_cast<uint64_t>(op.span));
    address.toSlots(out);
    return success();
  }
  case Opcode::Load:
    return loadSlots(op.op, Address::fromSlots(a),
                     {op.resultKind, op.resultBits}, op.count, out,
                     op.alignment);
  }
  if (dividedByZero)
    return fail(op.op, "integer division by zero");
  return op.checkIndex ? checkIndexWidth(op.op) : success();
}

/// The arith ops not decoded (Decode.cpp): float division and remainder,
/// negation and the conversions between floats and unsigned integers.
LogicalResult Interpreter::executeArith(Operation *op) {
  Value result = op->getResult(0);
  size_t count = slotCount(result.getType());
  ElementType resultType = classify(result.getType());
  ElementKind kind = classify(op->getOperand(0).getType()).kind;
  Slots &out = set(result);

  auto floating = [&](auto fn) {
    const Slots &a = get(op->getOperand(0)), &b = get(op->getOperand(1));
    mapElements(out, count, [&](size_t i) {
      return applyFloat(kind, at(a, i), at(b, i), fn);
    });
    return success();
  };
  // Conversions, one element at a time.
  auto convert = [&](auto fn) {
    const Slots &a = get(op->getOperand(0));
    mapElements(out, count, [&](size_t i) { return fn(a[i]); });
    return success();
  };

  LogicalResult status =
      TypeSwitch<Operation *, LogicalResult>(op)
          .Case([&](arith::DivFOp division) {
            // --fp-div=full: tile-fast-math makes an f32 division marked
            // afn div.full.f32.
            if (kind == ElementKind::F32 &&
                bitEnumContainsAll(division.getFastmath(),
                                   arith::FastMathFlags::afn))
              return floating([](auto x, auto y) {
                return divideFull(static_cast<float>(x), static_cast<float>(y));
              });
            return floating([](auto x, auto y) { return x / y; });
          })
          .Case([&](arith::RemFOp) {
            return floating([](auto x, auto y) { return std::fmod(x, y); });
          })
          .Case([&](arith::NegFOp) {
            return convert([&](uint64_t x) {
              return applyFloat(kind, x, [](auto v) { return -v; });
            });
          })
          .Case([&](arith::UIToFPOp) {
            return convert([&](uint64_t x) {
              return encodeFloat(resultType.kind, static_cast<double>(x));
            });
          })
          .Case([&](arith::FPToSIOp) {
            return convert([&](uint64_t x) {
              return floatToInteger(decodeDouble(kind, x), resultType.bits,
                                    /*isSigned=*/true);
            });
          })
          .Case([&](arith::FPToUIOp) {
            return convert([&](uint64_t x) {
              return floatToInteger(decodeDouble(kind, x), resultType.bits,
                                    /*isSigned=*/false);
            });
          })
          .Default([&](Operation *) { return unsupported(op); });
  return status;
}

LogicalResult Interpreter::executeMath(Operation *op) {
  Value result = op->getResult(0);
  size_t count = slotCount(result.getType());
  ElementType type = classify(result.getType());
  Slots &out = set(result);
  auto unary = [&](auto fn) {
    const Slots &a = get(op->getOperand(0));
    mapElements(out, count,
                [&](size_t i) { return applyFloat(type.kind, a[i], fn); });
    return success();
  };
  auto binary = [&](auto fn) {
    const Slots &a = get(op->getOperand(0)), &b = get(op->getOperand(1));
    mapElements(out, count, [&](size_t i) {
      return applyFloat(type.kind, a[i], b[i], fn);
    });
    return success();
  };
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](math::ExpOp exp) {
        // fastmath afn (the front end's exp): __nv_fast_expf, through f32.
        if (type.kind != ElementKind::F64 &&
            bitEnumContainsAll(exp.getFastmath(), arith::FastMathFlags::afn))
          return unary([](auto x) { return fastExp(static_cast<float>(x)); });
        return unary([](auto x) { return std::exp(x); });
      })
      .Case([&](math::Exp2Op) {
        return unary([](auto x) { return std::exp2(x); });
      })
      .Case([&](math::ExpM1Op) {
        return unary([](auto x) { return std::expm1(x); });
      })
      .Case([&](math::LogOp) {
        return unary([](auto x) { return std::log(x); });
      })
      .Case([&](math::Log2Op) {
        return unary([](auto x) { return std::log2(x); });
      })
      .Case([&](math::Log10Op) {
        return unary([](auto x) { return std::log10(x); });
      })
      .Case([&](math::Log1pOp) {
        return unary([](auto x) { return std::log1p(x); });
      })
      .Case([&](math::SqrtOp) {
        return unary([](auto x) { return std::sqrt(x); });
      })
      .Case([&](math::RsqrtOp) {
        return unary([](auto x) { return decltype(x)(1) / std::sqrt(x); });
      })
      .Case([&](math::AbsFOp) {
        return unary([](auto x) { return std::fabs(x); });
      })
      .Case([&](math::TanhOp) {
        return unary([](auto x) { return std::tanh(x); });
      })
      .Case([&](math::SinOp) {
        return unary([](auto x) { return std::sin(x); });
      })
      .Case([&](math::CosOp) {
        return unary([](auto x) { return std::cos(x); });
      })
      .Case([&](math::TanOp) {
        return unary([](auto x) { return std::tan(x); });
      })
      .Case([&](math::AtanOp) {
        return unary([](auto x) { return std::atan(x); });
      })
      .Case([&](math::ErfOp) {
        return unary([](auto x) { return std::erf(x); });
      })
      .Case([&](math::FloorOp) {
        return unary([](auto x) { return std::floor(x); });
      })
      .Case([&](math::CeilOp) {
        return unary([](auto x) { return std::ceil(x); });
      })
      .Case([&](math::TruncOp) {
        return unary([](auto x) { return std::trunc(x); });
      })
      .Case([&](math::RoundOp) {
        return unary([](auto x) { return std::round(x); });
      })
      .Case([&](math::RoundEvenOp) {
        return unary([](auto x) { return std::nearbyint(x); });
      })
      .Case([&](math::PowFOp) {
        return binary([](auto x, auto y) { return std::pow(x, y); });
      })
      .Case([&](math::Atan2Op) {
        return binary([](auto x, auto y) { return std::atan2(x, y); });
      })
      .Case([&](math::CopySignOp) {
        return binary([](auto x, auto y) { return std::copysign(x, y); });
      })
      .Case([&](math::FmaOp fma) {
        const Slots &a = get(fma.getA()), &b = get(fma.getB()),
                    &c = get(fma.getC());
        mapElements(out, count, [&](size_t i) {
          if (type.kind == ElementKind::F64)
            return bitCast<uint64_t>(std::fma(bitCast<double>(a[i]),
                                              bitCast<double>(b[i]),
                                              bitCast<double>(c[i])));
          return encodeFloat(type.kind, std::fma(decodeFloat(type.kind, a[i]),
                                                 decodeFloat(type.kind, b[i]),
                                                 decodeFloat(type.kind, c[i])));
        });
        return success();
      })
      .Case([&](math::AbsIOp) {
        const Slots &a = get(op->getOperand(0));
        mapElements(out, count, [&](size_t i) {
          int64_t v = signExtend(a[i], type.bits);
          return truncateBits(static_cast<uint64_t>(v < 0 ? -v : v), type.bits);
        });
        return success();
      })
      .Default([&](Operation *) { return unsupported(op); });
}
