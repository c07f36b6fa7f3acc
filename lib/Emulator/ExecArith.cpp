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

LogicalResult Interpreter::executeArith(Operation *op) {
  if (isa<arith::ConstantOp>(op)) {
    set(op->getResult(0)) = launch.program.constants.lookup(op);
    return success();
  }
  Value result = op->getResult(0);
  size_t count = slotCount(result.getType());
  ElementType resultType = classify(result.getType());
  ElementType operandType = classify(op->getOperand(0).getType());
  unsigned bits = operandType.bits;
  ElementKind kind = operandType.kind;
  Slots &out = set(result);

  // Binary integer ops on the operands' width; `fn` sees zero-extended bits.
  auto integer = [&](auto fn) {
    const Slots &a = get(op->getOperand(0)), &b = get(op->getOperand(1));
    mapElements(out, count, [&](size_t i) {
      return truncateBits(fn(at(a, i), at(b, i)), bits);
    });
    return success();
  };
  auto signedInteger = [&](auto fn) {
    return integer([&](uint64_t x, uint64_t y) {
      return static_cast<uint64_t>(
          fn(signExtend(x, bits), signExtend(y, bits)));
    });
  };
  // Division: by zero is undefined on the GPU; report it.
  bool dividedByZero = false;
  auto division = [&](auto fn) {
    return integer([&](uint64_t x, uint64_t y) -> uint64_t {
      if (y == 0) {
        dividedByZero = true;
        return 0;
      }
      return fn(x, y);
    });
  };
  auto signedDivision = [&](auto fn) {
    return division([&](uint64_t x, uint64_t y) {
      int64_t sx = signExtend(x, bits), sy = signExtend(y, bits);
      if (sy == -1) // INT_MIN / -1 wraps, as on the GPU
        return uint64_t(0) - static_cast<uint64_t>(fn(sx, int64_t(1)));
      return static_cast<uint64_t>(fn(sx, sy));
    });
  };
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
          .Case([&](arith::AddIOp) {
            return integer([](uint64_t x, uint64_t y) { return x + y; });
          })
          .Case([&](arith::SubIOp) {
            return integer([](uint64_t x, uint64_t y) { return x - y; });
          })
          .Case([&](arith::MulIOp) {
            return integer([](uint64_t x, uint64_t y) { return x * y; });
          })
          .Case([&](arith::AndIOp) {
            return integer([](uint64_t x, uint64_t y) { return x & y; });
          })
          .Case([&](arith::OrIOp) {
            return integer([](uint64_t x, uint64_t y) { return x | y; });
          })
          .Case([&](arith::XOrIOp) {
            return integer([](uint64_t x, uint64_t y) { return x ^ y; });
          })
          .Case([&](arith::ShLIOp) {
            return integer(
                [&](uint64_t x, uint64_t y) { return y >= bits ? 0 : x << y; });
          })
          .Case([&](arith::ShRUIOp) {
            return integer(
                [&](uint64_t x, uint64_t y) { return y >= bits ? 0 : x >> y; });
          })
          .Case([&](arith::ShRSIOp) {
            return integer([&](uint64_t x, uint64_t y) {
              return static_cast<uint64_t>(signExtend(x, bits) >>
                                           std::min<uint64_t>(y, 63));
            });
          })
          .Case([&](arith::MaxSIOp) {
            return signedInteger(
                [](int64_t x, int64_t y) { return std::max(x, y); });
          })
          .Case([&](arith::MinSIOp) {
            return signedInteger(
                [](int64_t x, int64_t y) { return std::min(x, y); });
          })
          .Case([&](arith::MaxUIOp) {
            return integer(
                [](uint64_t x, uint64_t y) { return std::max(x, y); });
          })
          .Case([&](arith::MinUIOp) {
            return integer(
                [](uint64_t x, uint64_t y) { return std::min(x, y); });
          })
          .Case([&](arith::DivUIOp) {
            return division([](uint64_t x, uint64_t y) { return x / y; });
          })
          .Case([&](arith::RemUIOp) {
            return division([](uint64_t x, uint64_t y) { return x % y; });
          })
          .Case([&](arith::CeilDivUIOp) {
            return division(
                [](uint64_t x, uint64_t y) { return x / y + (x % y != 0); });
          })
          .Case([&](arith::DivSIOp) {
            return signedDivision([](int64_t x, int64_t y) { return x / y; });
          })
          .Case([&](arith::RemSIOp) {
            return signedDivision([](int64_t x, int64_t y) { return x % y; });
          })
          .Case([&](arith::FloorDivSIOp) {
            return signedDivision([](int64_t x, int64_t y) {
              int64_t q = x / y;
              return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
            });
          })
          .Case([&](arith::CeilDivSIOp) {
            return signedDivision([](int64_t x, int64_t y) {
              int64_t q = x / y;
              return (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
            });
          })
          .Case([&](arith::AddFOp) {
            return floating([](auto x, auto y) { return x + y; });
          })
          .Case([&](arith::SubFOp) {
            return floating([](auto x, auto y) { return x - y; });
          })
          .Case([&](arith::MulFOp) {
            return floating([](auto x, auto y) { return x * y; });
          })
          .Case([&](arith::DivFOp) {
            return floating([](auto x, auto y) { return x / y; });
          })
          .Case([&](arith::RemFOp) {
            return floating([](auto x, auto y) { return std::fmod(x, y); });
          })
          .Case([&](arith::MaximumFOp) {
            return floating([](auto x, auto y) { return maximum(x, y); });
          })
          .Case([&](arith::MinimumFOp) {
            return floating([](auto x, auto y) { return minimum(x, y); });
          })
          .Case([&](arith::MaxNumFOp) {
            return floating([](auto x, auto y) { return std::fmax(x, y); });
          })
          .Case([&](arith::MinNumFOp) {
            return floating([](auto x, auto y) { return std::fmin(x, y); });
          })
          .Case([&](arith::NegFOp) {
            return convert([&](uint64_t x) {
              return applyFloat(kind, x, [](auto v) { return -v; });
            });
          })
          .Case([&](arith::CmpIOp compare) {
            const Slots &a = get(compare.getLhs()), &b = get(compare.getRhs());
            mapElements(out, count, [&](size_t i) -> uint64_t {
              return compareIntegers(compare.getPredicate(), a[i], b[i], bits);
            });
            return success();
          })
          .Case([&](arith::CmpFOp compare) {
            const Slots &a = get(compare.getLhs()), &b = get(compare.getRhs());
            mapElements(out, count, [&](size_t i) -> uint64_t {
              return compareFloats(compare.getPredicate(),
                                   decodeDouble(kind, a[i]),
                                   decodeDouble(kind, b[i]));
            });
            return success();
          })
          .Case([&](arith::SelectOp select) {
            const Slots &condition = get(select.getCondition());
            const Slots &yes = get(select.getTrueValue());
            const Slots &no = get(select.getFalseValue());
            mapElements(out, count, [&](size_t i) {
              return at(condition, i) ? yes[i] : no[i];
            });
            return success();
          })
          .Case<arith::ExtFOp, arith::TruncFOp>([&](Operation *) {
            return convert([&](uint64_t x) {
              return encodeFloat(resultType.kind, decodeDouble(kind, x));
            });
          })
          .Case([&](arith::SIToFPOp) {
            return convert([&](uint64_t x) {
              return encodeFloat(resultType.kind,
                                 static_cast<double>(signExtend(x, bits)));
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
          .Case<arith::ExtSIOp, arith::IndexCastOp>([&](Operation *) {
            return convert([&](uint64_t x) {
              return truncateBits(static_cast<uint64_t>(signExtend(x, bits)),
                                  resultType.bits);
            });
          })
          .Case<arith::ExtUIOp, arith::TruncIOp, arith::IndexCastUIOp,
                arith::BitcastOp>([&](Operation *) {
            return convert(
                [&](uint64_t x) { return truncateBits(x, resultType.bits); });
          })
          .Default([&](Operation *) { return unsupported(op); });
  if (failed(status))
    return failure();
  if (dividedByZero)
    return fail(op, "integer division by zero");
  return success();
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
      .Case([&](math::ExpOp) {
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
