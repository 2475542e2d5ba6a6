#pragma once

// How close a split forward pass is to the reference x @ kernel + bias, and whether the difference
// is what float32 rounding can produce (the default verdict) or a mistake.

#include "layer/eigen_types.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace tp {

/// numpy.testing.assert_allclose: |actual - reference| <= atol + rtol * |reference| per element.
/// Reported always (it is what JAX users know); the verdict only when a user gives rtol or atol.
struct Tolerance {
    double rtol = 1e-5;
    double atol = 1e-6;
};

/// Which test decides Verification::verdict.
enum class CheckRule {
    RoundingBound,  ///< every element within roundingBound of its magnitude (the default)
    Allclose,       ///< numpy allclose with the given rtol and atol
};

/// "rounding-bound" / "allclose", as the CLI and JSON spell them.
std::string_view toString(CheckRule rule);

struct CheckSettings {
    CheckRule rule = CheckRule::RoundingBound;
    Tolerance tolerance;  ///< the allclose figures, and the verdict when rule == Allclose
};

/// The rounding bound of one output element of y = x @ kernel + bias (kernel (K, features)), the
/// probabilistic bound of Higham and Mary ("A new approach to probabilistic rounding error
/// analysis", SIAM J. Sci. Comput. 41(5), 2019, Theorem 3.1):
///
///   |y - ref|_ij <= 2 * min(gamma~(K + 1), gamma(K + 1)) * s_ij + 2 * (K + 1) * 2^-125,
///   s_ij = (|x| @ |kernel|)_ij + |bias_j|,
///   gamma~(n) = exp(lambda * sqrt(n) * u + n * u^2 / (1 - u)) - 1,   u = 2^-24,   lambda = 11,
///   gamma(n) = n * u / (1 - n * u)   (the worst case, the smaller below about 120 terms).
///
/// Why this form: each of the two float32 computations (the split pass and the full product) sums
/// K products and the bias in some order (Eigen's blocking over K, the sliced product's own
/// blocking, the row groups' partial sums), FMA or not, so every term passes through at most K + 1
/// roundings. Modelling those roundings as independent random variables of mean zero, an inner
/// product of n terms is within gamma~(n) * sum |x_k y_k| of the exact sum with probability at
/// least 1 - 2n exp(-lambda^2 (1 - u)^2 / 2); the two together are within twice that of each
/// other. The worst case (Higham, Accuracy and Stability, §3.1: gamma(n) = n u / (1 - n u)) grows
/// like K where real rounding grows like sqrt(K): at K = 262144 it allowed about 10 where correct
/// splits differ by about 0.001, and so passed wrong splits. It still decides what fails: an
/// error beyond the worst case is a mistake on any data, while one between the two bounds is
/// inconclusive, since data whose roundings agree (a constant kernel summed over 2^16 rows) breaks
/// the model of independent roundings and reaches past the probabilistic bound. The last term
/// covers underflow: a rounding may lose up to 2^-126 absolutely when a result falls below the
/// normal range.
///
/// lambda = 11, so that a correct split practically never lands between the two bounds (which
/// makes it inconclusive; it never fails): per element three inner products are bounded (the
/// split's, the reference's, the magnitude's own rounding), so under the model the chance is at
/// most 6 * N * features * (K + 1) * exp(-lambda^2 (1 - u)^2 / 2), with
/// exp(-60.5) = 5.3e-27: 4e-14 for the largest scene the 2 GiB budget admits (N * features *
/// (K + 1) <= 1.4e12), below 1e-9 for every scene up to 3e16 multiply-adds.
///
/// `magnitude` is s_ij as computed in float32, a sum of K + 1 nonnegative terms: it is widened by
/// its own rounding, s <= (magnitude + (K + 1) * 2^-125) / (1 - gamma), with the same gamma, so
/// that the bound holds for the exact s.
double roundingBound(double magnitude, Index inDim);

/// The worst-case bound of the same element, 2 * gamma(K + 1) * s + 2 * (K + 1) * 2^-125 with s
/// widened by gamma(K + 1): no correct split can exceed it on any data, but it says little at
/// large K (infinite once K + 1 >= 2^24). An error beyond it fails the check.
double worstCaseBound(double magnitude, Index inDim);

/// gamma~(n) = exp(lambda sqrt(n) u + n u^2 / (1 - u)) - 1, lambda = kRoundingLambda, u = 2^-24.
double probabilisticGamma(Index n);

/// The lambda of probabilisticGamma.
inline constexpr double kRoundingLambda = 11.0;

/// A scene's check can tell a mistake from rounding only where rounding alone stays well below
/// the values themselves: when the largest bound over the scene (Verification::resolution)
/// exceeds this share of the reference's root mean square, an error the size of a wrong
/// computation could hide under it, and a comparison within the bound is inconclusive.
inline constexpr double kResolutionShare = 1.0 / 16.0;

/// gamma(n) = n * u / (1 - n * u) with u = 2^-24, the relative error bound of n float32 roundings.
double roundingGamma(Index n);

/// roundingBound and worstCaseBound for one inner dimension K, with their constants computed
/// once: roundingBound(m, K) is BoundModel(K).bound(m). A check that bounds many elements of one K
/// builds one model (its gamma~ takes an exp).
struct BoundModel {
    Index inDim = 0;
    double gamma = 0.0;       ///< min(gamma~(K + 1), gamma(K + 1)): the rounding bound's
    double worstGamma = 0.0;  ///< gamma(K + 1), the worst case's (infinite once (K + 1) u >= 1)
    double underflow = 0.0;   ///< (K + 1) * 2^-125: one computation's underflow allowance
    bool enabled() const { return inDim > 0; }

    explicit BoundModel(Index k = 0);
    /// A lower bound of the exact s_ij from what is known without a product: s_ij >= |bias_j|,
    /// and |reference_ij| <= (1 + gamma) * s_ij + underflow since the reference is a correct
    /// product.
    double magnitudeLowerBound(float reference, float bias) const {
        const double fromReference = (std::abs(double(reference)) - underflow) / (1.0 + gamma);
        return std::max(std::abs(double(bias)), fromReference);
    }
    /// The bound for an exact magnitude s (or a lower bound of it).
    double boundOfExact(double s) const { return 2.0 * gamma * s + 2.0 * underflow; }
    /// The exact s at most, from a float32 sum of K + 1 nonnegative terms that came to `computed`.
    double widened(double computed, double g) const {
        return (computed + underflow) / (1.0 - std::min(g, 0.5));
    }
    /// roundingBound of a magnitude computed in float32.
    double bound(double computedMagnitude) const {
        return boundOfExact(widened(computedMagnitude, gamma));
    }
    /// worstCaseBound of a magnitude computed in float32.
    double worstCase(double computedMagnitude) const {
        return std::isinf(worstGamma)
                   ? worstGamma
                   : 2.0 * worstGamma * widened(computedMagnitude, worstGamma) + 2.0 * underflow;
    }
};

/// s = |x| @ |kernel| + |bias| for every element, shape (N, features), in float32. A second
/// product as large as the forward pass: verify() computes it only where it needs it; tests and
/// the sweep use this to know every element's bound.
Matrix magnitudes(const MatrixCRef& x, const MatrixCRef& kernel, const RowVectorCRef& bias);

/// The distance in units in the last place between two float32 values: the number of floats
/// between them, counting +0 and -0 as the same value. Non-finite values: NaN gives UINT64_MAX.
std::uint64_t ulpDistance(float a, float b);

/// What the check concludes.
///   Passed: every element within its rounding bound, and the bound small against the values
///     (every element bit-identical counts as passed at any size);
///   Failed: an element beyond even the worst-case bound (more than rounding can explain on any
///     data), a NaN or an infinity, or differing shapes;
///   Inconclusive: an element beyond the rounding bound but within its worst case (independent
///     roundings practically never get there, roundings that agree can: constant arrays summed
///     over many rows), or every element within its bound but at this size float32 rounding
///     alone may reach `resolution`, more than kResolutionShare of the values: a wrong
///     computation could hide under it.
enum class Verdict { Passed, Failed, Inconclusive };

/// "passed" / "failed" / "inconclusive", as the CLI and JSON spell them.
std::string_view toString(Verdict verdict);

struct Verification {
    CheckRule rule = CheckRule::RoundingBound;  ///< what decided `verdict`
    Verdict verdict = Verdict::Passed;
    bool passed() const { return verdict == Verdict::Passed; }
    /// Empty when the shapes agree, else "shapes differ: (2, 4) vs (2, 12)" (output vs reference);
    /// then no element is compared and the error figures are NaN.
    std::string shapeMismatch;

    Index elements = 0;        ///< elements compared: N * features
    Index bitIdentical = 0;    ///< elements with the same float32 bits in both (NaN excluded)
    Index nanElements = 0;     ///< elements where either array holds NaN or an infinity
    std::uint64_t maxUlp = 0;  ///< largest ulpDistance over the elements
    double maxAbsError = 0.0;  ///< max |actual - reference|
    double maxRelError = 0.0;  ///< max |actual - reference| / |reference| over nonzero refs
    Index worstRow = 0;        ///< where the largest absolute error is
    Index worstCol = 0;
    bool allclose = true;  ///< numpy allclose with `tolerance`
    Tolerance tolerance;

    /// K of the rounding bound (in_dim); 0 when the operands were not given (allclose only).
    Index inDim = 0;
    /// Elements whose error exceeds their rounding bound.
    Index overBound = 0;
    /// Elements whose error exceeds even the worst-case bound: no correct float32 computation
    /// reaches them, whatever the data.
    Index overWorstCase = 0;
    /// The largest error / roundingBound over the elements whose bound was computed: every element
    /// a cheap first test could not clear, and the 8 largest absolute errors. Every other element
    /// is proven within its bound by that test (its error is below the bound of a lower bound of
    /// its magnitude), so the verdict covers all of them. NaN when the operands were not given.
    double maxErrorOverBound = 0.0;
    Index worstBoundRow = 0;  ///< where that largest ratio is
    Index worstBoundCol = 0;
    /// The largest error / worstCaseBound over the same elements: above 1, the check fails.
    double maxErrorOverWorstCase = 0.0;
    /// The largest rounding bound any element of this scene can have, from norms: 2 * gamma~(K + 1)
    /// * max_j (max_i ||x_i||_2 * ||kernel[:, j]||_2 + |bias_j|) + the underflow term (Cauchy-
    /// Schwarz: s_ij <= ||x_i|| ||kernel[:, j]|| + |bias_j|). What float32 rounding alone may reach
    /// here. NaN when it was not needed: the operands were not given, the rule is allclose, or
    /// every element is bit-identical.
    double resolution = 0.0;
    /// The root mean square of the reference's finite elements: the size of the values.
    double valueScale = 0.0;
};

/// The check's rule and its verdicts for --help, a paragraph of lines under 100 characters: the
/// bound with lambda and the chance of a false alarm, and what fails, passes and is inconclusive.
std::string checkRuleHelp();

/// Why an inconclusive verdict could not tell, in words: "summing 262144 terms, float32 rounding
/// alone may reach 0.26, more than 1/16 of the values' size (root mean square 0.98): an error the
/// size of a wrong computation could hide under it", the terms v.inDim (in_dim for the layer's
/// output, the hidden width for the MLP block's dx, the batch for a dkernel). Empty unless
/// `v.verdict` is Inconclusive.
std::string inconclusiveReason(const Verification& v);

/// The full check of a split forward pass `actual` against `reference` = x @ kernel + bias, both
/// (N, features) when the split is right; x (N, K), kernel (K, features), bias (features).
/// Counts bit-identical elements and ULPs, the allclose figures, and each element's error against
/// its roundingBound. The magnitude s_ij is computed only where a cheap test (the bound of the
/// lower bound s_ij >= max(|bias_j|, |reference_ij| / (1 + gamma~(K + 1)))) cannot clear the
/// error, so a correct scene pays a small fraction of the forward pass for it; the resolution
/// needs the kernel's column norms (one read of the kernel), computed only when some element is
/// not bit-identical and the rule is the rounding bound. `settings.rule` picks what decides
/// `verdict`.
Verification verify(const MatrixCRef& actual, const MatrixCRef& reference, const MatrixCRef& x,
                    const MatrixCRef& kernel, const RowVectorCRef& bias,
                    const CheckSettings& settings = {});

/// Each element's bounds, known ahead of the comparison: for a computation of several stages (the
/// MLP block, block/mlp_check.h), whose bound carries each stage's difference into the next.
/// `bound` is the rounding bound of each element (roundingBound's model), `worstCase` its worst
/// case; both the shape of the arrays compared.
struct ElementBounds {
    Matrix bound;
    Matrix worstCase;
    Index inDim = 0;  ///< K of the last product, as Verification::inDim reports it
};

/// The check of `actual` against `reference` within `bounds`: the same figures and verdict as
/// verify(), each element's ratio taken against its own bound, the resolution the largest bound.
Verification verifyWithin(const MatrixCRef& actual, const MatrixCRef& reference,
                          const ElementBounds& bounds, const CheckSettings& settings = {});

/// Compares two arrays without knowing what they sum: rule Allclose, the rounding figures NaN.
/// Any NaN or infinity in either fails it.
Verification verify(const MatrixCRef& actual, const MatrixCRef& reference,
                    Tolerance tolerance = {});

}  // namespace tp
