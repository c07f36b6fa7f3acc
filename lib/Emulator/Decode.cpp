//===- Decode.cpp - the kernel's ops decoded once, for every thread -------===//
//
// Walking MLIR ops costs a hash lookup per operand and result (value
// numbers), a chain of type tests per op and a look at the types for every
// element kind: several times the work of the arithmetic itself, paid by
// every thread at every step. The elementwise ops that make up most of a
// kernel's steps (integer and float arithmetic, compares, selects, casts,
// constants, static vector extracts and inserts, splats) are decoded once
// per kernel into a DecodedOp with their value numbers, element kinds and
// constant positions, which ExecArith.cpp's executeDecoded runs by a
// switch. Everything else stays Generic and runs from its Operation, so a
// check is written once.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile::emulator;

/// The first slot and the slot count of the part of a `vector` at the
/// static `position`, or none where a position is dynamic or outside the
/// vector (left to the generic op, which reports it).
static std::optional<std::pair<int64_t, int64_t>>
staticPart(VectorType vector, ArrayRef<int64_t> position) {
  ArrayRef<int64_t> shape = vector.getShape();
  for (auto [index, value] : llvm::enumerate(position))
    if (ShapedType::isDynamic(value) || value < 0 || value >= shape[index])
      return std::nullopt;
  return vectorPart(shape, position);
}

/// Whether `value` is dead after its use by `user`: that is its only use,
/// and it is defined in the user's block (a result there or an argument of
/// it), so the user's next run sees a new value.
static bool diesAt(Value value, Operation *user) {
  if (!value.hasOneUse())
    return false;
  if (auto argument = dyn_cast<BlockArgument>(value))
    return argument.getOwner() == user->getBlock();
  return value.getDefiningOp()->getBlock() == user->getBlock();
}

static Opcode arithOpcode(Operation *op) {
  return TypeSwitch<Operation *, Opcode>(op)
      .Case([](arith::AddIOp) { return Opcode::AddI; })
      .Case([](arith::SubIOp) { return Opcode::SubI; })
      .Case([](arith::MulIOp) { return Opcode::MulI; })
      .Case([](arith::AndIOp) { return Opcode::AndI; })
      .Case([](arith::OrIOp) { return Opcode::OrI; })
      .Case([](arith::XOrIOp) { return Opcode::XOrI; })
      .Case([](arith::ShLIOp) { return Opcode::ShLI; })
      .Case([](arith::ShRUIOp) { return Opcode::ShRUI; })
      .Case([](arith::ShRSIOp) { return Opcode::ShRSI; })
      .Case([](arith::MaxSIOp) { return Opcode::MaxSI; })
      .Case([](arith::MinSIOp) { return Opcode::MinSI; })
      .Case([](arith::MaxUIOp) { return Opcode::MaxUI; })
      .Case([](arith::MinUIOp) { return Opcode::MinUI; })
      .Case([](arith::AddFOp) { return Opcode::AddF; })
      .Case([](arith::SubFOp) { return Opcode::SubF; })
      .Case([](arith::MulFOp) { return Opcode::MulF; })
      .Case([](arith::MaxNumFOp) { return Opcode::MaxNumF; })
      .Case([](arith::MinNumFOp) { return Opcode::MinNumF; })
      .Case([](arith::MaximumFOp) { return Opcode::MaximumF; })
      .Case([](arith::MinimumFOp) { return Opcode::MinimumF; })
      .Case([](arith::CmpIOp) { return Opcode::CmpI; })
      .Case([](arith::CmpFOp) { return Opcode::CmpF; })
      .Case([](arith::SelectOp) { return Opcode::Select; })
      .Case<arith::ExtSIOp, arith::IndexCastOp>(
          [](Operation *) { return Opcode::SignExtend; })
      .Case<arith::ExtUIOp, arith::TruncIOp, arith::IndexCastUIOp,
            arith::BitcastOp>([](Operation *) { return Opcode::ZeroExtend; })
      .Case<arith::ExtFOp, arith::TruncFOp>(
          [](Operation *) { return Opcode::FloatConvert; })
      .Case([](arith::SIToFPOp) { return Opcode::SignedToFloat; })
      .Case([](arith::DivUIOp) { return Opcode::DivUI; })
      .Case([](arith::RemUIOp) { return Opcode::RemUI; })
      .Case([](arith::CeilDivUIOp) { return Opcode::CeilDivUI; })
      .Case([](arith::DivSIOp) { return Opcode::DivSI; })
      .Case([](arith::RemSIOp) { return Opcode::RemSI; })
      .Case([](arith::FloorDivSIOp) { return Opcode::FloorDivSI; })
      .Case([](arith::CeilDivSIOp) { return Opcode::CeilDivSI; })
      .Default([](Operation *) { return Opcode::Generic; });
}

/// `op` decoded; Generic where it is not one of the decoded ops.
static DecodedOp decodeOp(Operation *op, const Program &program) {
  DecodedOp decoded;
  decoded.op = op;
  if (op->getNumResults() != 1)
    return decoded;
  auto id = [&](Value value) { return program.valueIds.lookup(value); };
  Value result = op->getResult(0);
  decoded.result = id(result);
  decoded.count = slotCount(result.getType());
  ElementType resultType = classify(result.getType());
  decoded.resultKind = resultType.kind;
  decoded.resultBits = resultType.bits;
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    if (index == 3)
      break;
    decoded.operands[index] = id(operand);
  }
  if (op->getNumOperands() > 0) {
    ElementType operandType = classify(op->getOperand(0).getType());
    decoded.kind = operandType.kind;
    decoded.bits = operandType.bits;
  }

  if (isa<arith::ConstantOp, LLVM::ConstantOp>(op)) {
    decoded.opcode = Opcode::Copy;
    decoded.constant = &program.constants.find(op)->second;
    decoded.checkIndex = isa<arith::ConstantOp>(op) &&
                         program.indexBits == 32 &&
                         getElementTypeOrSelf(result.getType()).isIndex();
    return decoded;
  }
  if (isa<arith::ArithDialect>(op->getDialect())) {
    decoded.opcode = arithOpcode(op);
    decoded.checkIndex = program.indexBits == 32 &&
                         getElementTypeOrSelf(result.getType()).isIndex();
    if (auto compare = dyn_cast<arith::CmpIOp>(op))
      decoded.predicate = static_cast<uint8_t>(compare.getPredicate());
    if (auto compare = dyn_cast<arith::CmpFOp>(op))
      decoded.predicate = static_cast<uint8_t>(compare.getPredicate());
    // The select's condition may be i1 where the values are vectors: the
    // element kind is the values'.
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      ElementType valueType = classify(select.getTrueValue().getType());
      decoded.kind = valueType.kind;
      decoded.bits = valueType.bits;
    }
    auto fused = program.fusedProducts.find(op);
    if (fused != program.fusedProducts.end()) {
      Operation *multiply = fused->second.multiply;
      unsigned operand = fused->second.operand;
      bool subtract = isa<arith::SubFOp>(op);
      decoded.opcode = Opcode::FusedMultiplyAdd;
      decoded.operands[0] = id(multiply->getOperand(0));
      decoded.operands[1] = id(multiply->getOperand(1));
      decoded.operands[2] = id(op->getOperand(1 - operand));
      decoded.negateAddend = subtract && operand == 0;
      decoded.negateProduct = subtract && operand == 1;
    }
    return decoded;
  }
  if (auto extract = dyn_cast<vector::ExtractOp>(op)) {
    if (auto part = staticPart(extract.getSourceVectorType(),
                               extract.getStaticPosition())) {
      decoded.opcode = Opcode::Extract;
      std::tie(decoded.first, decoded.span) = *part;
    }
  } else if (auto insert = dyn_cast<vector::InsertOp>(op)) {
    if (auto part = staticPart(insert.getDestVectorType(),
                               insert.getStaticPosition())) {
      decoded.opcode = Opcode::Insert;
      std::tie(decoded.first, decoded.span) = *part;
      decoded.operands[0] = id(insert.getValueToStore());
      decoded.operands[1] = id(insert.getDest());
      decoded.reuseDestination = diesAt(insert.getDest(), op);
    }
  } else if (auto broadcast = dyn_cast<vector::BroadcastOp>(op)) {
    if (!isa<VectorType>(broadcast.getSourceType()))
      decoded.opcode = Opcode::Splat;
  } else if (auto gep = dyn_cast<LLVM::GEPOp>(op)) {
    auto indices = gep.getIndices();
    if (indices.size() == 1) {
      decoded.opcode = Opcode::GetElementPtr;
      decoded.span = storageBytes(gep.getElemType());
      if (auto constant = dyn_cast<IntegerAttr>(indices[0])) {
        decoded.constantIndex = true;
        decoded.first = constant.getInt();
      } else {
        Value index = cast<Value>(indices[0]);
        decoded.operands[1] = id(index);
        decoded.bits = classify(index.getType()).bits;
      }
    }
  } else if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
    decoded.opcode = Opcode::Load;
    decoded.alignment = load.getAlignment();
  }
  return decoded;
}

void Program::decode() {
  func->walk([&](Block *block) {
    std::vector<DecodedOp> &ops = decodedBlocks[block];
    for (Operation &op : *block)
      ops.push_back(decodeOp(&op, *this));
  });
}
