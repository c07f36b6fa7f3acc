//===- PlacementDump.cpp - print where each tile lives, as JSON -----------===//
//
// The input of utils/placement-figure.py, which draws the figure pair of
// docs/spec.md; also a readable summary of a kernel's storage decisions.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Dialect/Tile/Transforms/RegisterPromotion.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/JSON.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPLACEMENTDUMP
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

static void writeTileType(llvm::json::OStream &json, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  json.attributeArray("shape", [&] {
    for (int64_t size : tensor.getShape())
      json.value(size);
  });
  std::string element;
  llvm::raw_string_ostream(element) << tensor.getElementType();
  json.attribute("element", element);
}

static void writePosition(llvm::json::OStream &json, Operation *op) {
  int64_t depth = 0;
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    depth += isa<scf::ForOp, scf::WhileOp>(parent);
  json.attribute("loop_depth", depth);
  if (auto pos = op->getLoc()->findInstanceOf<FileLineColLoc>())
    json.attribute("line", static_cast<int64_t>(pos.getLine()));
}

static void writeVar(llvm::json::OStream &json, VarOp var) {
  json.object([&] {
    json.attribute("name", var.getName());
    writeTileType(json, var.getVarType().getValueType());
    json.attribute("storage", isInRegisters(var) ? "registers" : "shared");
    if (auto of = var->getAttrOfType<StringAttr>(kSpillOfAttr))
      json.attribute("spill_of", of.getValue());
    json.attributeArray("accesses", [&] {
      if (var.getInit())
        json.object([&] {
          json.attribute("kind", "init");
          writePosition(json, var);
        });
      var->getParentOfType<KernelOp>().walk([&](Operation *op) {
        auto read = dyn_cast<ReadOp>(op);
        auto write = dyn_cast<WriteOp>(op);
        if ((!read || read.getVar() != var) &&
            (!write || write.getVar() != var))
          return;
        json.object([&] {
          json.attribute("kind", read ? "read" : "write");
          writePosition(json, op);
          if (!read)
            return;
          // A read that needs other threads' elements must wait for their
          // writes: a barrier in shared memory.
          bool crossThread = false;
          std::string reason;
          SmallVector<OpOperand *> uses;
          for (OpOperand &use : read.getResult().getUses()) {
            crossThread |= classifyRegisterUse(use, reason) !=
                           RegisterUseKind::Elementwise;
            uses.push_back(&use);
          }
          json.attribute("cross_thread", crossThread);
          json.attributeArray("users", [&] {
            for (OpOperand *use : llvm::reverse(uses))
              json.value(use->getOwner()->getName().getStringRef());
          });
        });
      });
    });
  });
}

namespace {
struct TilePlacementDump
    : public tile::impl::TilePlacementDumpBase<TilePlacementDump> {
  void runOnOperation() override {
    llvm::json::OStream json(llvm::outs(), /*IndentSize=*/2);
    json.object([&] {
      json.attributeArray("kernels", [&] {
        getOperation().walk([&](KernelOp kernel) {
          json.object([&] {
            json.attribute("name", kernel.getSymName());
            json.attribute("threads", kernel.getThreads());
            json.attributeArray("loops", [&] {
              kernel.walk([&](Operation *op) {
                if (isa<scf::ForOp, scf::WhileOp>(op))
                  json.object([&] { writePosition(json, op); });
              });
            });
            json.attributeArray("tiles", [&] {
              writePromoted(json, kernel);
              kernel.walk([&](VarOp var) {
                if (!var.getVarType().isScalar())
                  writeVar(json, var);
              });
            });
          });
        });
      });
    });
    llvm::outs() << "\n";
    markAllAnalysesPreserved();
  }

  /// The vars tile-promote-registers turned into registers.
  static void writePromoted(llvm::json::OStream &json, KernelOp kernel) {
    auto promoted = kernel->getAttrOfType<ArrayAttr>(kPromotedAttr);
    if (!promoted)
      return;
    for (auto record : promoted.getAsRange<PromotedVarAttr>())
      json.object([&] {
        json.attribute("name", record.getName().getValue());
        writeTileType(json, record.getType());
        json.attribute("storage", "registers");
        json.attribute("slots", record.getSlots());
        json.attribute("shuffles", record.getShuffles());
        json.attribute("spills", record.getSpills());
        json.attributeArray("accesses", [] {});
      });
  }
};
} // namespace
