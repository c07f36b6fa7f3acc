//===- Check.h - comparing a kernel's outputs with the reference -*- C++
//-*-===//
//
// The checker's rule (docs/spec.md, "Running and checking kernels"): every
// element of an output is compared with the reference's, with a tolerance
// that follows how the reference computed it, and the elements each side
// wrote must be the same ones. tile-run and tile-launch both check with it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_CHECK_H
#define TILE_RUNTIME_CHECK_H

#include "tile/Runtime/FloatOptions.h"
#include "tile/Runtime/Tensor.h"

#include <algorithm>

namespace tile::runtime {

/// How closely a backend must reproduce an element of the reference.
enum class Accuracy : uint8_t {
  /// Every op that made it rounds correctly (+ - * /, conversions, max,
  /// loads, ...) and in the kernel's order: the GPU computes the same bits.
  Exact,
  /// It passed through an op whose result depends on the implementation (a
  /// sum or a dot, accumulated wider or in another order; exp, sqrt and the
  /// other math functions, approximated on the GPU) and, afterwards, through
  /// no type narrower than f32 / f16 / bf16: that type's tolerance.
  F32,
  F16,
  BF16,
};
/// The looser of two.
inline Accuracy loosest(Accuracy a, Accuracy b) { return a < b ? b : a; }

/// The version of the marks' meaning (docs/abi.md, `.marks` files): 3,
/// unchecked elements (ElementMark::unchecked); 2, amplification bounded
/// through every op; 1, only cancelling sums, with every element's
/// absolute tolerance raised to its type's fraction of the output's
/// largest magnitude.
constexpr int64_t kMarksVersion = 3;

/// What a run knows of one element of an output besides its value.
class ElementMark {
public:
  /// Not written.
  ElementMark() = default;
  static ElementMark written(Accuracy accuracy, bool thresholded,
                             unsigned amplification = 0) {
    return ElementMark(static_cast<uint8_t>(
        kWritten | static_cast<unsigned>(accuracy) << 1 |
        (thresholded ? kThresholded : 0) |
        std::min(amplification, kUnboundedAmplification) << 4));
  }
  /// Written, with a value the reference cannot know: the GPU computes it
  /// through f32 (or f16) partial results whose magnitudes can exceed the
  /// type's largest value, and which of them overflow depends on the order
  /// the hardware takes (a sum of [2^127, 2^127, -2^127, -2^127] is inf,
  /// NaN or 0). Any value matches; the check counts and reports these.
  /// (The bits of an exact element with an unbounded amplification, which
  /// no exact element has.)
  static ElementMark unchecked() {
    return ElementMark(
        static_cast<uint8_t>(kWritten | kUnboundedAmplification << 4));
  }
  bool isUnchecked() const {
    return isWritten() && getAccuracy() == Accuracy::Exact && isUnbounded();
  }
  bool isWritten() const { return bits & kWritten; }
  Accuracy getAccuracy() const {
    return static_cast<Accuracy>((bits >> 1) & 3);
  }
  /// The element depends on a comparison of an inexact value, or on its
  /// conversion to an integer: near the threshold, a correct kernel may land
  /// on the other side.
  bool isThresholded() const { return bits & kThresholded; }
  /// How far an inexact element may be from the reference's, as the
  /// reference bounds it through every op that made it (to first order):
  /// 2^a times its accuracy's relative tolerance, relative to itself. The
  /// ops' own errors (a sum's rounding of its terms, a math function's
  /// approximation, a fused add or an approximate division), each one
  /// tolerance of what it computed, carried through what follows: a sum or
  /// difference weighs its terms' errors against its result (so a sum whose
  /// terms cancel is known only to the rounding of its terms), a product's
  /// and a quotient's relative errors add, a function scales them by its
  /// slope, a maximum or a select keeps its operand's.
  /// kUnboundedAmplification where the reference knows no such bound (the
  /// result is 0 or its terms cancel by 2^15 or more, a float atomic, an
  /// op with no rule): the element is then also allowed its type's relative
  /// tolerance of the output's largest magnitude.
  unsigned getAmplification() const { return bits >> 4; }
  bool isUnbounded() const {
    return getAmplification() >= kUnboundedAmplification;
  }
  static constexpr unsigned kUnboundedAmplification = 15;

  /// One byte, as the `.marks` files of docs/abi.md hold it: bit 0 written,
  /// bits 1-2 the Accuracy, bit 3 thresholded, bits 4-7 the amplification.
  /// None for a byte with bits set but not bit 0 (an element not written
  /// has no accuracy).
  uint8_t toByte() const { return bits; }
  static std::optional<ElementMark> fromByte(uint8_t byte) {
    if (byte && !(byte & kWritten))
      return std::nullopt;
    return ElementMark(byte);
  }

private:
  static constexpr uint8_t kWritten = 1, kThresholded = 8;
  explicit ElementMark(uint8_t bits) : bits(bits) {}
  uint8_t bits = 0;
};

/// How far an element may be from the expected one:
/// |got - want| <= relative * |want| + absolute.
struct Tolerance {
  double relative = 0;
  double absolute = 0;
};
/// f32 1e-5 relative (1e-6 absolute, for values near 0); f16 and bf16
/// looser, by their precision; integers exact.
Tolerance defaultTolerance(DType dtype);
/// The relative tolerance of an inexact accuracy (defaultTolerance of its
/// type); 0 for Exact.
double relativeTolerance(Accuracy accuracy);
/// The tolerance of an element marked `mark` in an output of `dtype`:
/// none for Exact elements and integers, else that of the looser of its
/// accuracy and its dtype's, the relative part 2^amplification times
/// wider. An unbounded element's absolute part is raised to `relative *
/// largest` (`largest` the output's largest finite magnitude), as is every
/// element's when `legacyMarks` (marks of version 1, docs/abi.md, whose
/// amplification counted only cancelling sums).
Tolerance toleranceFor(DType dtype, ElementMark mark, double largest,
                       bool legacyMarks = false);
/// The tolerance of every element of `want` as f32/f16/bf16 of its own
/// dtype would be (no marks known, so no bound on any element):
/// defaultTolerance(dtype) with the absolute part raised to `relative *
/// max |want|`.
Tolerance toleranceFor(const HostTensor &want);

enum class MismatchKind {
  /// Both wrote the element; the values differ beyond the tolerance.
  Value,
  /// The reference never wrote an element of an output that starts as
  /// poison: the kernel leaves it undefined.
  NeverWritten,
  /// The reference wrote it; the backend did not.
  NotWritten,
  /// The backend wrote it; the reference did not.
  WrittenOutside,
};

struct Mismatch {
  size_t index = 0;
  double got = 0, want = 0;
  /// How many elements have this problem in all.
  size_t count = 0;
  MismatchKind kind = MismatchKind::Value;
  bool thresholded = false;
};

/// The first element where `got` and `want` differ beyond `tolerance` (NaN
/// matches only NaN, infinity only itself), or none when all agree. The
/// index, not a bool, is the point: "wrong at 512" names the block. Both
/// tensors must have one dtype and shape (an Input error otherwise).
Expected<std::optional<Mismatch>> firstMismatch(const HostTensor &got,
                                                const HostTensor &want,
                                                Tolerance tolerance);

/// One output and what each side knows of it.
struct OutputComparison {
  const HostTensor *got = nullptr;
  /// Which elements the backend wrote, or null when it cannot say: then an
  /// element of a poisoned output that still holds the poison's bits was not
  /// written (unless the reference wrote those very bits).
  const std::vector<bool> *gotWritten = nullptr;
  const HostTensor *want = nullptr;
  /// The reference's marks, or null when none are known: then every element
  /// of `want` is written (but those of a poisoned output still holding the
  /// poison), at the accuracy of its dtype (F32 for an f32 output).
  const std::vector<ElementMark> *wantMarks = nullptr;
  /// The output starts as poison (the kernel only writes it), not as input.
  bool poisoned = false;
  /// `wantMarks` are of version 1 (toleranceFor).
  bool legacyMarks = false;
  /// Replace every element's relative or absolute tolerance.
  std::optional<double> relative, absolute;
};

/// Every problem of the output, the first element of each kind present
/// (NeverWritten first, then by index).
Expected<std::vector<Mismatch>> findMismatches(const OutputComparison &check);

/// Marks say how exactly a kernel compiled with the floating-point options
/// the reference assumed (`assumed`) must reproduce each element; they hold
/// for a kernel compiled with `compiled` only when the options are the same.
/// Marks computed without fp_div=full or fp_contract hold its quotients or
/// fused adds exact, so they would fail a correct kernel compiled with
/// them; marks computed with them allow a tolerance where a kernel compiled
/// without had to be exact, so they would pass a wrong one. Neither says
/// which elements the other options would change. An Input error naming
/// both option sets and how to write marks for `compiled` when they differ.
Error checkMarksApply(const FloatOptions &compiled,
                      const FloatOptions &assumed);

} // namespace tile::runtime

#endif // TILE_RUNTIME_CHECK_H
