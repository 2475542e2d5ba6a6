#pragma once

// How close a split forward pass is to the reference x @ kernel + bias, and whether the difference
// is what float32 rounding can produce (the default verdict) or a mistake.

#include "eigen_types.h"

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

/// Which test decides Verification::passed.
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

/// The rounding bound of one output element of y = x @ kernel + bias (kernel (K, features)):
///
///   |y - ref|_ij <= 2 * gamma(K + 1) * s_ij + 2 * (K + 1) * 2^-125,
///   s_ij = (|x| @ |kernel|)_ij + |bias_j|,   gamma(n) = n * u / (1 - n * u),   u = 2^-24.
///
/// Why this form and constant: each of the two float32 computations (the split pass and the full
/// product) sums K products and the bias with K additions in some order. Whatever the order
/// (Eigen's blocking over K, the sliced product's own blocking, the row groups' partial sums),
/// and whether or not a multiply and an add fuse (an FMA only removes a rounding), every term
/// passes through at most K + 1 roundings, so each result is within gamma(K + 1) * s_ij of the
/// exact sum (Higham, Accuracy and Stability of Numerical Algorithms, §3.1); the two together are
/// within 2 * gamma(K + 1) * s_ij of each other. The last term covers underflow: each rounding may
/// lose up to 2^-126 absolutely when a result falls below the normal range (even with flush to
/// zero), twice over for slack. The bound is therefore safe by construction: no correct split
/// fails it, at any size, on any data. It is deliberately not a sqrt(K) estimate: a probabilistic
/// bound holds only with high probability per element, and a scene has up to 10^8 elements.
/// Measured over the sweeps in tests/core/tst_verification.cpp and tests/bench/sweep_rounding.cpp
/// (real NNX layers, both modes and PRNG layouts, batch up to 256, in_dim up to 16384, tp up to
/// 64), correct splits differ by at most about 3 u * s_ij: below 3 / (K + 1) of this bound
/// (0.13 at K = 8, 0.0018 at K = 1024, 0.00035 at K = 4096), a margin of K / 1.5 that grows with
/// the size. The mistakes in mistakes.h exceed it by orders of magnitude.
///
/// `magnitude` is s_ij as computed in float32, a sum of K + 1 nonnegative terms: it is widened by
/// its own rounding, s <= (magnitude + (K + 1) * 2^-125) / (1 - gamma(K + 1)), so that the bound
/// holds for the exact s. With K + 1 >= 2^24 the worst case explains any difference: infinite.
double roundingBound(double magnitude, Index inDim);

/// gamma(n) = n * u / (1 - n * u) with u = 2^-24, the relative error bound of n float32 roundings.
double roundingGamma(Index n);

/// s = |x| @ |kernel| + |bias| for every element, shape (N, features), in float32. A second
/// product as large as the forward pass: verify() computes it only where it needs it; tests and
/// the sweep use this to know every element's bound.
Matrix magnitudes(const MatrixCRef& x, const MatrixCRef& kernel, const RowVectorCRef& bias);

/// The distance in units in the last place between two float32 values: the number of floats
/// between them, counting +0 and -0 as the same value. Non-finite values: NaN gives UINT64_MAX.
std::uint64_t ulpDistance(float a, float b);

struct Verification {
    CheckRule rule = CheckRule::RoundingBound;  ///< what decided `passed`
    bool passed = true;                         ///< the verdict; NaN or differing shapes never pass
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
    /// The largest error / roundingBound over the elements whose bound was computed: every element
    /// a cheap first test could not clear, and the 8 largest absolute errors. Every other element
    /// is proven within its bound by that test (its error is below the bound of a lower bound of
    /// its magnitude), so `passed` covers all of them. NaN when the operands were not given.
    double maxErrorOverBound = 0.0;
    Index worstBoundRow = 0;  ///< where that largest ratio is
    Index worstBoundCol = 0;
};

/// The full check of a split forward pass `actual` against `reference` = x @ kernel + bias, both
/// (N, features) when the split is right; x (N, K), kernel (K, features), bias (features).
/// Counts bit-identical elements and ULPs, the allclose figures, and each element's error against
/// its roundingBound. The magnitude s_ij is computed only where a cheap test (the bound of the
/// lower bound s_ij >= max(|bias_j|, |reference_ij| / (1 + gamma(K + 1)))) cannot clear the error,
/// so a correct scene pays a small fraction of the forward pass for it. `settings.rule` picks what
/// decides `passed`.
Verification verify(const MatrixCRef& actual, const MatrixCRef& reference, const MatrixCRef& x,
                    const MatrixCRef& kernel, const RowVectorCRef& bias,
                    const CheckSettings& settings = {});

/// Compares two arrays without knowing what they sum: rule Allclose, the rounding figures NaN.
/// Any NaN or infinity in either fails it.
Verification verify(const MatrixCRef& actual, const MatrixCRef& reference,
                    Tolerance tolerance = {});

}  // namespace tp
