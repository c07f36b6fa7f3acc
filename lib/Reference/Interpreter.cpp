//===- Interpreter.cpp - the interp backend -------------------------------===//
//
// Plain loops over plain arrays. A tile value is a Val: its shape and its
// elements as double (float types) or int64 (integer and index types). An
// integer is kept as the sign-extended value of its low `width` bits, the
// way APInt's getSExtValue reads it (an i1 `true` is -1); ops that read
// their operands as unsigned zero-extend first.
//
//===----------------------------------------------------------------------===//

#include "tile/Reference/Interpreter.h"
#include "tile/Runtime/Half.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tile;
namespace rt = ::tile::runtime;

//===----------------------------------------------------------------------===//
// Values and element types
//===----------------------------------------------------------------------===//

namespace {
/// A scalar (empty shape) or a tile.
struct Val {
  SmallVector<int64_t, 2> shape;
  bool isFloat = false;
  std::vector<double> floats;
  std::vector<int64_t> ints;

  size_t size() const { return isFloat ? floats.size() : ints.size(); }
  int64_t scalarInt() const { return ints.empty() ? 0 : ints.front(); }
};
} // namespace

static Type elementTypeOf(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return type;
}

/// Zeros of `type`: a tensor type gives a tile, anything else a scalar.
static Val makeVal(Type type) {
  Val val;
  size_t count = 1;
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    val.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    count = tensor.getNumElements();
  }
  val.isFloat = isa<FloatType>(elementTypeOf(type));
  if (val.isFloat)
    val.floats.assign(count, 0.0);
  else
    val.ints.assign(count, 0);
  return val;
}

static unsigned intWidth(Type type) {
  Type element = elementTypeOf(type);
  if (auto integer = dyn_cast<IntegerType>(element))
    return integer.getWidth();
  return 64; // index
}

static uint64_t zeroExtend(int64_t value, unsigned width) {
  if (width >= 64)
    return static_cast<uint64_t>(value);
  return static_cast<uint64_t>(value) & ((uint64_t(1) << width) - 1);
}

/// The canonical form: the low `width` bits, sign-extended.
static int64_t wrap(uint64_t value, unsigned width) {
  if (width >= 64)
    return static_cast<int64_t>(value);
  uint64_t low = value & ((uint64_t(1) << width) - 1);
  uint64_t signBit = uint64_t(1) << (width - 1);
  return static_cast<int64_t>((low ^ signBit) - signBit);
}

/// `value` rounded to float type `type` (to nearest, ties to even).
static double roundToType(double value, Type type) {
  if (type.isF32())
    return static_cast<float>(value);
  if (type.isF16())
    return rt::fromHalfBits(rt::toHalfBits(value));
  if (type.isBF16())
    return rt::fromBFloat16Bits(rt::toBFloat16Bits(value));
  return value;
}

static double toDouble(APFloat value) {
  bool losesInfo;
  value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

static std::optional<rt::DType> toDType(Type type) {
  if (type.isF32())
    return rt::DType::F32;
  if (type.isF16())
    return rt::DType::F16;
  if (type.isBF16())
    return rt::DType::BF16;
  if (type.isInteger(32))
    return rt::DType::I32;
  if (type.isInteger(1))
    return rt::DType::I1;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Elementwise operations
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
static double maximumf(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  return a == b ? (std::signbit(a) ? b : a) : std::max(a, b);
}
static double minimumf(double a, double b) {
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
// The interpreter
//===----------------------------------------------------------------------===//

namespace {
class Interpreter {
public:
  Interpreter(KernelOp kernel, const reference::InterpOptions &options)
      : kernel(kernel), options(options) {}

  LogicalResult run(ArrayRef<rt::HostTensor *> args,
                    rt::SymbolBindings &symbols);

private:
  FailureOr<SmallVector<Val>> runBlock(Block &block, ArrayRef<Val> args);
  LogicalResult execute(Operation &op);
  LogicalResult executeElementwise(Operation &op);
  LogicalResult executeCast(Operation &op);
  LogicalResult executeConstant(arith::ConstantOp op);
  LogicalResult executeSlice(Operation &op, Value tensor, ValueRange offsets,
                             RankedTensorType tileType, const Val *stored);
  LogicalResult executeFor(scf::ForOp op);
  LogicalResult executeWhile(scf::WhileOp op);
  LogicalResult executeTileOp(Operation &op);

  /// Counts one op and the elements it computes; fails once the run has
  /// taken too many of either.
  LogicalResult tick(Operation *op, int64_t opElements = 1) {
    elements += opElements;
    if (++steps <= options.maxSteps && elements <= options.maxElements)
      return success();
    if (steps > options.maxSteps)
      return op->emitError("the interp backend stopped after ")
             << options.maxSteps
             << " operations; does a loop never end? "
                "(InterpOptions::maxSteps)";
    return op->emitError("the interp backend stopped after computing ")
           << options.maxElements
           << " tile elements; does a loop never end? "
              "(InterpOptions::maxElements)";
  }
  const Val &get(Value value) { return values.find(value)->second; }
  void set(Value value, Val val) { values[value] = std::move(val); }
  /// The buffer of a kernel parameter, or an error when `value` is none.
  rt::HostTensor *getTensor(Operation &op, Value value) {
    rt::HostTensor *tensor = tensors.lookup(value);
    if (!tensor)
      op.emitError("the interp backend needs a kernel parameter here");
    return tensor;
  }

  KernelOp kernel;
  const reference::InterpOptions &options;
  uint64_t steps = 0;
  uint64_t elements = 0;
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> blockId = {0, 0, 0};
  DenseMap<Value, Val> values;
  /// The content of each tile.var, none until it is first written.
  DenseMap<Value, std::optional<Val>> vars;
  DenseMap<Value, rt::HostTensor *> tensors;
};
} // namespace

FailureOr<SmallVector<Val>> Interpreter::runBlock(Block &block,
                                                  ArrayRef<Val> args) {
  for (auto [arg, val] : llvm::zip(block.getArguments(), args))
    set(arg, val);
  for (Operation &op : block.without_terminator())
    if (failed(execute(op)))
      return failure();
  SmallVector<Val> results;
  for (Value operand : block.getTerminator()->getOperands())
    results.push_back(get(operand));
  return results;
}

LogicalResult Interpreter::execute(Operation &op) {
  int64_t opElements = 1;
  for (Type type :
       llvm::concat<const Type>(op.getOperandTypes(), op.getResultTypes()))
    if (auto tile = dyn_cast<RankedTensorType>(type))
      opElements = std::max(opElements, tile.getNumElements());
  if (failed(tick(&op, opElements)))
    return failure();
  // Values of an op the interpreter skipped would be missing: refuse
  // rather than read garbage.
  for (Value operand : op.getOperands())
    if (!isa<GlobalTensorType, VarType>(operand.getType()) &&
        !values.count(operand))
      return op.emitError("the interp backend has no value for an operand "
                          "of '")
             << op.getName() << "'";

  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return executeConstant(constant);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return executeFor(forOp);
  if (auto whileOp = dyn_cast<scf::WhileOp>(op))
    return executeWhile(whileOp);
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    Region &region = get(ifOp.getCondition()).scalarInt()
                         ? ifOp.getThenRegion()
                         : ifOp.getElseRegion();
    if (region.empty())
      return success();
    FailureOr<SmallVector<Val>> results = runBlock(region.front(), {});
    if (failed(results))
      return failure();
    for (auto [result, val] : llvm::zip(ifOp.getResults(), *results))
      set(result, std::move(val));
    return success();
  }
  if (isa<TileDialect>(op.getDialect()))
    return executeTileOp(op);
  if (isa<arith::CmpFOp, arith::CmpIOp, arith::SelectOp>(op) ||
      getFloatUnary(op.getName().getStringRef()) ||
      getFloatBinary(op.getName().getStringRef()) ||
      getIntBinary(op.getName().getStringRef()) != IntBinary::None ||
      isa<math::FmaOp, math::AbsIOp>(op))
    return executeElementwise(op);
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp, arith::SIToFPOp, arith::UIToFPOp,
          arith::FPToSIOp, arith::FPToUIOp, arith::ExtFOp, arith::TruncFOp>(op))
    return executeCast(op);
  return op.emitError("the interp backend does not support '")
         << op.getName() << "'";
}

LogicalResult Interpreter::executeConstant(arith::ConstantOp op) {
  Val val = makeVal(op.getType());
  Attribute value = op.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (val.isFloat) {
      size_t i = 0;
      for (APFloat element : dense.getValues<APFloat>())
        val.floats[i++] = toDouble(element);
    } else {
      size_t i = 0;
      unsigned width = intWidth(op.getType());
      for (APInt element : dense.getValues<APInt>())
        val.ints[i++] = wrap(element.getSExtValue(), width);
    }
  } else if (auto floatAttr = dyn_cast<FloatAttr>(value)) {
    val.floats[0] = toDouble(floatAttr.getValue());
  } else if (auto intAttr = dyn_cast<IntegerAttr>(value)) {
    val.ints[0] =
        wrap(intAttr.getValue().getSExtValue(), intWidth(op.getType()));
  } else {
    return op.emitError("the interp backend does not support the constant ")
           << value;
  }
  set(op.getResult(), std::move(val));
  return success();
}

LogicalResult Interpreter::executeElementwise(Operation &op) {
  Type resultType = op.getResult(0).getType();
  Val result = makeVal(resultType);
  StringRef name = op.getName().getStringRef();
  SmallVector<const Val *, 3> operands;
  for (Value operand : op.getOperands())
    operands.push_back(&get(operand));
  unsigned width = intWidth(op.getOperand(op.getNumOperands() - 1).getType());

  for (size_t i = 0; i < result.size(); ++i) {
    auto f = [&](unsigned n) { return operands[n]->floats[i]; };
    // A scalar operand (select's condition) serves every element.
    auto n = [&](unsigned k) {
      return operands[k]->ints[operands[k]->ints.size() == 1 ? 0 : i];
    };
    if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
      result.ints[i] = compareFloats(cmp.getPredicate(), f(0), f(1)) ? -1 : 0;
    } else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      result.ints[i] =
          compareInts(cmp.getPredicate(), n(0), n(1), width) ? -1 : 0;
    } else if (isa<arith::SelectOp>(op)) {
      const Val &chosen = *operands[n(0) ? 1 : 2];
      if (result.isFloat)
        result.floats[i] = chosen.floats[i];
      else
        result.ints[i] = chosen.ints[i];
    } else if (isa<math::FmaOp>(op)) {
      result.floats[i] = std::fma(f(0), f(1), f(2));
    } else if (isa<math::AbsIOp>(op)) {
      result.ints[i] = wrap(n(0) < 0 ? -static_cast<uint64_t>(n(0))
                                     : static_cast<uint64_t>(n(0)),
                            width);
    } else if (FloatUnaryFn unary = getFloatUnary(name)) {
      result.floats[i] = unary(f(0));
    } else if (FloatBinaryFn binary = getFloatBinary(name)) {
      result.floats[i] = binary(f(0), f(1));
    } else {
      std::optional<int64_t> value =
          applyIntBinary(getIntBinary(name), n(0), n(1), width);
      if (!value)
        return op.emitError("'")
               << name << "' is undefined for " << n(0) << " and " << n(1)
               << " (element " << i
               << "): division by zero, overflow or a shift too far";
      result.ints[i] = *value;
    }
  }
  set(op.getResult(0), std::move(result));
  return success();
}

LogicalResult Interpreter::executeCast(Operation &op) {
  Type fromType = op.getOperand(0).getType(),
       toType = op.getResult(0).getType();
  Type toElement = elementTypeOf(toType);
  unsigned fromWidth = intWidth(fromType), toWidth = intWidth(toType);
  const Val &input = get(op.getOperand(0));
  Val result = makeVal(toType);
  for (size_t i = 0; i < result.size(); ++i) {
    if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(op)) {
      result.ints[i] = wrap(input.ints[i], toWidth);
    } else if (isa<arith::IndexCastUIOp, arith::ExtUIOp>(op)) {
      result.ints[i] = wrap(zeroExtend(input.ints[i], fromWidth), toWidth);
    } else if (isa<arith::SIToFPOp>(op)) {
      result.floats[i] = roundToType(input.ints[i], toElement);
    } else if (isa<arith::UIToFPOp>(op)) {
      result.floats[i] =
          roundToType(zeroExtend(input.ints[i], fromWidth), toElement);
    } else if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
      result.floats[i] = roundToType(input.floats[i], toElement);
    } else { // fptosi, fptoui: undefined outside the target's range
      bool isSigned = isa<arith::FPToSIOp>(op);
      double truncated = std::trunc(input.floats[i]);
      double low = isSigned ? -std::ldexp(1.0, toWidth - 1) : 0.0;
      double high = std::ldexp(1.0, isSigned ? toWidth - 1 : toWidth);
      if (!(truncated >= low && truncated < high))
        return op.emitError("'")
               << op.getName() << "' of " << input.floats[i] << " (element "
               << i << ") is out of range for " << toElement;
      result.ints[i] =
          wrap(isSigned ? static_cast<uint64_t>(static_cast<int64_t>(truncated))
                        : static_cast<uint64_t>(truncated),
               toWidth);
    }
  }
  set(op.getResult(0), std::move(result));
  return success();
}

LogicalResult Interpreter::executeFor(scf::ForOp op) {
  int64_t lower = get(op.getLowerBound()).scalarInt();
  int64_t upper = get(op.getUpperBound()).scalarInt();
  int64_t step = get(op.getStep()).scalarInt();
  unsigned width = intWidth(op.getInductionVar().getType());
  if (step <= 0)
    return op.emitError("scf.for step must be positive, got ") << step;
  SmallVector<Val> carried;
  for (Value init : op.getInitArgs())
    carried.push_back(get(init));
  for (int64_t iv = lower;
       op.getUnsignedCmp() ? zeroExtend(iv, width) < zeroExtend(upper, width)
                           : iv < upper;) {
    if (failed(tick(op)))
      return failure();
    Val ivVal = makeVal(op.getInductionVar().getType());
    ivVal.ints[0] = iv;
    SmallVector<Val> args = {std::move(ivVal)};
    args.append(carried.begin(), carried.end());
    FailureOr<SmallVector<Val>> yielded = runBlock(*op.getBody(), args);
    if (failed(yielded))
      return failure();
    carried = std::move(*yielded);
    int64_t next = wrap(static_cast<uint64_t>(iv) + step, width);
    if (next <= iv && !op.getUnsignedCmp())
      break; // the step overflowed past the type's end
    iv = next;
  }
  for (auto [result, val] : llvm::zip(op.getResults(), carried))
    set(result, std::move(val));
  return success();
}

LogicalResult Interpreter::executeWhile(scf::WhileOp op) {
  SmallVector<Val> carried;
  for (Value init : op.getInits())
    carried.push_back(get(init));
  while (true) {
    if (failed(tick(op)))
      return failure();
    // scf.condition's operands: the condition, then the values passed on.
    FailureOr<SmallVector<Val>> before =
        runBlock(op.getBefore().front(), carried);
    if (failed(before))
      return failure();
    bool proceed = before->front().scalarInt() != 0;
    SmallVector<Val> passed(std::make_move_iterator(before->begin() + 1),
                            std::make_move_iterator(before->end()));
    if (!proceed) {
      for (auto [result, val] : llvm::zip(op.getResults(), passed))
        set(result, std::move(val));
      return success();
    }
    FailureOr<SmallVector<Val>> after = runBlock(op.getAfter().front(), passed);
    if (failed(after))
      return failure();
    carried = std::move(*after);
  }
}

/// Loads (`stored` null) or stores the slice of `tensor` at `offsets` with
/// the tile's shape; elements outside the tensor read 0 and are dropped on
/// store.
LogicalResult Interpreter::executeSlice(Operation &op, Value tensorValue,
                                        ValueRange offsetValues,
                                        RankedTensorType tileType,
                                        const Val *stored) {
  rt::HostTensor *tensor = getTensor(op, tensorValue);
  if (!tensor)
    return failure();
  SmallVector<int64_t> offsets;
  for (Value offset : offsetValues)
    offsets.push_back(get(offset).scalarInt());
  Val loaded = makeVal(tileType);
  unsigned width = intWidth(tileType);
  ArrayRef<int64_t> tileShape = tileType.getShape();
  int64_t rank = tileShape.size();
  for (int64_t e = 0; e < tileType.getNumElements(); ++e) {
    // Row-major position of element e in the tile, then in the tensor.
    int64_t remaining = e, linear = 0;
    bool inside = true;
    for (int64_t dim = rank - 1, stride = 1; dim >= 0; --dim) {
      int64_t position;
      if (__builtin_add_overflow(offsets[dim], remaining % tileShape[dim],
                                 &position) ||
          position < 0 || position >= tensor->shape[dim])
        inside = false;
      else
        linear += position * stride;
      stride *= tensor->shape[dim];
      remaining /= tileShape[dim];
    }
    if (!inside)
      continue;
    if (stored)
      tensor->set(linear, stored->isFloat
                              ? stored->floats[e]
                              : static_cast<double>(stored->ints[e]));
    else if (loaded.isFloat)
      loaded.floats[e] = tensor->get(linear);
    else
      loaded.ints[e] = wrap(static_cast<int64_t>(tensor->get(linear)), width);
  }
  if (!stored)
    set(op.getResult(0), std::move(loaded));
  return success();
}

LogicalResult Interpreter::executeTileOp(Operation &op) {
  auto setIndex = [&](int64_t value) {
    Val val = makeVal(op.getResult(0).getType());
    val.ints[0] = value;
    set(op.getResult(0), std::move(val));
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      // Whole tiles at a time: every thread is always at the same op.
      .Case([&](BarrierOp) { return success(); })
      .Case([&](ThreadIdOp) {
        return op.emitError(
            "tile.thread_id is per-thread; the interp backend evaluates "
            "whole tiles, use --backend=emulate");
      })
      .Case([&](NumThreadsOp) { return setIndex(kernel.getThreads()); })
      .Case([&](LanesOp) { return setIndex(kLanes); })
      .Case([&](BlockIdOp id) {
        return setIndex(blockId[static_cast<int>(id.getDim())]);
      })
      .Case([&](NumBlocksOp blocks) {
        return setIndex(grid[static_cast<int>(blocks.getDim())]);
      })
      .Case([&](DimOp dim) -> LogicalResult {
        rt::HostTensor *tensor = getTensor(op, dim.getSource());
        if (!tensor)
          return failure();
        return setIndex(tensor->shape[dim.getIndex()]);
      })
      .Case([&](VarOp var) {
        vars[var.getResult()] = var.getInit()
                                    ? std::optional<Val>(get(var.getInit()))
                                    : std::nullopt;
        return success();
      })
      .Case([&](ReadOp read) -> LogicalResult {
        auto found = vars.find(read.getVar());
        if (found == vars.end())
          return op.emitError("the interp backend reads only vars made by "
                              "tile.var");
        if (!found->second)
          return op.emitError("reads var '")
                 << cast<VarOp>(read.getVar().getDefiningOp()).getName()
                 << "' before anything was written to it";
        set(read.getResult(), *found->second);
        return success();
      })
      .Case([&](WriteOp write) -> LogicalResult {
        auto found = vars.find(write.getVar());
        if (found == vars.end())
          return op.emitError("the interp backend writes only vars made by "
                              "tile.var");
        found->second = get(write.getValue());
        return success();
      })
      .Case([&](LoadOp load) {
        return executeSlice(op, load.getSource(), load.getOffsets(),
                            load.getResult().getType(), nullptr);
      })
      .Case([&](StoreOp store) {
        return executeSlice(op, store.getDest(), store.getOffsets(),
                            store.getValue().getType(), &get(store.getValue()));
      })
      .Case([&](ReductionOpInterface reduce) {
        const Val &input = get(reduce.getInput());
        Val result = makeVal(reduce.getResult().getType());
        int64_t rows = input.shape[0], cols = input.shape[1];
        // Over rows (axis 1) or columns (axis 0): `outer` results of
        // `inner` elements each, `stride` apart.
        bool overRows = reduce.getAxis() == 1;
        int64_t outer = overRows ? rows : cols, inner = overRows ? cols : rows;
        auto at = [&](int64_t o, int64_t i) {
          return overRows ? o * cols + i : i * cols + o;
        };
        ReductionKind kind = reduce.getKind();
        unsigned width = intWidth(reduce.getResult().getType());
        for (int64_t o = 0; o < outer; ++o) {
          if (input.isFloat) {
            double acc = kind == ReductionKind::sum   ? 0.0
                         : kind == ReductionKind::max ? -INFINITY
                                                      : INFINITY;
            for (int64_t i = 0; i < inner; ++i) {
              double x = input.floats[at(o, i)];
              acc = kind == ReductionKind::sum   ? acc + x
                    : kind == ReductionKind::max ? maximumf(acc, x)
                                                 : minimumf(acc, x);
            }
            result.floats[o] = acc;
          } else {
            int64_t acc = kind == ReductionKind::sum   ? 0
                          : kind == ReductionKind::max ? INT64_MIN
                                                       : INT64_MAX;
            for (int64_t i = 0; i < inner; ++i) {
              int64_t x = input.ints[at(o, i)];
              acc = kind == ReductionKind::sum
                        ? static_cast<int64_t>(static_cast<uint64_t>(acc) +
                                               static_cast<uint64_t>(x))
                    : kind == ReductionKind::max ? std::max(acc, x)
                                                 : std::min(acc, x);
            }
            result.ints[o] = wrap(static_cast<uint64_t>(acc), width);
          }
        }
        set(reduce.getResult(), std::move(result));
        return success();
      })
      .Case([&](DotOp dot) {
        const Val &lhs = get(dot.getLhs()), &rhs = get(dot.getRhs());
        Val result = makeVal(dot.getResult().getType());
        int64_t m = lhs.shape[0], k = lhs.shape[1], n = rhs.shape[1];
        unsigned width = intWidth(dot.getResult().getType());
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            double floatAcc = 0;
            uint64_t intAcc = 0;
            for (int64_t p = 0; p < k; ++p) {
              if (lhs.isFloat)
                floatAcc += lhs.floats[i * k + p] * rhs.floats[p * n + j];
              else
                intAcc += static_cast<uint64_t>(lhs.ints[i * k + p]) *
                          static_cast<uint64_t>(rhs.ints[p * n + j]);
            }
            if (result.isFloat)
              result.floats[i * n + j] = floatAcc;
            else
              result.ints[i * n + j] = wrap(intAcc, width);
          }
        }
        set(dot.getResult(), std::move(result));
        return success();
      })
      .Case([&](BroadcastOp broadcast) {
        const Val &input = get(broadcast.getInput());
        Val result = makeVal(broadcast.getResult().getType());
        int64_t rank = result.shape.size();
        for (size_t e = 0; e < result.size(); ++e) {
          // Size-1 input dimensions repeat: their index is always 0.
          int64_t remaining = e, source = 0;
          for (int64_t dim = rank - 1, stride = 1; dim >= 0; --dim) {
            int64_t position = remaining % result.shape[dim];
            remaining /= result.shape[dim];
            if (input.shape[dim] != 1)
              source += position * stride;
            stride *= input.shape[dim];
          }
          if (result.isFloat)
            result.floats[e] = input.floats[source];
          else
            result.ints[e] = input.ints[source];
        }
        set(broadcast.getResult(), std::move(result));
        return success();
      })
      .Case([&](SplatOp splat) {
        const Val &input = get(splat.getInput());
        Val result = makeVal(splat.getResult().getType());
        if (result.isFloat)
          std::fill(result.floats.begin(), result.floats.end(),
                    input.floats[0]);
        else
          std::fill(result.ints.begin(), result.ints.end(), input.ints[0]);
        set(splat.getResult(), std::move(result));
        return success();
      })
      .Default([&](Operation *) {
        return op.emitError("the interp backend does not support '")
               << op.getName() << "'";
      });
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// The affine grid expression with the symbols' values, with the runtime's
/// integer semantics and errors (division by zero, overflow).
static rt::Expected<int64_t> evaluateAffine(AffineExpr expr,
                                            ArrayRef<int64_t> symbols) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return constant.getValue();
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
    return symbols[symbol.getPosition()];
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return rt::Error::input("the grid may not use dimensions");
  rt::Expected<int64_t> lhs = evaluateAffine(binary.getLHS(), symbols);
  if (!lhs)
    return lhs;
  rt::Expected<int64_t> rhs = evaluateAffine(binary.getRHS(), symbols);
  if (!rhs)
    return rhs;
  rt::IntOp op = rt::IntOp::Add;
  switch (expr.getKind()) {
  case AffineExprKind::Mul:
    op = rt::IntOp::Mul;
    break;
  case AffineExprKind::FloorDiv:
    op = rt::IntOp::FloorDiv;
    break;
  case AffineExprKind::CeilDiv:
    op = rt::IntOp::CeilDiv;
    break;
  case AffineExprKind::Mod:
    op = rt::IntOp::Mod;
    break;
  default:
    break;
  }
  return rt::applyIntOp(op, *lhs, *rhs);
}

LogicalResult Interpreter::run(ArrayRef<rt::HostTensor *> args,
                               rt::SymbolBindings &symbols) {
  FailureOr<std::vector<rt::ParamSpec>> params =
      reference::getParamSpecs(kernel);
  if (failed(params))
    return failure();
  std::vector<const rt::HostTensor *> buffers(args.begin(), args.end());
  if (rt::Error error = rt::bindArguments(*params, buffers, symbols))
    return kernel.emitError(error.message());
  for (auto [arg, tensor] :
       llvm::zip(kernel.getBodyBlock().getArguments(), args))
    tensors[arg] = tensor;

  if (std::optional<AffineMap> map = kernel.getGrid()) {
    SmallVector<int64_t> symbolValues;
    for (StringAttr symbol : kernel.getSymbols())
      symbolValues.push_back(symbols.at(symbol.str()));
    for (auto [axis, expr] : llvm::enumerate(map->getResults())) {
      rt::Expected<int64_t> size = evaluateAffine(expr, symbolValues);
      if (!size)
        return kernel.emitError("grid: ") << size.getError().message();
      grid[axis] = *size;
    }
  }
  if (rt::Error error = rt::checkGrid(grid))
    return kernel.emitError(error.message());

  for (blockId[2] = 0; blockId[2] < grid[2]; ++blockId[2])
    for (blockId[1] = 0; blockId[1] < grid[1]; ++blockId[1])
      for (blockId[0] = 0; blockId[0] < grid[0]; ++blockId[0]) {
        vars.clear();
        if (failed(runBlock(kernel.getBodyBlock(), {})))
          return failure();
      }
  return success();
}

FailureOr<std::vector<rt::ParamSpec>>
reference::getParamSpecs(KernelOp kernel) {
  std::vector<rt::ParamSpec> params;
  for (auto [index, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    auto tensor = cast<GlobalTensorType>(type);
    std::optional<rt::DType> dtype = toDType(tensor.getElementType());
    if (!dtype)
      return kernel.emitError("parameter #")
             << index << " has element type " << tensor.getElementType()
             << ", which no tensor buffer holds";
    rt::ParamSpec param;
    param.name = kernel.getParamName(index);
    param.dtype = *dtype;
    for (unsigned dim = 0; dim < tensor.getRank(); ++dim) {
      if (StringAttr symbol = tensor.getSymbolOfDim(dim))
        param.shape.push_back({0, symbol.str()});
      else
        param.shape.push_back({tensor.getShape()[dim], ""});
    }
    params.push_back(std::move(param));
  }
  return params;
}

LogicalResult reference::interpretKernel(KernelOp kernel,
                                         ArrayRef<rt::HostTensor *> args,
                                         rt::SymbolBindings &symbols,
                                         const InterpOptions &options) {
  return Interpreter(kernel, options).run(args, symbols);
}
