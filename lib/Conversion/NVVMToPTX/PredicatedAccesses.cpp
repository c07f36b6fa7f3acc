//===- PredicatedAccesses.cpp - guarded global loads as predicated loads
//-----===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPREDICATEDACCESSES
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// The 32-bit words of a value of `type` (a scalar or a 1-D vector of
/// integers or floats of 8 bits or more) that one predicated PTX load
/// reads: 1, 2 or 4; 0 where PTX has no such load.
static unsigned wordsOf(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (vector && vector.getRank() != 1)
    return 0;
  Type element = getElementTypeOrSelf(type);
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8)
    return 0;
  int64_t bits =
      element.getIntOrFloatBitWidth() * (vector ? vector.getNumElements() : 1);
  if (bits != 32 && bits != 64 && bits != 128)
    return 0;
  return bits / 32;
}

/// The load `ifOp` guards, where it is one: the then-branch is ops that are
/// pure and speculatable, then one plain load of global memory of 4, 8 or
/// 16 bytes (aligned so) that it yields; the else-branch is pure,
/// speculatable ops and a yield.
static LLVM::LoadOp guardedGlobalLoad(scf::IfOp ifOp) {
  if (ifOp.getNumResults() != 1 || ifOp.getElseRegion().empty())
    return {};
  Block &then = ifOp.getThenRegion().front();
  auto yield = cast<scf::YieldOp>(then.getTerminator());
  auto load = yield.getOperand(0).getDefiningOp<LLVM::LoadOp>();
  if (!load || load->getBlock() != &then || !load->hasOneUse() ||
      load.getVolatile_() || load.getNontemporal() || load.getInvariant() ||
      load.getOrdering() != LLVM::AtomicOrdering::not_atomic)
    return {};
  auto pointer = dyn_cast<LLVM::LLVMPointerType>(load.getAddr().getType());
  unsigned words = wordsOf(load.getType());
  if (!pointer || pointer.getAddressSpace() != 1 || words == 0)
    return {};
  // ld.global.v2/.v4 needs its natural alignment; a word, its own.
  if (words > 1 && load.getAlignment().value_or(0) < 4 * words)
    return {};
  auto hoistable = [&](Block &block) {
    return llvm::all_of(block.without_terminator(), [&](Operation &op) {
      return &op == load.getOperation() ||
             (op.getNumRegions() == 0 && isPure(&op));
    });
  };
  if (!hoistable(then) || !hoistable(ifOp.getElseRegion().front()))
    return {};
  return load;
}

/// `value` (of a type wordsOf takes) as a vector of `words` i32.
static Value toWords(OpBuilder &builder, Location loc, Value value,
                     unsigned words) {
  if (!isa<VectorType>(value.getType()))
    value = vector::FromElementsOp::create(
        builder, loc, VectorType::get({1}, value.getType()), value);
  return vector::BitCastOp::create(
      builder, loc, VectorType::get({words}, builder.getI32Type()), value);
}

/// `@inside ld.global` of `pointer`, its registers set to `other` first.
static Value predicatedLoad(OpBuilder &builder, Location loc, Type type,
                            Value pointer, Value inside, Value other) {
  unsigned words = wordsOf(type);
  Type i32 = builder.getI32Type();
  Value otherWords = toWords(builder, loc, other, words);
  // Operands: the results $0..$words-1, the address, the predicate, then
  // the words of `other`.
  SmallVector<Value> operands{pointer, inside};
  std::string text, constraints;
  SmallVector<std::string> results;
  for (unsigned word = 0; word < words; ++word) {
    operands.push_back(
        vector::ExtractOp::create(builder, loc, otherWords, int64_t(word)));
    text += llvm::formatv("mov.b32 ${0}, ${1};\n\t", word, words + 2 + word);
    constraints += "=r,";
    results.push_back("$" + std::to_string(word));
  }
  std::string registers =
      words == 1 ? results[0] : "{" + llvm::join(results, ", ") + "}";
  std::string width = words == 1 ? "" : ".v" + std::to_string(words);
  text += llvm::formatv("@${0} ld.global{1}.b32 {2}, [${3}];", words + 1, width,
                        registers, words);
  constraints += "l,b";
  for (unsigned word = 0; word < words; ++word)
    constraints += ",r";
  Type resultType =
      words == 1 ? i32
                 : LLVM::LLVMStructType::getLiteral(
                       builder.getContext(), SmallVector<Type>(words, i32));
  auto load = LLVM::InlineAsmOp::create(
      builder, loc, resultType, operands, text, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      /*asm_dialect=*/LLVM::AsmDialectAttr(),
      /*operand_attrs=*/ArrayAttr());
  SmallVector<Value> loaded;
  for (unsigned word = 0; word < words; ++word)
    loaded.push_back(words == 1 ? load.getResult(0)
                                : LLVM::ExtractValueOp::create(
                                      builder, loc, load.getResult(0),
                                      ArrayRef<int64_t>{word})
                                      .getResult());
  Value wordsValue = vector::FromElementsOp::create(
      builder, loc, VectorType::get({words}, i32), loaded);
  auto vector = dyn_cast<VectorType>(type);
  Value value = vector::BitCastOp::create(
      builder, loc, vector ? vector : VectorType::get({1}, type), wordsValue);
  return vector ? value : vector::ExtractOp::create(builder, loc, value, 0);
}

/// The store `ifOp` guards, where it is one: a result-less if whose
/// then-branch is pure, speculatable ops and one plain store to global
/// memory of 4, 8 or 16 bytes (aligned so), with no else-branch ops.
static LLVM::StoreOp guardedGlobalStore(scf::IfOp ifOp) {
  if (ifOp.getNumResults() != 0 ||
      (!ifOp.getElseRegion().empty() &&
       !ifOp.getElseRegion().front().without_terminator().empty()))
    return {};
  Block &then = ifOp.getThenRegion().front();
  LLVM::StoreOp store;
  for (Operation &op : then.without_terminator()) {
    if (auto found = dyn_cast<LLVM::StoreOp>(op); found && !store) {
      store = found;
      continue;
    }
    if (op.getNumRegions() != 0 || !isPure(&op))
      return {};
  }
  if (!store || store.getVolatile_() || store.getNontemporal() ||
      store.getInvariantGroup() ||
      store.getOrdering() != LLVM::AtomicOrdering::not_atomic)
    return {};
  auto pointer = dyn_cast<LLVM::LLVMPointerType>(store.getAddr().getType());
  unsigned words = wordsOf(store.getValue().getType());
  if (!pointer || pointer.getAddressSpace() != 1 || words == 0 ||
      (words > 1 && store.getAlignment().value_or(0) < 4 * words))
    return {};
  return store;
}

/// `@inside st.global` of `value` to `pointer`.
static void predicatedStore(OpBuilder &builder, Location loc, Value value,
                            Value pointer, Value inside) {
  unsigned words = wordsOf(value.getType());
  Value valueWords = toWords(builder, loc, value, words);
  SmallVector<Value> operands{inside, pointer};
  SmallVector<std::string> registers;
  std::string constraints = "b,l";
  for (unsigned word = 0; word < words; ++word) {
    operands.push_back(
        vector::ExtractOp::create(builder, loc, valueWords, int64_t(word)));
    registers.push_back("$" + std::to_string(2 + word));
    constraints += ",r";
  }
  std::string text = llvm::formatv(
      "@$0 st.global{0}.b32 [$1], {1};",
      words == 1 ? "" : ".v" + std::to_string(words),
      words == 1 ? registers[0] : "{" + llvm::join(registers, ", ") + "}");
  LLVM::InlineAsmOp::create(builder, loc, Type(), operands, text, constraints,
                            /*has_side_effects=*/true, /*is_align_stack=*/false,
                            LLVM::tailcallkind::TailCallKind::None,
                            /*asm_dialect=*/LLVM::AsmDialectAttr(),
                            /*operand_attrs=*/ArrayAttr());
}

namespace {
struct TilePredicatedAccesses
    : tile::impl::TilePredicatedAccessesBase<TilePredicatedAccesses> {
  void runOnOperation() override {
    SmallVector<std::pair<scf::IfOp, LLVM::LoadOp>> guarded;
    getOperation().walk([&](scf::IfOp ifOp) {
      if (LLVM::LoadOp load = guardedGlobalLoad(ifOp))
        guarded.push_back({ifOp, load});
    });
    for (auto [ifOp, load] : guarded) {
      Block &otherwise = ifOp.getElseRegion().front();
      Value other = otherwise.getTerminator()->getOperand(0);
      for (Block *block : {&ifOp.getThenRegion().front(), &otherwise})
        for (Operation &op :
             llvm::make_early_inc_range(block->without_terminator()))
          if (&op != load.getOperation())
            op.moveBefore(ifOp);
      OpBuilder builder(ifOp);
      Value value = predicatedLoad(builder, load.getLoc(), load.getType(),
                                   load.getAddr(), ifOp.getCondition(), other);
      ifOp.getResult(0).replaceAllUsesWith(value);
      ifOp.erase();
    }
    // Stores: the guarded store of a slice's checked path is otherwise the
    // unchecked path's, and LLVM sinks both under one guard.
    SmallVector<std::pair<scf::IfOp, LLVM::StoreOp>> stores;
    getOperation().walk([&](scf::IfOp ifOp) {
      // In a loop only: an access outside runs once, and keeps the
      // branch ptxas if-converts.
      LLVM::StoreOp store = guardedGlobalStore(ifOp);
      if (store && ifOp->getParentOfType<LoopLikeOpInterface>())
        stores.push_back({ifOp, store});
    });
    for (auto [ifOp, store] : stores) {
      for (Operation &op : llvm::make_early_inc_range(
               ifOp.getThenRegion().front().without_terminator()))
        if (&op != store.getOperation())
          op.moveBefore(ifOp);
      OpBuilder builder(ifOp);
      predicatedStore(builder, store.getLoc(), store.getValue(),
                      store.getAddr(), ifOp.getCondition());
      ifOp.erase();
    }
  }
};
} // namespace
