//===- TensorCores.cpp - which dots run on mma.sync, in which layout ------===//
//
// A dot of f16 or bf16 tiles accumulating in f32 runs on tensor cores
// (mma.sync.m16n8k16, sm_80 and newer) when the CTA's warps tile its result
// in blocks of whole [16, 8] mma tiles. Its result is then in the
// accumulator's fragment layout (#tile.mma), and so is every tile joined to
// it by elementwise ops, loop-carried values and local vars (the `acc` of
// `acc += dot(a, b)`), as long as every one of them is made and used only by
// ops that address elements by their coordinates; the add of `acc += ...`
// folds into the dot (its accumulator operand), so mma.sync accumulates in
// place. Masks built from `iota` are built in the mma layout too, and row
// reductions of the group run where its tiles live: their [R, 1] results,
// and every row statistic combined with them (a loop's running maximum and
// sum), are in #tile.rows of the mma layout, a slice of it, and broadcast
// back over the rows for free, so flash attention's S, P, m and l never
// leave registers. A tile of the group that needs the cyclic distribution
// (a reshape, a column reduction, ...) makes the dot's result convert
// once, through a shared var, where it is made.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/ThreadMapping.h"
#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "Wgmma.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILETENSORCORES
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The warps of a CTA of `threads` in a grid over a dot's [M, N] result,
/// each computing a block of whole [16, 8] mma tiles; among the grids that
/// fit, the one whose warps load the fewest ldmatrix per 16 of K (A: one
/// x4 per 16 rows; B: one x4 per 16 columns), then the one with more warps
/// along M (as Triton's). Fails with the reason.
FailureOr<MmaLayoutAttr> chooseWarps(DotOp dot, int64_t threads,
                                     std::string &why) {
  RankedTensorType type = dot.getType();
  int64_t m = type.getDimSize(0), n = type.getDimSize(1),
          k = dot.getLhs().getType().getDimSize(1);
  if (m % kMmaM || n % kMmaN || k % getMmaK(dot)) {
    why = llvm::formatv("its shape [{0}, {1}] x [{1}, {2}] is not made of "
                        "whole mma tiles (M a multiple of 16, N of 8, K of "
                        "{3})",
                        m, k, n, getMmaK(dot));
    return failure();
  }
  // (A tf32 dot's operands are loaded a word a thread, 4 of A per 16 rows
  // and 2 of B per 8 columns per 8 of K: the same order of grids.)
  int64_t warps = threads / kLanes, best = -1, bestCost = 0;
  for (int64_t warpsM = warps; warpsM >= 1; --warpsM) {
    if (warps % warpsM || (m / kMmaM) % warpsM ||
        (n / kMmaN) % (warps / warpsM))
      continue;
    int64_t blockM = m / warpsM, blockN = n / (warps / warpsM);
    int64_t cost = blockM / kMmaM + llvm::divideCeil(blockN, 2 * kMmaN);
    if (best < 0 || cost < bestCost) {
      best = warpsM;
      bestCost = cost;
    }
  }
  if (best < 0) {
    why = llvm::formatv("the {0} warps of the CTA cannot tile its [{1}, {2}] "
                        "result in blocks of whole [16, 8] mma tiles",
                        warps, m, n);
    return failure();
  }
  return MmaLayoutAttr::get(dot.getContext(), best, warps / best);
}

/// Why `dot` cannot run on tensor cores for `chip`, or empty.
std::string whyNotTensorCores(DotOp dot, int chip) {
  Type in = dot.getLhs().getType().getElementType();
  Type out = dot.getType().getElementType();
  bool tf32 = dot.getPrecision() == DotPrecision::tf32;
  if (in.isInteger())
    return llvm::formatv("{0} operands: tensor cores have no {0} products; "
                         "SIMT products and sums, exact in {1} (wrapping as "
                         "integer arithmetic does)",
                         in, out);
  if (!(in.isF16() || in.isBF16() || tf32))
    return in.isF32() ? "f32 operands: exact SIMT products (tensor cores "
                        "would round them to tf32; `precision = tf32` asks "
                        "for that)"
                      : "";
  if (tf32 && chip < kMinMmaChip)
    return llvm::formatv("sm_{0} has no mma.sync.m16n8k8 of tf32 (sm_80 and "
                         "newer); the products are exact f32 products of the "
                         "operands rounded to tf32",
                         chip);
  if (!out.isF32())
    return llvm::formatv("it accumulates in {0}; mma.sync accumulates {1} "
                         "in f32",
                         out, in);
  if (chip < kMinMmaChip)
    return llvm::formatv("sm_{0} has no mma.sync.m16n8k16 (sm_80 and newer)",
                         chip);
  return "";
}

/// A var whose storage is shared whatever the plan says (its reads and
/// writes address elements by coordinates, so their layouts need not be the
/// same): a spill, a ring, a var requested shared, or one an op other than
/// tile.read and tile.write takes.
bool isCertainlyShared(VarOp var) {
  return var->hasAttr(kSpillOfAttr) || var.getStorage() == Storage::shared ||
         var.isRing() || llvm::any_of(var->getUsers(), [](Operation *user) {
           return !isa<ReadOp, WriteOp>(user);
         });
}

/// The decisions of tile-tensor-cores on one kernel (see the file's
/// comment); run once per kernel.
class TensorCoreAssignment {
public:
  TensorCoreAssignment(int chip, bool remarks) : chip(chip), remarks(remarks) {}

  LogicalResult run(KernelOp kernel) {
    SmallVector<DotOp> dots;
    WalkResult walked = kernel.walk([&](DotOp dot) {
      std::string why = whyNotTensorCores(dot, chip);
      FailureOr<MmaLayoutAttr> layout = failure();
      if (why.empty())
        layout = chooseWarps(dot, kernel.getThreads(), why);
      if (failed(layout)) {
        // A result type in #tile.mma (written by hand, or by an earlier
        // run for another chip) the dot cannot keep.
        if (getMmaLayout(dot)) {
          dot.emitError("result in #tile.mma, but the dot cannot run on "
                        "tensor cores: ")
              << why;
          return WalkResult::interrupt();
        }
        if (remarks && !why.empty())
          emitRemark(dot.getLoc()) << "dot stays SIMT: " << why;
        return WalkResult::advance();
      }
      // The dot runs on tensor cores: its result is in the mma layout
      // whatever its group decides (a group that keeps the cyclic
      // distribution converts it through a shared var, finish).
      setLayout(dot.getResult(), *layout);
      dots.push_back(dot);
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return failure();
    if (dots.empty())
      return success();
    chooseWgmma(kernel, dots, chip, notWgmma);
    // In a kernel that reads ctx.thread, which thread holds which element
    // is observable (a per-thread value splat over a tile, a store under a
    // branch only some threads take): every tile keeps the cyclic
    // distribution, and the dots convert their results where they are made.
    kernel.walk([&](ThreadIdOp read) {
      threadRead = read;
      return WalkResult::interrupt();
    });
    separateConstants(kernel);
    buildGroups(kernel);
    if (!threadRead && convertAtPinningUses()) {
      groups = llvm::EquivalenceClasses<Value>();
      sharedVars.clear();
      buildGroups(kernel);
    }
    decideGroups(kernel);
    decideRowStatistics(kernel);
    for (DotOp dot : dots)
      finish(dot);
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Groups of tiles that share a layout
  //===--------------------------------------------------------------------===//

  /// A constant or splat used by several ops becomes one per use, so that
  /// tiles which merely share a literal do not share a layout.
  void separateConstants(KernelOp kernel) {
    SmallVector<Operation *> shared;
    kernel.walk([&](Operation *op) {
      if ((isa<SplatOp>(op) || isa<arith::ConstantOp>(op)) &&
          op->getNumResults() == 1 &&
          isa<RankedTensorType>(op->getResult(0).getType()) &&
          !op->getResult(0).hasOneUse() && !op->use_empty())
        shared.push_back(op);
    });
    for (Operation *op : shared) {
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : op->getResult(0).getUses())
        uses.push_back(&use);
      for (OpOperand *use : llvm::drop_begin(uses)) {
        OpBuilder builder(op);
        use->set(builder.clone(*op)->getResult(0));
      }
    }
  }

  void addTile(Value value) {
    if (isa<RankedTensorType>(value.getType()))
      groups.insert(value);
  }
  void join(Value a, Value b) {
    if (isa<RankedTensorType>(a.getType()) &&
        isa<RankedTensorType>(b.getType()))
      groups.unionSets(a, b);
  }

  void buildGroups(KernelOp kernel) {
    kernel.walk([&](Operation *op) {
      llvm::for_each(op->getResults(), [&](Value v) { addTile(v); });
      for (Region &region : op->getRegions())
        for (Block &block : region)
          llvm::for_each(block.getArguments(), [&](Value v) { addTile(v); });
    });
    kernel.walk([&](Operation *op) {
      if (isSameShapeElementwise(op)) {
        for (Value operand : op->getOperands())
          join(operand, op->getResult(0));
      } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        for (auto [init, arg, yielded, result] :
             llvm::zip_equal(loop.getInitArgs(), loop.getRegionIterArgs(),
                             yield.getOperands(), loop.getResults())) {
          join(init, arg);
          join(arg, yielded);
          join(yielded, result);
        }
      } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
        for (Region *region :
             {&branch.getThenRegion(), &branch.getElseRegion()})
          if (!region->empty())
            for (auto [yielded, result] :
                 llvm::zip_equal(region->front().getTerminator()->getOperands(),
                                 branch.getResults()))
              join(yielded, result);
      } else if (auto dot = dyn_cast<DotOp>(op)) {
        if (dot.getAcc())
          join(dot.getAcc(), dot.getResult());
      } else if (auto store = dyn_cast<StoreOp>(op)) {
        // A masked store reads its mask slot by slot with the value's.
        if (store.getMask())
          join(store.getValue(), store.getMask());
      } else if (auto var = dyn_cast<VarOp>(op)) {
        joinVar(var);
      }
    });
  }

  /// A var the plan may keep in registers holds its values slot by slot:
  /// all of them share a layout. A certainly shared var's reads address it
  /// by coordinates, in a layout of their own.
  void joinVar(VarOp var) {
    if (var.getVarType().isScalar())
      return;
    SmallVector<Value> written, read;
    if (var.getInit())
      written.push_back(var.getInit());
    for (Operation *user : var->getUsers()) {
      if (auto write = dyn_cast<WriteOp>(user))
        written.push_back(write.getValue());
      else if (auto load = dyn_cast<ReadOp>(user))
        read.push_back(load.getResult());
    }
    bool shared = isCertainlyShared(var);
    if (!shared)
      written.append(read.begin(), read.end());
    // (A ring's values are its stages' reads and copies: none here.)
    for (Value value : written)
      join(written.front(), value);
    if (shared) {
      for (Value value : read)
        join(read.front(), value);
      if (!written.empty() && !read.empty())
        sharedVars.push_back({written.front(), read.front()});
    }
  }

  /// Whether `value` may be made in any layout: by an op that computes
  /// each element from its coordinates, or as a loop-carried value whose
  /// init and yields share its group.
  static bool isMadeAnywhere(Value value) {
    if (auto arg = dyn_cast<BlockArgument>(value))
      return isa<scf::ForOp>(arg.getOwner()->getParentOp());
    Operation *def = value.getDefiningOp();
    // An iota computes each element from its coordinates, in any layout.
    if (isSameShapeElementwise(def) ||
        isa<SplatOp, LoadOp, ReadOp, IotaOp>(def) ||
        isa<scf::ForOp, scf::IfOp>(def))
      return true;
    if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      return dense && dense.isSplat();
    }
    if (auto dot = dyn_cast<DotOp>(def))
      return getMmaLayout(dot) != nullptr;
    if (auto broadcast = dyn_cast<BroadcastOp>(def))
      return readsAcrossThreads(broadcast->getOpOperand(0));
    return false;
  }

  /// Whether `use` takes its tile in any layout.
  static bool isUsedAnywhere(OpOperand &use) {
    Operation *user = use.getOwner();
    if (isSameShapeElementwise(user) || isa<StoreOp, WriteOp, VarOp>(user))
      return true;
    if (isa<scf::YieldOp>(user))
      return isa<scf::ForOp, scf::IfOp>(user->getParentOp());
    // A loop's init, which shares its iter_arg's group.
    if (auto loop = dyn_cast<scf::ForOp>(user))
      return use.getOperandNumber() >= loop.getNumControlOperands();
    if (auto dot = dyn_cast<DotOp>(user); dot && use.get() == dot.getAcc())
      return true;
    // A row reduction runs where the rows live when the group's layout
    // allows it (checked in decideGroups, once the layout is known).
    if (isRowReduction(user) && use.getOperandNumber() == 0)
      return true;
    // Read from a shared var, by coordinates.
    return readsAcrossThreads(use);
  }

  /// Whether `op` reduces the rows of a tile to [R, 1] combining values
  /// only (an argmax carries indices, which in-place plans do not).
  static bool isRowReduction(Operation *op) {
    auto reduction = dyn_cast<ReductionOpInterface>(op);
    return reduction && reduction.getAxis() == 1 &&
           reduction.getKind() != ReductionKind::argmax;
  }

  /// The first row reduction of `value` whose rows do not reduce where
  /// they live in `layout` (which lanes hold a row differ between rows, or
  /// an element type shuffles do not carry), or null.
  static Operation *rowsThatCannotReduce(Value value, MmaLayoutAttr layout,
                                         int64_t threads) {
    for (Operation *user : value.getUsers())
      if (isRowReduction(user) &&
          !getRowReductionPlan(layout, cast<RankedTensorType>(value.getType()),
                               threads))
        return user;
    return nullptr;
  }

  /// The member of `value`'s group that needs the cyclic distribution: an
  /// op that makes or uses it slot by slot.
  static Operation *pinsDistribution(Value value) {
    if (!isMadeAnywhere(value))
      return value.getDefiningOp() ? value.getDefiningOp()
                                   : value.getParentBlock()->getParentOp();
    for (OpOperand &use : value.getUses())
      if (!isUsedAnywhere(use))
        return use.getOwner();
    return nullptr;
  }

  /// A group of a tensor-core dot whose members are all made in any layout
  /// but some of whose uses need the cyclic distribution (an in-place row
  /// reduction of the loop's result, a reshape, ...) converts at those
  /// uses: each reads the value through a shared var of its own
  /// (`mma.convert`), written right before it, so the rest of the group
  /// (the accumulator through the loop) keeps the fragments and the
  /// conversion runs where the use does, after the loop for a use after
  /// it. Returns whether it converted any use.
  bool convertAtPinningUses() {
    SmallVector<OpOperand *> pinning;
    for (auto it = groups.begin(); it != groups.end(); ++it) {
      if (!(*it)->isLeader())
        continue;
      Group group;
      SmallVector<OpOperand *> uses;
      bool madeAnywhere = true;
      for (auto member = groups.member_begin(**it);
           member != groups.member_end(); ++member) {
        Value value = *member;
        if (auto dot = value.getDefiningOp<DotOp>(); dot && getMmaLayout(dot))
          group.addSource(getMmaLayout(dot));
        madeAnywhere &= isMadeAnywhere(value);
        for (OpOperand &use : value.getUses())
          if (!isUsedAnywhere(use))
            uses.push_back(&use);
      }
      if (group.layout && !group.conflict && madeAnywhere)
        pinning.append(uses.begin(), uses.end());
    }
    for (OpOperand *use : pinning) {
      Operation *user = use->getOwner();
      OpBuilder builder(user);
      auto type = cast<RankedTensorType>(use->get().getType());
      auto var = VarOp::create(builder, user->getLoc(), "mma.convert",
                               VarType::get(user->getContext(), type.getShape(),
                                            type.getElementType()),
                               use->get());
      var.setStorage(Storage::shared);
      use->set(ReadOp::create(builder, user->getLoc(), var));
      if (remarks)
        emitRemark(user->getLoc())
            << "'" << user->getName().getStringRef()
            << "' needs its operand in seed 000's distribution: it converts "
               "from the mma accumulator layout here, through shared var "
               "'mma.convert'";
    }
    return !pinning.empty();
  }

  void decideGroups(KernelOp kernel) {
    // Per group: its tensor-core dots' layout (null when they disagree) and
    // the first member that needs the cyclic distribution.
    for (auto it = groups.begin(); it != groups.end(); ++it) {
      if (!(*it)->isLeader())
        continue;
      Group &group = decided[(*it)->getData()];
      for (auto member = groups.member_begin(**it);
           member != groups.member_end(); ++member) {
        Value value = *member;
        if (auto dot = value.getDefiningOp<DotOp>(); dot && getMmaLayout(dot))
          group.addSource(getMmaLayout(dot));
        if (!group.pin)
          group.pin = threadRead ? threadRead : pinsDistribution(value);
      }
      for (auto member = groups.member_begin(**it);
           group.mma() && member != groups.member_end(); ++member)
        group.pin =
            rowsThatCannotReduce(*member, group.layout, kernel.getThreads());
    }
    // A certainly shared var's reads take the layout its writes have, when
    // nothing pins them: the plan then drops a spill no other thread reads.
    for (bool changed = true; changed;) {
      changed = false;
      for (auto [written, read] : sharedVars) {
        Group &from = groupOf(written), &to = groupOf(read);
        if (!from.mma() || to.pin || to.mma() || to.conflict)
          continue;
        to.addSource(from.layout);
        changed = true;
      }
    }
    for (auto &[leader, group] : decided) {
      if (!group.mma())
        continue;
      // The decision, in the types of the whole group: elementwise ops,
      // loops, branches and register vars join only tiles of one layout.
      for (auto member = groups.findLeader(leader);
           member != groups.member_end(); ++member) {
        setLayout(*member, group.layout);
        if (remarks && (*member).getDefiningOp<IotaOp>())
          emitRemark((*member).getLoc())
              << "iota built in the mma accumulator layout " << group.layout
              << ", where the tiles it is combined with live: no "
                 "conversion of the dot's result";
      }
    }
  }

  //===--------------------------------------------------------------------===//
  // Row statistics in a slice of the mma layout
  //===--------------------------------------------------------------------===//

  /// Gives the [R, 1] results of the row reductions of each mma group, and
  /// every tile joined to them (the running maximum and sum of an online
  /// softmax: their vars, the elementwise ops that combine them, their
  /// constants), #tile.rows of the mma layout, where every one of them is
  /// made and used where its rows live: each lane of a row then holds the
  /// row's statistic, computes with it redundantly, and broadcasts it back
  /// over the rows of a tile of the mma layout without moving it. A group
  /// that another use needs in the cyclic distribution keeps it (the
  /// reductions' results are converted at their uses, by tile-plan-shared).
  void decideRowStatistics(KernelOp kernel) {
    DenseMap<Value, RowsLayoutAttr> rowsOf; // by group leader; null: conflict
    DenseMap<Value, Operation *> firstReduction;
    kernel.walk([&](ReductionOpInterface reduction) {
      if (!isRowReduction(reduction))
        return;
      Group &source = groupOf(reduction.getInput());
      if (!source.mma())
        return;
      auto rows = RowsLayoutAttr::get(
          kernel.getContext(), reduction.getInput().getType().getDimSize(1),
          source.layout);
      Value leader = groups.getLeaderValue(reduction.getResult());
      auto [it, inserted] = rowsOf.try_emplace(leader, rows);
      if (!inserted && it->second != rows)
        it->second = RowsLayoutAttr();
      firstReduction.try_emplace(leader, reduction);
    });
    for (auto [leader, rows] : rowsOf) {
      if (!rows)
        continue;
      Operation *blocker = nullptr;
      for (auto member = groups.findLeader(leader);
           member != groups.member_end() && !blocker; ++member)
        blocker = blocksRows(*member, rows);
      Operation *reduction = firstReduction.lookup(leader);
      if (blocker) {
        if (remarks)
          emitRemark(reduction->getLoc())
              << "row statistics of the mma accumulator layout convert to "
                 "seed 000's distribution: '"
              << blocker->getName().getStringRef() << "'" << lineOf(blocker)
              << " needs them there";
        continue;
      }
      layOutRows(kernel, leader, rows);
      if (remarks)
        emitRemark(reduction->getLoc())
            << "row statistics stay in registers in " << rows
            << ", a slice of the mma accumulator layout: the reduction runs "
               "where the rows live, the statistics it is combined with are "
               "computed in every lane of their row, and broadcasts back over "
               "the rows move nothing";
    }
  }

  /// The op that keeps `value`, a row statistic, out of `rows`: one that
  /// makes or uses it other than by its rows; null when none does.
  Operation *blocksRows(Value value, RowsLayoutAttr rows) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (!isa<scf::ForOp>(owner) || arg.getArgNumber() == 0)
        return owner;
    } else {
      Operation *def = value.getDefiningOp();
      bool made = isSameShapeElementwise(def) ||
                  isa<SplatOp, scf::ForOp, scf::IfOp>(def) ||
                  isa<ReductionOpInterface>(def);
      if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
        auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
        made = dense && dense.isSplat();
      }
      if (auto read = dyn_cast<ReadOp>(def)) {
        VarOp var = getVarOp(read.getVar());
        made = var && !isCertainlyShared(var);
      }
      // A reduction's result is in the rows of its input's layout.
      if (isa<ReductionOpInterface>(def) &&
          Attribute(getLayout(value)) != Attribute(rows))
        made = false;
      if (!made)
        return def;
    }
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isSameShapeElementwise(user) || isa<ConvertLayoutOp>(user))
        continue;
      if (isa<scf::YieldOp>(user) &&
          isa<scf::ForOp, scf::IfOp>(user->getParentOp()))
        continue;
      if (auto loop = dyn_cast<scf::ForOp>(user);
          loop && use.getOperandNumber() >= loop.getNumControlOperands())
        continue;
      if (auto var = dyn_cast<VarOp>(user); var && !isCertainlyShared(var))
        continue;
      if (auto write = dyn_cast<WriteOp>(user)) {
        VarOp var = getVarOp(write.getVar());
        if (var && !isCertainlyShared(var))
          continue;
      }
      // The first lane of each row stores it.
      if (auto store = dyn_cast<StoreOp>(user);
          store && use.get() == store.getValue() && !store.getMask())
        continue;
      // Back over rows of its own length, into a tile of the parent layout,
      // for free; over others, from shared memory.
      if (auto broadcast = dyn_cast<BroadcastOp>(user)) {
        Group &target = groupOf(broadcast.getResult());
        if (broadcast.getType().getDimSize(1) != rows.getColumns() ||
            (target.mma() &&
             Attribute(target.layout) == Attribute(rows.getParent())))
          continue;
      }
      return user;
    }
    return nullptr;
  }

  /// Writes `rows` into the types of the members of `leader`'s group and
  /// into the `layout` of the vars that hold them.
  void layOutRows(KernelOp kernel, Value leader, RowsLayoutAttr rows) {
    DenseSet<Value> members;
    for (auto member = groups.findLeader(leader); member != groups.member_end();
         ++member) {
      members.insert(*member);
      setLayout(*member, rows);
    }
    kernel.walk([&](VarOp var) {
      if (var.getVarType().isScalar() || isCertainlyShared(var))
        return;
      bool holds = var.getInit() && members.contains(var.getInit());
      for (Operation *user : var->getUsers())
        if (auto read = dyn_cast<ReadOp>(user))
          holds |= members.contains(read.getResult());
        else if (auto write = dyn_cast<WriteOp>(user))
          holds |= members.contains(write.getValue());
      if (holds)
        var.setLayoutAttr(rows);
    });
  }

  static std::string lineOf(Operation *op) {
    if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
      return " at line " + std::to_string(loc.getLine());
    return "";
  }

  /// Folds `acc + dot(a, b)` into the dot's accumulator where both share
  /// the mma layout; a dot whose group keeps the cyclic distribution
  /// converts its result through a shared var.
  void finish(DotOp dot) {
    Group &group = groupOf(dot.getResult());
    MmaLayoutAttr layout = getMmaLayout(dot);
    if (!group.mma()) {
      OpBuilder builder(dot->getContext());
      builder.setInsertionPointAfter(dot);
      auto type = VarType::get(dot.getContext(), dot.getType().getShape(),
                               dot.getType().getElementType());
      auto var = VarOp::create(builder, dot.getLoc(), "dot.result", type,
                               dot.getResult());
      var.setStorage(Storage::shared);
      // Read in the cyclic distribution, the layout of the rest of its group.
      auto read = ReadOp::create(builder, dot.getLoc(), var);
      dot.getResult().replaceAllUsesExcept(read, var);
      if (remarks) {
        InFlightDiagnostic remark = emitRemark(dot.getLoc());
        remark << "dot on tensor cores: " << describe(dot, layout)
               << "; its result converts from the mma accumulator layout "
                  "through shared var 'dot.result', since "
               << describePin(group) << describeNotWgmma(dot);
      }
      return;
    }
    if (dot.getResult().hasOneUse() && !dot.getAcc())
      if (auto add = dyn_cast<arith::AddFOp>(*dot->getUsers().begin())) {
        Value other =
            add.getLhs() == dot.getResult() ? add.getRhs() : add.getLhs();
        dot.getAccMutable().assign(other);
        // The sum is the dot's, in the add's place in the program.
        dot->moveBefore(add);
        add.getResult().replaceAllUsesWith(dot.getResult());
        add.erase();
      }
    if (remarks)
      emitRemark(dot.getLoc())
          << "dot on tensor cores: " << describe(dot, layout)
          << (dot.getAcc() ? "; accumulating in place in the mma accumulator "
                             "layout "
                           : "; its result in the mma "
                             "accumulator layout ")
          << layout << describeNotWgmma(dot);
  }

  /// Why a dot on mma.sync on sm_90 is not on wgmma, for its remark.
  std::string describeNotWgmma(DotOp dot) const {
    auto why = notWgmma.find(dot);
    return why == notWgmma.end() ? "" : "; not on wgmma: " + why->second;
  }

  static std::string describe(DotOp dot, MmaLayoutAttr layout) {
    RankedTensorType type = dot.getType();
    if (dot.getWgmma())
      return describeWgmma(dot);
    int64_t blockM = type.getDimSize(0) / layout.getWarpsM(),
            blockN = type.getDimSize(1) / layout.getWarpsN();
    int64_t k = dot.getLhs().getType().getDimSize(1);
    if (dot.getPrecision() == DotPrecision::tf32)
      return llvm::formatv(
          "mma.sync.m16n8k8 of tf32, {0} x {1} warps each computing a [{2}, "
          "{3}] block: {4} mma.sync a warp and {5} shared loads a thread",
          layout.getWarpsM(), layout.getWarpsN(), blockM, blockN,
          (blockM / kMmaM) * (blockN / kMmaN) * (k / kMmaKTF32),
          (4 * (blockM / kMmaM) + 2 * (blockN / kMmaN)) * (k / kMmaKTF32));
    return llvm::formatv(
        "mma.sync.m16n8k16 of {0}, {1} x {2} warps each computing a [{3}, "
        "{4}] block: {5} mma.sync and {6} ldmatrix a warp",
        dot.getLhs().getType().getElementType(), layout.getWarpsM(),
        layout.getWarpsN(), blockM, blockN,
        (blockM / kMmaM) * (blockN / kMmaN) * (k / kMmaK),
        (blockM / kMmaM + llvm::divideCeil(blockN, 2 * kMmaN)) * (k / kMmaK));
  }

  struct Group {
    MmaLayoutAttr layout;
    bool conflict = false;
    Operation *pin = nullptr;
    void addSource(MmaLayoutAttr source) {
      if (layout && layout != source)
        conflict = true;
      layout = source;
    }
    bool mma() const { return layout && !conflict && !pin; }
  };

  std::string describePin(const Group &group) {
    if (group.conflict)
      return "tiles it shares a layout with take two mma layouts";
    std::string text;
    llvm::raw_string_ostream os(text);
    if (isa<ThreadIdOp>(group.pin)) {
      os << "the kernel reads ctx.thread" << lineOf(group.pin)
         << ", which makes the thread that holds each element observable";
      return text;
    }
    os << "'" << group.pin->getName().getStringRef() << "'"
       << lineOf(group.pin);
    if (isRowReduction(group.pin))
      os << " cannot reduce its rows where they live in the mma layout";
    else
      os << " needs it in seed 000's distribution";
    return text;
  }

  Group &groupOf(Value value) { return decided[groups.getLeaderValue(value)]; }

  int chip;
  bool remarks;
  llvm::EquivalenceClasses<Value> groups;
  DenseMap<Value, Group> decided;
  /// The kernel's first read of ctx.thread, if any.
  Operation *threadRead = nullptr;
  /// Each certainly shared var's first written and first read value.
  SmallVector<std::pair<Value, Value>> sharedVars;
  /// Why each tensor-core dot that stays on mma.sync on sm_90 is not on
  /// wgmma.
  DenseMap<Operation *, std::string> notWgmma;
};

struct TileTensorCores : tile::impl::TileTensorCoresBase<TileTensorCores> {
  using Base::Base;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    FailureOr<int> chipNumber = parseChip(chip);
    if (failed(chipNumber)) {
      kernel.emitError("unsupported chip '") << chip << "'";
      return signalPassFailure();
    }
    if (failed(TensorCoreAssignment(*chipNumber, remarks).run(kernel)))
      return signalPassFailure();
  }
};

} // namespace

void mlir::tile::assignTensorCores(KernelOp kernel, int chip) {
  (void)TensorCoreAssignment(chip, /*remarks=*/false).run(kernel);
}
