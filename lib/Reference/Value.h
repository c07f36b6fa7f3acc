//===- Value.h - the reference interpreter's values -------------*- C++ -*-===//
//
// A value of the kernel is a Val: a scalar the whole CTA shares, a
// per-thread scalar (ctx.thread and what is computed from it: one value per
// thread of the CTA), or a tile (its elements in row-major order; element e
// belongs to thread e % threads, the cyclic distribution). Elements are
// double (float types) or int64 (integer and index types, kept as the
// sign-extended value of their low `width` bits, the way APInt's
// getSExtValue reads them: an i1 `true` is -1). Each Val also carries how
// exactly a backend must reproduce it (Check.h's Accuracy) and whether it
// depends on a threshold of an inexact value, or is a product that may be
// fused into a multiply-add.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_REFERENCE_VALUE_H
#define TILE_LIB_REFERENCE_VALUE_H

#include "tile/Runtime/Check.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace mlir::tile::reference {

using ::tile::runtime::Accuracy;

/// Bits of an integer or index type (index: 64).
unsigned intWidth(Type element);
/// The canonical form: the low `width` bits, sign-extended.
int64_t wrap(uint64_t value, unsigned width);
uint64_t zeroExtend(int64_t value, unsigned width);
/// `value` rounded to float type `type` (to nearest, ties to even): the one
/// rounding of every float result the interpreter computes.
double roundToType(double value, Type type);
/// The accuracy of a value of float type `type` that an inexact op made.
Accuracy accuracyOfType(Type type);
struct Val;

/// Error bounds, to first order (ElementMark::getAmplification): the
/// absolute error an element may carry, in units of an accuracy's relative
/// tolerance (an f32 error of 3e-5 is 3 units of F32).
///
/// Element `i` of `val`'s bound (Val::errorAt) in units of `in` (no
/// narrower than val's accuracy); kUncheckedError where the element has
/// none at all.
double errorBound(const Val &val, size_t i, Accuracy in);
/// The error bound of an element whose value the reference cannot know
/// (rt::ElementMark::unchecked): partial results of the GPU's float type
/// may overflow on the way, depending on their order. NaN, so that every
/// op's bound computed from it is too.
constexpr double kUncheckedError = __builtin_nan("");
inline bool isUncheckedError(double error) { return error != error; }
/// Whether partial results of magnitudes up to `magnitude` may overflow a
/// float of type `type` (beyond its largest finite value).
bool mayOverflow(double magnitude, Type type);
/// The amplification of a value `value` of accuracy `accuracy` that may be
/// `error` units off: the least a with 2^a |value| + the type's absolute
/// floor >= error, unbounded where none fits.
unsigned amplificationOf(double error, double value, Accuracy accuracy);
/// The error of an op's own that computed `result` at `accuracy`: one
/// tolerance of it where the op is `inexact`, else a rounding of it (on
/// operands a little off, a correctly rounded result may land on the
/// neighbouring value); at least the type's absolute floor below its
/// smallest normal value (which the GPU may flush to 0).
double ownError(double result, Accuracy accuracy, bool inexact);

/// arith.maximumf/minimumf: NaN propagates and -0 orders below +0.
double maximumf(double a, double b);
double minimumf(double a, double b);

/// Where elements nothing wrote were read: the var, the first such element
/// the read got and the read, for the kernel fault that reports their use.
struct UndefinedOrigin {
  std::string what; // "var 'v' was read before anything wrote its element [2]"
  Location read;
};

struct Val {
  /// Zeros of `type` (a ranked tensor: a tile; anything else a scalar);
  /// `threads` elements for a per-thread scalar.
  static Val zeros(Type type, int64_t threads = 0);

  Type elementType;
  SmallVector<int64_t, 2> shape; // a tile's
  bool isTile = false;
  bool perThread = false; // a scalar with one value per thread
  bool isFloat = false;
  std::vector<double> floats;
  std::vector<int64_t> ints;
  Accuracy accuracy = Accuracy::Exact;
  bool thresholded = false;
  /// A float product, which the compiled code may fuse into an add that
  /// uses it (fp-contract): that add is then rounded once, not twice.
  bool product = false;
  /// Elements nothing wrote (those of a var that no copy reached, and what
  /// is computed from them); empty when every element is defined. Using
  /// one in a way that can change the kernel's effects (storing it to a
  /// tensor, branching or indexing on it) is a kernel fault.
  std::vector<uint8_t> undefined;
  std::shared_ptr<const UndefinedOrigin> origin;
  /// Per element of an inexact float value, its error bound (errorBound's
  /// units of `accuracy`); empty, or negative for an element, where none
  /// was computed: one tolerance of the element.
  std::vector<double> errors;

  size_t size() const { return isFloat ? floats.size() : ints.size(); }
  bool isUndefined(size_t i) const {
    return !undefined.empty() && undefined[i];
  }
  bool anyUndefined() const {
    return std::find(undefined.begin(), undefined.end(), 1) != undefined.end();
  }
  /// Marks element `i` undefined (from `from`'s origin) or defined.
  void setUndefined(size_t i, bool isUndefined,
                    const std::shared_ptr<const UndefinedOrigin> &from) {
    if (!isUndefined) {
      if (!undefined.empty())
        undefined[i] = 0;
      return;
    }
    if (undefined.empty())
      undefined.assign(size(), 0);
    undefined[i] = 1;
    if (!origin)
      origin = from;
  }
  /// Element `i`'s error bound: 0 for an exact value.
  double errorAt(size_t i) const {
    if (!isFloat || accuracy == Accuracy::Exact)
      return 0;
    double error = errors.empty() ? -1 : errors[i];
    return error < 0 ? std::fabs(floats[i]) : error;
  }
  void setError(size_t i, double error) {
    if (!isFloat)
      return;
    if (errors.empty())
      errors.assign(size(), -1);
    errors[i] = error;
  }
  bool isUniform() const { return !isTile && !perThread; }
  /// A uniform scalar's value (element 0).
  int64_t scalarInt() const { return ints.empty() ? 0 : ints.front(); }

  /// Element `i` of a value of `size` elements (a tile or per-thread
  /// scalar result) of which this is an operand: a tile's own element, a
  /// per-thread scalar's value for the element's thread, a uniform value's
  /// only one.
  size_t indexFor(size_t i, bool forTile, int64_t threads) const {
    if (isTile)
      return i;
    if (perThread)
      return forTile ? i % threads : i;
    return 0;
  }
  /// Sets element `i`, rounded (floats) or wrapped (integers) to the type.
  void setFloat(size_t i, double value) {
    floats[i] = roundToType(value, elementType);
  }
  void setInt(size_t i, uint64_t value) {
    ints[i] = wrap(value, intWidth(elementType));
  }
  void copyElement(size_t to, const Val &from, size_t index) {
    if (isFloat)
      floats[to] = from.floats[index];
    else
      ints[to] = from.ints[index];
    setUndefined(to, from.isUndefined(index), from.origin);
    if (from.isFloat && (!errors.empty() || from.accuracy != Accuracy::Exact))
      setError(to, from.errorAt(index));
  }
};

/// Which threads of the CTA run the ops at hand: every one, or those whose
/// entry is set (under control flow that depends on ctx.thread).
using ThreadMask = std::vector<uint8_t>;

/// `now` for the threads `take` sets, `earlier` for the others: a tile's
/// element goes with its thread, a scalar becomes per-thread where they
/// differ.
Val mergeByThread(const Val &earlier, const Val &now, const ThreadMask &take,
                  int64_t threads);

//===----------------------------------------------------------------------===//
// Elementwise arithmetic (Arith.cpp)
//===----------------------------------------------------------------------===//

/// How an elementwise op's result relates to its operands' accuracy.
enum class ResultAccuracy {
  /// Correctly rounded (+ - * /, max, conversions, select): exact operands
  /// give an exact result.
  Exact,
  /// A step function of its operands (comparisons, floor, conversion to an
  /// integer): an inexact operand makes the result thresholded.
  Threshold,
  /// Depends on the implementation (math functions, remf, fma).
  Inexact,
};

/// The elementwise ops the interpreter knows: one element of the result
/// from the elements of the operands.
class ElementwiseOp {
public:
  /// The op's evaluation, or none when the interpreter does not know it.
  static std::optional<ElementwiseOp> get(Operation &op);

  ResultAccuracy getResultAccuracy() const { return accuracy; }
  /// Computes element `i` of `result` from element `indices[k]` of each
  /// operand `k`;
  /// false where arith leaves the result undefined (division by zero,
  /// overflow of a division, a shift too far, fptosi out of range).
  bool apply(Val &result, size_t i, ArrayRef<const Val *> operands,
             ArrayRef<size_t> indices) const;
  /// The error bound (errorBound's units of `accuracy`, the result's) of
  /// element `i` of the result, computed by apply: what its operands' bounds
  /// become through the op, plus the op's own error (one tolerance of what
  /// it computes where it is inexact or `approximated`, a fused add or an
  /// approximate division; one rounding otherwise).
  double errorOf(const Val &result, size_t i, ArrayRef<const Val *> operands,
                 ArrayRef<size_t> indices, bool approximated) const;

private:
  /// How an op carries its operands' errors (errorOf).
  enum class ErrorRule : uint8_t {
    Sum,      // addf, subf: the operands' errors add
    Product,  // mulf: relative errors add
    Quotient, // divf: relative errors add
    Fma,      // a * b + c
    Largest,  // max, min: the larger error of the two
    Pick,     // select: the picked operand's
    Same,     // negf, absf, extf, step functions: the operand's
    Narrow,   // truncf: the operand's and a rounding to the narrower type
    Function, // math functions: the operand's through the function's slope
    None,     // no rule (remf, powf, atan2, copysign): unbounded
  };
  ErrorRule errorRule = ErrorRule::None;
  /// What the op computes, decided once so that apply is a switch.
  enum class Kind : uint8_t {
    CmpF,
    CmpI,
    Select,
    Fma,
    AbsI,
    IntCast,         // index_cast, extsi, trunci
    UnsignedIntCast, // index_castui, extui
    SIToFP,
    UIToFP,
    FloatCast, // extf, truncf
    FPToSI,
    FPToUI,
    FloatUnary,
    FloatBinary,
    IntBinary,
  };
  Kind kind = Kind::IntBinary;
  ResultAccuracy accuracy = ResultAccuracy::Exact;
  double (*unary)(double) = nullptr;
  double (*binary)(double, double) = nullptr;
  uint8_t intBinary = 0;   // Arith.cpp's IntBinary
  uint8_t predicate = 0;   // of cmpf, cmpi
  unsigned width = 64;     // of the last operand (the compared, the shifted)
  unsigned fromWidth = 64; // of the first operand (of a cast)
};

} // namespace mlir::tile::reference

#endif // TILE_LIB_REFERENCE_VALUE_H
