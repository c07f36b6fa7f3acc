//===- EmitBitwise.cpp - the bit operators of the .tile language ----------===//
//
// `&`, `|`, `^`, `~`, `<<` and `>>` on integers (`&`, `|`, `^` and `~` also
// on i1). arith leaves a shift by the width or more undefined; the language
// defines it as PTX's shl/shr do (the amount read as unsigned and clamped to
// the width: `<<` gives 0, `>>` the sign fill), so the IR the front end
// emits spells the clamp out and every backend computes the same bits.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::frontend;
using llvm::SMLoc;

bool frontend::isBitOperator(BinaryOp op) {
  switch (op) {
  case BinaryOp::BitAnd:
  case BinaryOp::BitOr:
  case BinaryOp::BitXor:
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    return true;
  default:
    return false;
  }
}

static bool isShift(BinaryOp op) {
  return op == BinaryOp::Shl || op == BinaryOp::Shr;
}

FailureOr<Operand> Emitter::foldBitOperator(BinaryOp op, const Literal &lhs,
                                            const Literal &rhs, SMLoc loc) {
  Literal result = lhs;
  bool bothBool =
      lhs.kind == Literal::Kind::Bool && rhs.kind == Literal::Kind::Bool;
  if (bothBool && !isShift(op)) {
    bool a = lhs.boolValue, b = rhs.boolValue;
    result.boolValue = op == BinaryOp::BitAnd  ? a && b
                       : op == BinaryOp::BitOr ? a || b
                                               : a != b;
    return Operand{Value(), result, loc};
  }
  if (lhs.kind != Literal::Kind::Int || rhs.kind != Literal::Kind::Int)
    return error(loc) << "'" << spell(op) << "' needs integers"
                      << (isShift(op) ? "" : " or booleans")
                      << ", got a constant "
                      << (lhs.kind != Literal::Kind::Int &&
                                  rhs.kind != Literal::Kind::Int
                              ? "pair of non-integers"
                              : "non-integer");
  int64_t a = lhs.intValue, b = rhs.intValue;
  switch (op) {
  case BinaryOp::BitAnd:
    result.intValue = a & b;
    break;
  case BinaryOp::BitOr:
    result.intValue = a | b;
    break;
  case BinaryOp::BitXor:
    result.intValue = a ^ b;
    break;
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    // A constant has no width yet: its shifts are exact or an error.
    if (b < 0)
      return error(loc) << "negative shift amount " << b
                        << " in a constant expression";
    if (op == BinaryOp::Shr) {
      result.intValue = a >> std::min<int64_t>(b, 63);
      break;
    }
    if (a == 0) {
      result.intValue = 0;
      break;
    }
    if (b >= 63 ||
        llvm::MulOverflow<int64_t>(a, int64_t(1) << b, result.intValue))
      return error(loc) << "integer overflow in a constant expression";
    break;
  default:
    llvm_unreachable("not a bit operator");
  }
  return Operand{Value(), result, loc};
}

/// The bits of an integer element type: i32's 32, index's 64 (the
/// reference's width; on the GPU a 32-bit index clamps at 32 as well,
/// and the emulator reports a shifted index that leaves 32 bits).
static int64_t widthOf(Type element) {
  return element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
}

FailureOr<Operand> Emitter::emitBitOperator(BinaryOp op, Operand lhs,
                                            Operand rhs, SMLoc loc) {
  std::string what = ("'" + spell(op) + "'").str();
  // The operands' types first, so that a float or a boolean shifted is
  // named as such rather than as a literal that does not fit it.
  for (const Operand &operand : {lhs, rhs}) {
    if (operand.isLiteral())
      continue;
    Type type = operand.value.getType();
    Type element = getElementTypeOrSelf(type);
    if (!element.isIntOrIndex() || (element.isInteger(1) && isShift(op)))
      return error(loc) << what << " needs integers"
                        << (isShift(op) ? " (i32 or index)" : " or booleans")
                        << ", got " << describe(type)
                        << (isa<FloatType>(element)
                                ? "; bit operations are not defined on floats"
                                : "");
  }
  Operand operands[] = {lhs, rhs};
  FailureOr<SmallVector<Value>> values = unify(operands, what, loc);
  if (failed(values))
    return failure();
  Value a = (*values)[0], b = (*values)[1];
  Type type = a.getType();
  Type element = getElementTypeOrSelf(type);
  Location location = getLoc(loc);
  switch (op) {
  case BinaryOp::BitAnd:
    return Operand{arith::AndIOp::create(builder, location, a, b), {}, loc};
  case BinaryOp::BitOr:
    return Operand{arith::OrIOp::create(builder, location, a, b), {}, loc};
  case BinaryOp::BitXor:
    return Operand{arith::XOrIOp::create(builder, location, a, b), {}, loc};
  default:
    break;
  }
  int64_t width = widthOf(element);
  // A constant amount within the width needs no clamp.
  bool inRange = rhs.isLiteral() && rhs.literal->kind == Literal::Kind::Int &&
                 rhs.literal->intValue >= 0 && rhs.literal->intValue < width;
  auto constant = [&](int64_t value) -> FailureOr<Value> {
    Literal literal;
    literal.intValue = value;
    return materialize(literal, type, loc, "the shift's width");
  };
  if (op == BinaryOp::Shr) {
    // Arithmetic: an amount of the width or more fills with the sign, as
    // a shift by width - 1 does.
    if (!inRange) {
      FailureOr<Value> most = constant(width - 1);
      if (failed(most))
        return failure();
      b = arith::MinUIOp::create(builder, location, b, *most);
    }
    return Operand{arith::ShRSIOp::create(builder, location, a, b), {}, loc};
  }
  if (inRange)
    return Operand{arith::ShLIOp::create(builder, location, a, b), {}, loc};
  // The shift itself by an amount within the width (no arm of the select
  // is undefined, which the reference would report), then 0 where the
  // amount is the width or more.
  FailureOr<Value> most = constant(width - 1), limit = constant(width),
                   zero = constant(0);
  if (failed(most) || failed(limit) || failed(zero))
    return failure();
  Value shifted = arith::ShLIOp::create(
      builder, location, a,
      arith::MinUIOp::create(builder, location, b, *most));
  Value within = arith::CmpIOp::create(builder, location,
                                       arith::CmpIPredicate::ult, b, *limit);
  return Operand{
      arith::SelectOp::create(builder, location, within, shifted, *zero),
      {},
      loc};
}

FailureOr<Operand> Emitter::emitComplement(const Operand &operand, SMLoc loc) {
  if (operand.isLiteral()) {
    Literal value = *operand.literal;
    if (value.kind == Literal::Kind::Float)
      return error(loc) << "'~' needs an integer or a boolean, got a number";
    value.intValue = ~value.intValue;
    value.boolValue = !value.boolValue;
    return Operand{Value(), value, loc};
  }
  Type type = operand.value.getType();
  Type element = getElementTypeOrSelf(type);
  if (!element.isIntOrIndex())
    return error(loc) << "'~' needs an integer or a boolean, got "
                      << describe(type)
                      << "; bit operations are not defined on floats";
  Literal ones;
  ones.kind = element.isInteger(1) ? Literal::Kind::Bool : Literal::Kind::Int;
  ones.intValue = -1;
  ones.boolValue = true;
  FailureOr<Value> mask = materialize(ones, type, loc, "the complement's mask");
  if (failed(mask))
    return failure();
  return Operand{
      arith::XOrIOp::create(builder, getLoc(loc), operand.value, *mask),
      {},
      loc};
}
