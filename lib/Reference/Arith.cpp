//===- Arith.cpp - the reference's elementwise arithmetic -----------------===//
//
// One element of an arith/math op from its operands' elements, the way arith
// and math define it, in double for floats and rounded once to the result's
// type (Val::setFloat), and which ops round correctly (Value.h's
// ResultAccuracy): what the checker's tolerance follows.
//
//===----------------------------------------------------------------------===//

#include "Value.h"

#include "tile/Runtime/Half.h"
#include "tile/Runtime/Manifest.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::reference;
namespace rt = ::tile::runtime;

//===----------------------------------------------------------------------===//
// Types and values
//===----------------------------------------------------------------------===//

static Type elementTypeOf(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return type;
}

unsigned reference::intWidth(Type element) {
  if (auto integer = dyn_cast<IntegerType>(elementTypeOf(element)))
    return integer.getWidth();
  return 64; // index
}

uint64_t reference::zeroExtend(int64_t value, unsigned width) {
  if (width >= 64)
    return static_cast<uint64_t>(value);
  return static_cast<uint64_t>(value) & ((uint64_t(1) << width) - 1);
}

int64_t reference::wrap(uint64_t value, unsigned width) {
  if (width >= 64)
    return static_cast<int64_t>(value);
  uint64_t low = value & ((uint64_t(1) << width) - 1);
  uint64_t signBit = uint64_t(1) << (width - 1);
  return static_cast<int64_t>((low ^ signBit) - signBit);
}

double reference::roundToType(double value, Type type) {
  if (type.isF32())
    return static_cast<float>(value);
  if (type.isF16())
    return rt::fromHalfBits(rt::toHalfBits(value));
  if (type.isBF16())
    return rt::fromBFloat16Bits(rt::toBFloat16Bits(value));
  return value;
}

/// The absolute tolerance of `accuracy`'s type, in its units: what an
/// element near 0 may be off by.
static double floorUnits(Accuracy accuracy) {
  rt::Tolerance tolerance =
      rt::defaultTolerance(accuracy == Accuracy::F16    ? rt::DType::F16
                           : accuracy == Accuracy::BF16 ? rt::DType::BF16
                                                        : rt::DType::F32);
  return tolerance.absolute / tolerance.relative;
}

/// The smallest normal magnitude of `accuracy`'s type: below it an error
/// is no longer relative.
static double smallestNormal(Accuracy accuracy) {
  return accuracy == Accuracy::F16 ? 0x1p-14 : 0x1p-126;
}

/// One ulp of `accuracy`'s type, relative, in its units.
static double roundingUnits(Accuracy accuracy) {
  double ulp = accuracy == Accuracy::F16    ? 0x1p-10
               : accuracy == Accuracy::BF16 ? 0x1p-7
                                            : 0x1p-23;
  return ulp / rt::relativeTolerance(accuracy);
}

bool reference::mayOverflow(double magnitude, Type type) {
  double largest = type.isF16()    ? 65504.0
                   : type.isBF16() ? 0x1.fep127
                                   : 0x1.fffffep127;
  return magnitude > largest;
}

double reference::errorBound(const Val &val, size_t i, Accuracy in) {
  double error = val.errorAt(i);
  if (isUncheckedError(error))
    return error;
  if (error == 0 || !std::isfinite(val.floats[i]))
    return 0; // exact, or compared exactly
  return error * rt::relativeTolerance(val.accuracy) /
         rt::relativeTolerance(in);
}

double reference::ownError(double result, Accuracy accuracy, bool inexact) {
  double magnitude = std::fabs(result);
  double own = (inexact ? 1 : roundingUnits(accuracy)) * magnitude;
  if (magnitude < smallestNormal(accuracy))
    own = std::max(own, floorUnits(accuracy));
  return own;
}

unsigned reference::amplificationOf(double error, double value,
                                    Accuracy accuracy) {
  constexpr unsigned unbounded = rt::ElementMark::kUnboundedAmplification;
  if (!std::isfinite(value) || std::isnan(error))
    return std::isnan(error) ? unbounded : 0;
  // The absolute floor covers what is left beyond it.
  error -= floorUnits(accuracy);
  if (error <= 0)
    return 0;
  double magnitude = std::fabs(value);
  if (!std::isfinite(error) || magnitude == 0)
    return unbounded;
  // Within 1/16 of a power of two counts as it, so that a chain of ops does
  // not double the bound at each step for a rounding's worth.
  double ratio = error / magnitude / (1 + 1.0 / 16);
  if (ratio <= 1)
    return 0;
  double bits = std::ceil(std::log2(ratio));
  return bits >= unbounded ? unbounded : static_cast<unsigned>(bits);
}

Accuracy reference::accuracyOfType(Type type) {
  if (type.isF16())
    return Accuracy::F16;
  if (type.isBF16())
    return Accuracy::BF16;
  return Accuracy::F32;
}

Val Val::zeros(Type type, int64_t threads) {
  Val val;
  size_t count = 1;
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    val.isTile = true;
    val.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    count = tensor.getNumElements();
  } else if (threads > 0) {
    val.perThread = true;
    count = threads;
  }
  val.elementType = elementTypeOf(type);
  val.isFloat = isa<FloatType>(val.elementType);
  if (val.isFloat)
    val.floats.assign(count, 0.0);
  else
    val.ints.assign(count, 0);
  return val;
}

Val reference::mergeByThread(const Val &earlier, const Val &now,
                             const ThreadMask &take, int64_t threads) {
  bool all = llvm::all_of(take, [](uint8_t t) { return t; });
  if (all)
    return now;
  if (llvm::none_of(take, [](uint8_t t) { return t; }))
    return earlier;
  Val merged = now.isTile ? now : Val::zeros(now.elementType, threads);
  for (size_t i = 0, e = merged.size(); i < e; ++i) {
    const Val &from = take[i % threads] ? now : earlier;
    merged.copyElement(i, from, from.indexFor(i, now.isTile, threads));
  }
  merged.accuracy = rt::loosest(earlier.accuracy, now.accuracy);
  merged.thresholded = earlier.thresholded || now.thresholded;
  merged.product = earlier.product || now.product;
  return merged;
}

//===----------------------------------------------------------------------===//
// The ops' element functions
//===----------------------------------------------------------------------===//

using FloatUnaryFn = double (*)(double);
using FloatBinaryFn = double (*)(double, double);

template <typename Fn> struct NamedFn {
  const char *name;
  Fn fn;
};

/// The entry of `table` named `name`, or null.
template <typename Fn, size_t N>
static Fn lookup(const NamedFn<Fn> (&table)[N], StringRef name) {
  for (const NamedFn<Fn> &entry : table)
    if (name == entry.name)
      return entry.fn;
  return nullptr;
}

static FloatUnaryFn getFloatUnary(StringRef name) {
  static const NamedFn<FloatUnaryFn> table[] = {
      {"arith.negf", [](double x) { return -x; }},
      {"math.absf", [](double x) { return std::fabs(x); }},
      {"math.exp", [](double x) { return std::exp(x); }},
      {"math.exp2", [](double x) { return std::exp2(x); }},
      {"math.expm1", [](double x) { return std::expm1(x); }},
      {"math.log", [](double x) { return std::log(x); }},
      {"math.log2", [](double x) { return std::log2(x); }},
      {"math.log10", [](double x) { return std::log10(x); }},
      {"math.log1p", [](double x) { return std::log1p(x); }},
      {"math.sqrt", [](double x) { return std::sqrt(x); }},
      {"math.rsqrt", [](double x) { return 1.0 / std::sqrt(x); }},
      {"math.cbrt", [](double x) { return std::cbrt(x); }},
      {"math.tanh", [](double x) { return std::tanh(x); }},
      {"math.sinh", [](double x) { return std::sinh(x); }},
      {"math.cosh", [](double x) { return std::cosh(x); }},
      {"math.sin", [](double x) { return std::sin(x); }},
      {"math.cos", [](double x) { return std::cos(x); }},
      {"math.tan", [](double x) { return std::tan(x); }},
      {"math.asin", [](double x) { return std::asin(x); }},
      {"math.acos", [](double x) { return std::acos(x); }},
      {"math.atan", [](double x) { return std::atan(x); }},
      {"math.asinh", [](double x) { return std::asinh(x); }},
      {"math.acosh", [](double x) { return std::acosh(x); }},
      {"math.atanh", [](double x) { return std::atanh(x); }},
      {"math.erf", [](double x) { return std::erf(x); }},
      {"math.erfc", [](double x) { return std::erfc(x); }},
      {"math.floor", [](double x) { return std::floor(x); }},
      {"math.ceil", [](double x) { return std::ceil(x); }},
      {"math.round", [](double x) { return std::round(x); }},
      {"math.roundeven", [](double x) { return std::nearbyint(x); }},
      {"math.trunc", [](double x) { return std::trunc(x); }},
  };
  return lookup(table, name);
}

/// arith.maximumf/minimumf: NaN propagates and -0 orders below +0
/// (maxnumf/minnumf, fmax/fmin, return the other operand of a NaN).
double reference::maximumf(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  return a == b ? (std::signbit(a) ? b : a) : std::max(a, b);
}
double reference::minimumf(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  return a == b ? (std::signbit(a) ? a : b) : std::min(a, b);
}

static FloatBinaryFn getFloatBinary(StringRef name) {
  static const NamedFn<FloatBinaryFn> table[] = {
      {"arith.addf", [](double a, double b) { return a + b; }},
      {"arith.subf", [](double a, double b) { return a - b; }},
      {"arith.mulf", [](double a, double b) { return a * b; }},
      {"arith.divf", [](double a, double b) { return a / b; }},
      {"arith.remf", [](double a, double b) { return std::fmod(a, b); }},
      {"arith.maximumf", maximumf},
      {"arith.minimumf", minimumf},
      {"arith.maxnumf", [](double a, double b) { return std::fmax(a, b); }},
      {"arith.minnumf", [](double a, double b) { return std::fmin(a, b); }},
      {"math.powf", [](double a, double b) { return std::pow(a, b); }},
      {"math.atan2", [](double a, double b) { return std::atan2(a, b); }},
      {"math.copysign", [](double a, double b) { return std::copysign(a, b); }},
  };
  return lookup(table, name);
}

namespace {
enum class IntBinary {
  Add,
  Sub,
  Mul,
  DivS,
  DivU,
  RemS,
  RemU,
  CeilDivS,
  FloorDivS,
  MaxS,
  MinS,
  MaxU,
  MinU,
  And,
  Or,
  Xor,
  Shl,
  ShrS,
  ShrU,
  None
};
} // namespace

static IntBinary getIntBinary(StringRef name) {
  return llvm::StringSwitch<IntBinary>(name)
      .Case("arith.addi", IntBinary::Add)
      .Case("arith.subi", IntBinary::Sub)
      .Case("arith.muli", IntBinary::Mul)
      .Case("arith.divsi", IntBinary::DivS)
      .Case("arith.divui", IntBinary::DivU)
      .Case("arith.remsi", IntBinary::RemS)
      .Case("arith.remui", IntBinary::RemU)
      .Case("arith.ceildivsi", IntBinary::CeilDivS)
      .Case("arith.floordivsi", IntBinary::FloorDivS)
      .Case("arith.maxsi", IntBinary::MaxS)
      .Case("arith.minsi", IntBinary::MinS)
      .Case("arith.maxui", IntBinary::MaxU)
      .Case("arith.minui", IntBinary::MinU)
      .Case("arith.andi", IntBinary::And)
      .Case("arith.ori", IntBinary::Or)
      .Case("arith.xori", IntBinary::Xor)
      .Case("arith.shli", IntBinary::Shl)
      .Case("arith.shrsi", IntBinary::ShrS)
      .Case("arith.shrui", IntBinary::ShrU)
      .Default(IntBinary::None);
}

/// `a op b` on `width`-bit integers, or none where arith leaves the result
/// undefined (division by zero, signed overflow of a division, a shift by
/// the width or more).
static std::optional<int64_t> applyIntBinary(IntBinary op, int64_t a, int64_t b,
                                             unsigned width) {
  uint64_t ua = zeroExtend(a, width), ub = zeroExtend(b, width);
  int64_t minSigned = wrap(uint64_t(1) << (width - 1), width);
  bool signedOverflow = a == minSigned && b == -1;
  switch (op) {
  case IntBinary::Add:
    return wrap(ua + ub, width);
  case IntBinary::Sub:
    return wrap(ua - ub, width);
  case IntBinary::Mul:
    return wrap(ua * ub, width);
  case IntBinary::DivS: // truncates toward zero, as C++ does
    if (b == 0 || signedOverflow)
      return std::nullopt;
    return wrap(static_cast<uint64_t>(a / b), width);
  case IntBinary::CeilDivS:
  case IntBinary::FloorDivS: {
    if (b == 0 || signedOverflow)
      return std::nullopt;
    rt::Expected<int64_t> result = rt::applyIntOp(
        op == IntBinary::CeilDivS ? rt::IntOp::CeilDiv : rt::IntOp::FloorDiv, a,
        b);
    return wrap(static_cast<uint64_t>(*result), width);
  }
  case IntBinary::DivU:
    if (ub == 0)
      return std::nullopt;
    return wrap(ua / ub, width);
  case IntBinary::RemS:
    if (b == 0)
      return std::nullopt;
    return signedOverflow ? 0 : a % b;
  case IntBinary::RemU:
    if (ub == 0)
      return std::nullopt;
    return wrap(ua % ub, width);
  case IntBinary::MaxS:
    return std::max(a, b);
  case IntBinary::MinS:
    return std::min(a, b);
  case IntBinary::MaxU:
    return ua >= ub ? a : b;
  case IntBinary::MinU:
    return ua <= ub ? a : b;
  case IntBinary::And:
    return wrap(ua & ub, width);
  case IntBinary::Or:
    return wrap(ua | ub, width);
  case IntBinary::Xor:
    return wrap(ua ^ ub, width);
  case IntBinary::Shl:
  case IntBinary::ShrS:
  case IntBinary::ShrU:
    if (ub >= width)
      return std::nullopt;
    if (op == IntBinary::Shl)
      return wrap(ua << ub, width);
    if (op == IntBinary::ShrS)
      return a >> ub;
    return wrap(ua >> ub, width);
  case IntBinary::None:
    break;
  }
  return std::nullopt;
}

static bool compareFloats(arith::CmpFPredicate predicate, double a, double b) {
  using P = arith::CmpFPredicate;
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (predicate) {
  case P::AlwaysFalse:
    return false;
  case P::AlwaysTrue:
    return true;
  case P::ORD:
    return !unordered;
  case P::UNO:
    return unordered;
  case P::OEQ:
    return !unordered && a == b;
  case P::OGT:
    return !unordered && a > b;
  case P::OGE:
    return !unordered && a >= b;
  case P::OLT:
    return !unordered && a < b;
  case P::OLE:
    return !unordered && a <= b;
  case P::ONE:
    return !unordered && a != b;
  case P::UEQ:
    return unordered || a == b;
  case P::UGT:
    return unordered || a > b;
  case P::UGE:
    return unordered || a >= b;
  case P::ULT:
    return unordered || a < b;
  case P::ULE:
    return unordered || a <= b;
  case P::UNE:
    return unordered || a != b;
  }
  return false;
}

static bool compareInts(arith::CmpIPredicate predicate, int64_t a, int64_t b,
                        unsigned width) {
  using P = arith::CmpIPredicate;
  uint64_t ua = zeroExtend(a, width), ub = zeroExtend(b, width);
  switch (predicate) {
  case P::eq:
    return a == b;
  case P::ne:
    return a != b;
  case P::slt:
    return a < b;
  case P::sle:
    return a <= b;
  case P::sgt:
    return a > b;
  case P::sge:
    return a >= b;
  case P::ult:
    return ua < ub;
  case P::ule:
    return ua <= ub;
  case P::ugt:
    return ua > ub;
  case P::uge:
    return ua >= ub;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// ElementwiseOp
//===----------------------------------------------------------------------===//

/// Float ops whose GPU code rounds correctly, as the reference does: the
/// PTX has add.rn, sub.rn, mul.rn, div.rn (not contracted into fma), exact
/// min/max/abs/neg/copysign, and cvt.rn conversions. sqrt and rsqrt are
/// approximations there, remf an expansion, math functions approximations.
static bool roundsCorrectly(StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases({"arith.addf", "arith.subf", "arith.mulf", "arith.divf"}, true)
      .Cases({"arith.negf", "math.absf", "math.copysign"}, true)
      .Cases({"arith.maximumf", "arith.minimumf", "arith.maxnumf",
              "arith.minnumf"},
             true)
      .Default(false);
}

/// Float ops that are step functions: floor and friends.
static bool isStepFunction(StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases({"math.floor", "math.ceil", "math.trunc", "math.round",
              "math.roundeven"},
             true)
      .Default(false);
}

std::optional<ElementwiseOp> ElementwiseOp::get(Operation &op) {
  StringRef name = op.getName().getStringRef();
  ElementwiseOp result;
  if (isa<arith::CmpFOp, arith::CmpIOp, arith::FPToSIOp, arith::FPToUIOp>(op) ||
      isStepFunction(name))
    result.accuracy = ResultAccuracy::Threshold;
  else if (isa<arith::SelectOp, math::AbsIOp, arith::IndexCastOp,
               arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp,
               arith::TruncIOp, arith::SIToFPOp, arith::UIToFPOp, arith::ExtFOp,
               arith::TruncFOp>(op) ||
           getIntBinary(name) != IntBinary::None || roundsCorrectly(name))
    result.accuracy = ResultAccuracy::Exact;
  else if (isa<math::FmaOp>(op) || getFloatUnary(name) || getFloatBinary(name))
    result.accuracy = ResultAccuracy::Inexact;
  else
    return std::nullopt;
  result.errorRule =
      llvm::StringSwitch<ErrorRule>(name)
          .Cases({"arith.addf", "arith.subf"}, ErrorRule::Sum)
          .Case("arith.mulf", ErrorRule::Product)
          .Case("arith.divf", ErrorRule::Quotient)
          .Case("math.fma", ErrorRule::Fma)
          .Cases({"arith.maximumf", "arith.minimumf", "arith.maxnumf",
                  "arith.minnumf"},
                 ErrorRule::Largest)
          .Case("arith.select", ErrorRule::Pick)
          .Cases({"arith.negf", "math.absf", "arith.extf"}, ErrorRule::Same)
          .Case("arith.truncf", ErrorRule::Narrow)
          .Default(isStepFunction(name)  ? ErrorRule::Same
                   : getFloatUnary(name) ? ErrorRule::Function
                   : isa<arith::SIToFPOp, arith::UIToFPOp>(op)
                       ? ErrorRule::Same
                       : ErrorRule::None);
  result.width = intWidth(op.getOperand(op.getNumOperands() - 1).getType());
  result.fromWidth = intWidth(op.getOperand(0).getType());
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    result.kind = Kind::CmpF;
    result.predicate = static_cast<uint8_t>(cmp.getPredicate());
  } else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    result.kind = Kind::CmpI;
    result.predicate = static_cast<uint8_t>(cmp.getPredicate());
  } else if (isa<arith::SelectOp>(op)) {
    result.kind = Kind::Select;
  } else if (isa<math::FmaOp>(op)) {
    result.kind = Kind::Fma;
  } else if (isa<math::AbsIOp>(op)) {
    result.kind = Kind::AbsI;
  } else if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(op)) {
    result.kind = Kind::IntCast;
  } else if (isa<arith::IndexCastUIOp, arith::ExtUIOp>(op)) {
    result.kind = Kind::UnsignedIntCast;
  } else if (isa<arith::SIToFPOp>(op)) {
    result.kind = Kind::SIToFP;
  } else if (isa<arith::UIToFPOp>(op)) {
    result.kind = Kind::UIToFP;
  } else if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
    result.kind = Kind::FloatCast;
  } else if (isa<arith::FPToSIOp>(op)) {
    result.kind = Kind::FPToSI;
  } else if (isa<arith::FPToUIOp>(op)) {
    result.kind = Kind::FPToUI;
  } else if ((result.unary = getFloatUnary(name))) {
    result.kind = Kind::FloatUnary;
  } else if ((result.binary = getFloatBinary(name))) {
    result.kind = Kind::FloatBinary;
  } else {
    result.kind = Kind::IntBinary;
    result.intBinary = static_cast<uint8_t>(getIntBinary(name));
  }
  return result;
}

bool ElementwiseOp::apply(Val &result, size_t i, ArrayRef<const Val *> operands,
                          ArrayRef<size_t> indices) const {
  auto f = [&](unsigned k) { return operands[k]->floats[indices[k]]; };
  auto n = [&](unsigned k) { return operands[k]->ints[indices[k]]; };
  switch (kind) {
  case Kind::CmpF:
    result.ints[i] =
        compareFloats(static_cast<arith::CmpFPredicate>(predicate), f(0), f(1))
            ? -1
            : 0;
    return true;
  case Kind::CmpI:
    result.ints[i] = compareInts(static_cast<arith::CmpIPredicate>(predicate),
                                 n(0), n(1), width)
                         ? -1
                         : 0;
    return true;
  case Kind::Select: {
    unsigned chosen = n(0) ? 1 : 2;
    result.copyElement(i, *operands[chosen], indices[chosen]);
    return true;
  }
  case Kind::Fma:
    result.setFloat(i, std::fma(f(0), f(1), f(2)));
    return true;
  case Kind::AbsI:
    result.setInt(i, n(0) < 0 ? -static_cast<uint64_t>(n(0))
                              : static_cast<uint64_t>(n(0)));
    return true;
  case Kind::IntCast:
    result.setInt(i, n(0));
    return true;
  case Kind::UnsignedIntCast:
    result.setInt(i, zeroExtend(n(0), fromWidth));
    return true;
  case Kind::SIToFP:
    result.setFloat(i, static_cast<double>(n(0)));
    return true;
  case Kind::UIToFP:
    result.setFloat(i, static_cast<double>(zeroExtend(n(0), fromWidth)));
    return true;
  case Kind::FloatCast:
    result.setFloat(i, f(0));
    return true;
  case Kind::FPToSI:
  case Kind::FPToUI: {
    // Undefined outside the target's range.
    bool isSigned = kind == Kind::FPToSI;
    unsigned toWidth = intWidth(result.elementType);
    double truncated = std::trunc(f(0));
    double low = isSigned ? -std::ldexp(1.0, toWidth - 1) : 0.0;
    double high = std::ldexp(1.0, isSigned ? toWidth - 1 : toWidth);
    if (!(truncated >= low && truncated < high))
      return false;
    result.setInt(
        i, isSigned ? static_cast<uint64_t>(static_cast<int64_t>(truncated))
                    : static_cast<uint64_t>(truncated));
    return true;
  }
  case Kind::FloatUnary:
    result.setFloat(i, unary(f(0)));
    return true;
  case Kind::FloatBinary:
    result.setFloat(i, binary(f(0), f(1)));
    return true;
  case Kind::IntBinary: {
    std::optional<int64_t> value =
        applyIntBinary(static_cast<IntBinary>(intBinary), n(0), n(1), width);
    if (!value)
      return false;
    result.ints[i] = *value;
    return true;
  }
  }
  return false;
}

double ElementwiseOp::errorOf(const Val &result, size_t i,
                              ArrayRef<const Val *> operands,
                              ArrayRef<size_t> indices,
                              bool approximated) const {
  Accuracy in = result.accuracy;
  auto value = [&](unsigned k) { return operands[k]->floats[indices[k]]; };
  auto error = [&](unsigned k) {
    return errorBound(*operands[k], indices[k], in);
  };
  double r = result.floats[i];
  double own =
      ownError(r, in, accuracy == ResultAccuracy::Inexact || approximated);
  // An operand the reference cannot bound makes the result unbounded too
  // (but select's operand it does not pick).
  if (errorRule != ErrorRule::Pick)
    for (unsigned k = 0; k < operands.size(); ++k)
      if (operands[k]->isFloat && isUncheckedError(error(k)))
        return kUncheckedError;
  switch (errorRule) {
  case ErrorRule::Sum:
    // A fused add's product rounds once, not twice: off by a tolerance of
    // the terms, not of the result.
    if (approximated) {
      // Fused, the product is not rounded: one that overflowed here may
      // not on the GPU, where the sum is in range.
      for (unsigned k = 0; k < 2; ++k)
        if (operands[k]->product && !std::isfinite(value(k)))
          return kUncheckedError;
      own = std::fabs(value(0)) + std::fabs(value(1));
    }
    return error(0) + error(1) + own;
  case ErrorRule::Product:
  case ErrorRule::Fma: {
    double a = std::fabs(value(0)), b = std::fabs(value(1));
    double ea = error(0), eb = error(1);
    double product = b * ea + a * eb + ea * eb * rt::relativeTolerance(in);
    if (errorRule == ErrorRule::Product)
      return product + own;
    return product + error(2) + a * b + std::fabs(value(2));
  }
  case ErrorRule::Quotient: {
    double b = std::fabs(value(1)), ea = error(0), eb = error(1);
    if (ea == 0 && eb == 0)
      return own;
    // Beyond first order once the divisor may be off by half itself.
    if (eb * rt::relativeTolerance(in) * 2 >= b)
      return INFINITY;
    return (ea + std::fabs(r) * eb) / (b - eb * rt::relativeTolerance(in)) +
           own;
  }
  case ErrorRule::Largest:
    return std::max(error(0), error(1));
  case ErrorRule::Pick:
    return operands[0]->ints[indices[0]] ? error(1) : error(2);
  case ErrorRule::Same:
    return operands[0]->isFloat ? error(0) : 0;
  case ErrorRule::Narrow:
    return error(0) + own;
  case ErrorRule::Function: {
    // The function's largest change within the operand's error.
    double x = value(0), h = error(0) * rt::relativeTolerance(in);
    if (h == 0)
      return own;
    if (!std::isfinite(h))
      return INFINITY;
    double change = std::max(std::fabs(unary(x + h) - unary(x)),
                             std::fabs(unary(x - h) - unary(x)));
    if (std::isnan(change))
      return INFINITY;
    return change / rt::relativeTolerance(in) + own;
  }
  case ErrorRule::None:
    break;
  }
  bool exactOperands = llvm::all_of(operands, [](const Val *operand) {
    return !operand->isFloat || operand->accuracy == Accuracy::Exact;
  });
  return exactOperands ? own : INFINITY;
}
