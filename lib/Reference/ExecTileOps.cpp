//===- ExecTileOps.cpp - the tile dialect's compute ops -------------------===//
//
// Index ops, reductions, dot, transpose, reshape, iota, where and the
// rest of the tile dialect that is neither memory nor control flow.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::reference;

/// `x` (an f32) rounded to tf32, as a dot of precision tf32 takes its
/// operands: 11 significant bits (10 stored), to nearest with ties away
/// from zero (cvt.rna.tf32.f32); f32's exponent range, so below 2^-126 the
/// step is that of the smallest tf32, 2^-136. Computed on the value, not
/// on its bits, apart from the lowering's rounding.
static double roundToTF32(double x) {
  if (!std::isfinite(x) || x == 0)
    return x;
  int exponent;
  std::frexp(x, &exponent); // |x| = m 2^exponent, m in [0.5, 1)
  double step = std::ldexp(1.0, std::max(exponent - 11, -136));
  return std::round(x / step) * step;
}

LogicalResult Interpreter::executeTileOp(Operation &op) {
  auto setIndex = [&](int64_t value) {
    Val val = Val::zeros(op.getResult(0).getType());
    val.ints[0] = value;
    set(op.getResult(0), std::move(val));
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      // Whole tiles at a time: every thread is always at the same op.
      .Case([&](BarrierOp) { return success(); })
      .Case([&](ThreadIdOp id) {
        Val val = Val::zeros(id.getType(), threads);
        for (int64_t t = 0; t < threads; ++t)
          val.ints[t] = t;
        set(id.getResult(), std::move(val));
        return success();
      })
      .Case([&](NumThreadsOp) { return setIndex(threads); })
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
      .Case([&](VarOp var) -> LogicalResult {
        if (std::optional<int64_t> stages = var.getStages()) {
          // Declared again (in a loop): every stage undefined again.
          if (!active.empty())
            return op.emitError("the interp backend declares a ring only "
                                "where every thread runs");
          rings[var.getResult()].assign(*stages, VarState());
          return success();
        }
        if (var.getInit())
          return writeVar(var.getResult(), get(var.getInit()));
        // Declared again (in a loop): undefined again for its threads.
        VarState &state = vars[var.getResult()];
        if (active.empty() || !state.value) {
          state = VarState();
          return success();
        }
        if (state.written.empty())
          state.written.assign(threads, 1);
        for (int64_t t = 0; t < threads; ++t)
          state.written[t] &= !active[t];
        return success();
      })
      .Case([&](ReadOp read) { return readVar(read); })
      .Case([&](WriteOp write) {
        return writeVar(write.getVar(), get(write.getValue()));
      })
      .Case([&](StageOp stage) -> LogicalResult {
        const Val &rotation = get(stage.getRotation());
        if (failed(
                requireDefined(&op, rotation, "the rotation of 'tile.stage'")))
          return failure();
        if (!rotation.isUniform())
          return op.emitError("the interp backend needs a ring's rotation to "
                              "be the same in every thread");
        int64_t stages = *stage.getRingOp().getStages();
        stageIndex[stage.getResult()] =
            llvm::mod(rotation.scalarInt() + stage.getOffset(), stages);
        return success();
      })
      .Case([&](CopyOp copy) { return executeCopy(copy); })
      // Copies land at once: groups and waits have nothing to do.
      .Case<CommitGroupOp, WaitGroupOp>([&](Operation *) { return success(); })
      .Case([&](LoadOp load) {
        return executeSlice(op, load.getSource(), load.getOffsets(),
                            load.getResult().getType(), nullptr,
                            load.getOther() ? &get(load.getOther()) : nullptr);
      })
      .Case([&](StoreOp store) {
        return executeSlice(op, store.getDest(), store.getOffsets(),
                            store.getValue().getType(), &get(store.getValue()),
                            nullptr,
                            store.getMask() ? &get(store.getMask()) : nullptr);
      })
      .Case([&](GatherOp gather) {
        return executeSlice(
            op, gather.getSource(), gather.getOffsets(), gather.getType(),
            nullptr, gather.getOther() ? &get(gather.getOther()) : nullptr,
            nullptr, /*width=*/1, /*loaded=*/nullptr, gather.getIndices(),
            gather.getIndexDims());
      })
      .Case([&](ScatterOp scatter) {
        return executeSlice(
            op, scatter.getDest(), scatter.getOffsets(),
            scatter.getValue().getType(), &get(scatter.getValue()), nullptr,
            scatter.getMask() ? &get(scatter.getMask()) : nullptr,
            /*width=*/1, /*loaded=*/nullptr, scatter.getIndices(),
            scatter.getIndexDims());
      })
      .Case([&](AtomicOp update) {
        return executeSlice(
            op, update.getDest(), update.getOffsets(),
            update.getValue().getType(), &get(update.getValue()), nullptr,
            update.getMask() ? &get(update.getMask()) : nullptr,
            /*width=*/1, /*loaded=*/nullptr, update.getIndices(),
            update.getIndexDims(), update.getKind());
      })
      .Case([&](ExtractOp extract) {
        const Val &input = get(extract.getInput());
        int64_t linear = 0;
        for (auto [dim, index] : llvm::enumerate(extract.getIndices()))
          linear = linear * input.shape[dim] + index;
        Val result = Val::zeros(extract.getType());
        result.copyElement(0, input, linear);
        result.accuracy = input.accuracy;
        result.thresholded = input.thresholded;
        set(extract.getResult(), std::move(result));
        return success();
      })
      .Case<ExtractSliceOp, InsertSliceOp>([&](auto op) {
        // Element (a + i, b + j) of the whole tile is element (i, j) of the
        // sub-tile.
        bool isExtract = isa<ExtractSliceOp>(op.getOperation());
        Value full = isExtract ? op->getOperand(0) : op->getOperand(1);
        Value sub = isExtract ? op->getResult(0) : op->getOperand(0);
        auto subType = cast<RankedTensorType>(sub.getType());
        const Val &whole = get(full);
        Val result = isExtract ? Val::zeros(subType) : whole;
        const Val *part = isExtract ? nullptr : &get(sub);
        for (int64_t e = 0; e < subType.getNumElements(); ++e) {
          int64_t rest = e, linear = 0, stride = 1;
          for (int64_t dim = subType.getRank() - 1; dim >= 0; --dim) {
            linear += (op.getOffsets()[dim] + rest % subType.getDimSize(dim)) *
                      stride;
            rest /= subType.getDimSize(dim);
            stride *= whole.shape[dim];
          }
          if (isExtract)
            result.copyElement(e, whole, linear);
          else
            result.copyElement(linear, *part, e);
        }
        result.accuracy =
            part ? rt::loosest(whole.accuracy, part->accuracy) : whole.accuracy;
        result.thresholded = whole.thresholded || (part && part->thresholded);
        set(op->getResult(0), std::move(result));
        return success();
      })
      .Case([&](IotaOp iota) {
        Val result = Val::zeros(iota.getType());
        ArrayRef<int64_t> shape = iota.getType().getShape();
        int64_t stride = 1;
        for (int64_t dim = shape.size() - 1;
             dim > static_cast<int64_t>(iota.getAxis()); --dim)
          stride *= shape[dim];
        for (size_t e = 0; e < result.size(); ++e)
          result.setInt(e, (e / stride) % shape[iota.getAxis()]);
        set(iota.getResult(), std::move(result));
        return success();
      })
      .Case([&](ReductionOpInterface reduce) {
        const Val &input = get(reduce.getInput());
        Val result = Val::zeros(reduce.getResult().getType());
        int64_t rows = input.shape[0], cols = input.shape[1];
        // Over rows (axis 1) or columns (axis 0): `outer` results of
        // `inner` elements each.
        bool overRows = reduce.getAxis() == 1;
        int64_t outer = overRows ? rows : cols, inner = overRows ? cols : rows;
        auto at = [&](int64_t o, int64_t i) {
          return overRows ? o * cols + i : i * cols + o;
        };
        ReductionKind kind = reduce.getKind();
        bool inputUndefined = input.anyUndefined();
        // A float sum depends on its order; a maximum or minimum does not.
        // An argmax is exact, but a step function of its input: of an
        // inexact input it may land on another index (as a comparison).
        result.accuracy = kind == ReductionKind::sum && result.isFloat
                              ? rt::loosest(input.accuracy,
                                            accuracyOfType(result.elementType))
                          : kind == ReductionKind::argmax ? Accuracy::Exact
                                                          : input.accuracy;
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t i = 0; inputUndefined && i < inner; ++i)
            if (input.isUndefined(at(o, i))) {
              result.setUndefined(o, true, input.origin);
              break;
            }
          if (kind == ReductionKind::argmax) {
            // The first index of the maximum; a NaN is above every number.
            int64_t best = 0;
            for (int64_t i = 1; i < inner; ++i) {
              if (input.isFloat) {
                double x = input.floats[at(o, i)],
                       top = input.floats[at(o, best)];
                if (!std::isnan(top) && (std::isnan(x) || x > top))
                  best = i;
              } else if (input.ints[at(o, i)] > input.ints[at(o, best)]) {
                best = i;
              }
            }
            result.setInt(o, best);
            continue;
          }
          if (input.isFloat) {
            // Accumulated in double, rounded once.
            double acc = kind == ReductionKind::sum   ? 0.0
                         : kind == ReductionKind::max ? -INFINITY
                                                      : INFINITY;
            // The error bound: a sum's is its terms' and their rounding in
            // any order (one tolerance of their magnitudes), a maximum's or
            // minimum's the largest of its terms'.
            // A sum whose terms' magnitudes add up past the type's range
            // has partial sums that may overflow on the GPU (in its order,
            // not the reference's): its value is not known.
            double error = 0, magnitude = 0;
            bool unchecked = false;
            for (int64_t i = 0; i < inner; ++i) {
              double x = input.floats[at(o, i)];
              acc = kind == ReductionKind::sum   ? acc + x
                    : kind == ReductionKind::max ? maximumf(acc, x)
                                                 : minimumf(acc, x);
              double termError = errorBound(input, at(o, i), result.accuracy);
              unchecked |= isUncheckedError(termError);
              magnitude += std::fabs(x);
              error = kind == ReductionKind::sum
                          ? error + termError + std::fabs(x)
                          : std::max(error, termError);
            }
            result.setFloat(o, acc);
            unchecked |= kind == ReductionKind::sum &&
                         mayOverflow(magnitude, result.elementType);
            if (result.accuracy != Accuracy::Exact)
              result.setError(
                  o, unchecked ? kUncheckedError
                     : kind == ReductionKind::sum
                         ? std::max(error, ownError(result.floats[o],
                                                    result.accuracy, true))
                         : error);
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
            result.setInt(o, acc);
          }
        }
        result.thresholded =
            input.thresholded || (kind == ReductionKind::argmax &&
                                  input.accuracy != Accuracy::Exact);
        set(reduce.getResult(), std::move(result));
        return success();
      })
      .Case([&](DotOp dot) {
        const Val &lhs = get(dot.getLhs()), &rhs = get(dot.getRhs());
        const Val *acc = dot.getAcc() ? &get(dot.getAcc()) : nullptr;
        Val result = Val::zeros(dot.getResult().getType());
        bool transposed = dot.getRhsTransposed();
        bool anyUndefined = lhs.anyUndefined() || rhs.anyUndefined() ||
                            (acc && acc->anyUndefined());
        bool tf32 = dot.getPrecision() == DotPrecision::tf32;
        if (result.isFloat)
          result.accuracy = rt::loosest(rt::loosest(lhs.accuracy, rhs.accuracy),
                                        accuracyOfType(result.elementType));
        if (acc)
          result.accuracy = rt::loosest(result.accuracy, acc->accuracy);
        // An operand's error bound as the dot multiplies it: rounded to
        // tf32, an inexact operand may land on the neighbouring tf32 value.
        double tf32Units =
            result.isFloat ? 0x1p-10 / rt::relativeTolerance(result.accuracy)
                           : 0;
        auto operandError = [&](const Val &operand, size_t index) {
          double error = errorBound(operand, index, result.accuracy);
          if (tf32 && operand.accuracy != Accuracy::Exact)
            error += tf32Units * std::fabs(operand.floats[index]);
          return error;
        };
        int64_t m = lhs.shape[0], k = lhs.shape[1],
                n = rhs.shape[transposed ? 0 : 1];
        // The operands as the inner loop reads them, computed once rather
        // than once per product: each row of lhs and each column of rhs
        // contiguous, tf32-rounded where the dot is, with their error
        // bounds (a 1024^3 GEMM's reference spent most of its time here).
        bool bounded =
            lhs.isFloat && result.isFloat && result.accuracy != Accuracy::Exact;
        std::vector<double> lhsRounded, rhsColumns, rhsRounded, lhsErrors,
            rhsErrors;
        if (lhs.isFloat) {
          rhsColumns.resize(n * k);
          if (bounded) {
            lhsErrors.resize(m * k);
            rhsErrors.resize(n * k);
          }
          for (int64_t index = 0; index < m * k && bounded; ++index)
            lhsErrors[index] = operandError(lhs, index);
          for (int64_t j = 0; j < n; ++j)
            for (int64_t p = 0; p < k; ++p) {
              int64_t b = transposed ? j * k + p : p * n + j;
              rhsColumns[j * k + p] = rhs.floats[b];
              if (bounded)
                rhsErrors[j * k + p] = operandError(rhs, b);
            }
          if (tf32) {
            for (double x : lhs.floats)
              lhsRounded.push_back(roundToTF32(x));
            for (double y : rhsColumns)
              rhsRounded.push_back(roundToTF32(y));
          }
        }
        double tolerance = bounded ? rt::relativeTolerance(result.accuracy) : 0;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            // The accumulator, then the products, rounded once.
            double floatAcc = acc && acc->isFloat ? acc->floats[i * n + j] : 0;
            // The error bound: the accumulator's, the products' (relative
            // errors add) and the sum's rounding, a tolerance of its terms.
            double error = std::fabs(floatAcc) +
                           (acc && acc->isFloat
                                ? errorBound(*acc, i * n + j, result.accuracy)
                                : 0);
            uint64_t intAcc = acc && !acc->isFloat
                                  ? static_cast<uint64_t>(acc->ints[i * n + j])
                                  : 0;
            // The products and partial sums past the result type's range:
            // which overflow depends on the order (and a tf32 operand may
            // round up to inf).
            double magnitude = std::fabs(floatAcc);
            if (lhs.isFloat) {
              const double *row = &lhs.floats[i * k],
                           *column = &rhsColumns[j * k];
              const double *rowFactors = tf32 ? &lhsRounded[i * k] : row,
                           *columnFactors = tf32 ? &rhsRounded[j * k] : column;
              for (int64_t p = 0; p < k; ++p) {
                double product = rowFactors[p] * columnFactors[p];
                if (tf32)
                  magnitude = std::max({magnitude, std::fabs(rowFactors[p]),
                                        std::fabs(columnFactors[p])});
                floatAcc += product;
                magnitude += std::fabs(product);
                if (!bounded)
                  continue;
                double ex = lhsErrors[i * k + p], ey = rhsErrors[j * k + p];
                error += std::fabs(product) + std::fabs(column[p]) * ex +
                         std::fabs(row[p]) * ey + ex * ey * tolerance;
              }
            } else {
              for (int64_t p = 0; p < k; ++p) {
                int64_t b = transposed ? j * k + p : p * n + j;
                intAcc += static_cast<uint64_t>(lhs.ints[i * k + p]) *
                          static_cast<uint64_t>(rhs.ints[b]);
              }
            }
            if (result.isFloat)
              result.setFloat(i * n + j, floatAcc);
            else
              result.setInt(i * n + j, intAcc);
            if (result.isFloat)
              result.setError(
                  i * n + j,
                  mayOverflow(magnitude, result.elementType)
                      ? kUncheckedError
                      : std::max(error, ownError(result.floats[i * n + j],
                                                 result.accuracy, true)));
            if (!anyUndefined)
              continue;
            // Of a row of `lhs` or a column of `rhs` nothing wrote.
            const Val *from =
                acc && acc->isUndefined(i * n + j) ? acc : nullptr;
            for (int64_t p = 0; p < k && !from; ++p)
              from = lhs.isUndefined(i * k + p) ? &lhs
                     : rhs.isUndefined(transposed ? j * k + p : p * n + j)
                         ? &rhs
                         : nullptr;
            if (from)
              result.setUndefined(i * n + j, true, from->origin);
          }
        }
        result.thresholded = lhs.thresholded || rhs.thresholded;
        if (acc)
          result.thresholded |= acc->thresholded;
        set(dot.getResult(), std::move(result));
        return success();
      })
      .Case([&](TransposeOp transpose) {
        const Val &input = get(transpose.getInput());
        Val result = Val::zeros(transpose.getResult().getType());
        int64_t rows = input.shape[0], columns = input.shape[1];
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < columns; ++j) {
            result.copyElement(j * rows + i, input, i * columns + j);
          }
        }
        result.accuracy = input.accuracy;
        result.thresholded = input.thresholded;
        set(transpose.getResult(), std::move(result));
        return success();
      })
      .Case([&](BroadcastOp broadcast) {
        const Val &input = get(broadcast.getInput());
        Val result = Val::zeros(broadcast.getResult().getType());
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
          result.copyElement(e, input, source);
        }
        result.accuracy = input.accuracy;
        result.thresholded = input.thresholded;
        result.product = input.product;
        set(broadcast.getResult(), std::move(result));
        return success();
      })
      .Case([&](ConvertLayoutOp convert) {
        // Which thread holds which element is invisible here: the same tile.
        set(convert.getResult(), get(convert.getInput()));
        return success();
      })
      .Case([&](ReshapeOp reshape) {
        // The same elements, in row-major order, in the result's shape.
        Val result = get(reshape.getInput());
        ArrayRef<int64_t> shape = reshape.getResult().getType().getShape();
        result.shape.assign(shape.begin(), shape.end());
        set(reshape.getResult(), std::move(result));
        return success();
      })
      .Case([&](SplatOp splat) {
        // A per-thread scalar gives each element its thread's value.
        const Val &input = get(splat.getInput());
        Val result = Val::zeros(splat.getResult().getType());
        for (size_t e = 0; e < result.size(); ++e)
          result.copyElement(e, input, input.indexFor(e, true, threads));
        result.accuracy = input.accuracy;
        result.thresholded = input.thresholded;
        result.product = input.product;
        set(splat.getResult(), std::move(result));
        return success();
      })
      .Default([&](Operation *) {
        return op.emitError("the interp backend does not support '")
               << op.getName() << "'";
      });
}
