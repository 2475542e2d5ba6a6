#include "block/mlp_check.h"

#include "block/gelu.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace tp {
namespace {

constexpr double kUnitRoundoff = 0x1p-24;

// The factor as the product reads it, |factor| + difference (when given), as a matrix.
Matrix widened(const ProductFactor& f, const Matrix* difference) {
    Matrix m = f.transposed ? Matrix(f.matrix.transpose().cwiseAbs()) : Matrix(f.matrix.cwiseAbs());
    if (difference)
        m += *difference;
    return m;
}

// A float32 sum of nonnegative terms, widened so that it bounds the exact sum: `terms` roundings.
double widen(float value, Index terms) {
    const double gamma = roundingGamma(terms);
    return std::isfinite(gamma) ? double(value) * (1.0 + gamma) : INFINITY;
}

// One of the two bounds: roundingBound or worstCaseBound for the magnitudes M, plus D.
Matrix productBound(const ProductFactor& a, const Matrix* da, const ProductFactor& b,
                    const Matrix* db, const RowVectorCRef* bias, bool worst) {
    const Index k = a.cols();
    const Matrix absA = widened(a, nullptr);
    const Matrix absB = widened(b, nullptr);
    const Matrix wideA = da ? Matrix(absA + *da) : absA;
    const Matrix wideB = db ? Matrix(absB + *db) : absB;
    Matrix m = product(wideA, wideB);
    if (bias)
        m.rowwise() += bias->cwiseAbs();
    Matrix d = Matrix::Zero(m.rows(), m.cols());
    if (da)
        multiplyAdd(d, *da, wideB);
    if (db)
        multiplyAdd(d, absA, *db);
    Matrix bound(m.rows(), m.cols());
    for (Index r = 0; r < m.rows(); ++r)
        for (Index c = 0; c < m.cols(); ++c) {
            // Each widened factor element carries one more rounding, each sum K + 1 of its own.
            const double magnitude = widen(m(r, c), k + 3);
            const double rounding =
                worst ? worstCaseBound(magnitude, k) : roundingBound(magnitude, k);
            bound(r, c) = float(rounding + widen(d(r, c), 2 * k + 4));
        }
    return bound;
}

}  // namespace

ElementBounds productBounds(const ProductFactor& a, const ElementBounds* da, const ProductFactor& b,
                            const ElementBounds* db, const RowVectorCRef* bias) {
    assert(a.cols() == b.rows());
    ElementBounds out;
    out.inDim = a.cols();
    out.bound =
        productBound(a, da ? &da->bound : nullptr, b, db ? &db->bound : nullptr, bias, false);
    out.worstCase = productBound(a, da ? &da->worstCase : nullptr, b, db ? &db->worstCase : nullptr,
                                 bias, true);
    return out;
}

ElementBounds geluBounds(const MatrixCRef& h, const ElementBounds& dh) {
    ElementBounds out;
    out.inDim = dh.inDim;
    const auto one = [&h](const Matrix& d) {
        Matrix m(h.rows(), h.cols());
        for (Index r = 0; r < h.rows(); ++r)
            for (Index c = 0; c < h.cols(); ++c) {
                const double input = std::abs(double(h(r, c))) + double(d(r, c));
                m(r, c) = float(kGeluMaxSlope * double(d(r, c)) * (1.0 + 4 * kUnitRoundoff) +
                                2.0 * geluRoundingBound(float(input * (1.0 + kUnitRoundoff))));
            }
        return m;
    };
    out.bound = one(dh.bound);
    out.worstCase = one(dh.worstCase);
    return out;
}

ElementBounds geluGradientBounds(const MatrixCRef& da, const ElementBounds& dda,
                                 const MatrixCRef& h, const ElementBounds& dhh) {
    assert(da.rows() == h.rows() && da.cols() == h.cols());
    ElementBounds out;
    out.inDim = dda.inDim;
    const auto one = [&](const Matrix& ddaBound, const Matrix& dhBound) {
        Matrix m(h.rows(), h.cols());
        for (Index r = 0; r < h.rows(); ++r)
            for (Index c = 0; c < h.cols(); ++c) {
                const double dh = dhBound(r, c);
                const double input = (std::abs(double(h(r, c))) + dh) * (1.0 + kUnitRoundoff);
                const double dg =
                    kGeluMaxCurvature * dh + 2.0 * geluDerivativeRoundingBound(float(input));
                const double g = std::abs(double(geluDerivative(h(r, c)))) + dg;
                const double a = std::abs(double(da(r, c)));
                const double d = ddaBound(r, c);
                const double bound = d * g + a * dg + 2.0 * kUnitRoundoff * (a + d) * g;
                m(r, c) = float(bound * (1.0 + 8 * kUnitRoundoff));
            }
        return m;
    };
    out.bound = one(dda.bound, dhh.bound);
    out.worstCase = one(dda.worstCase, dhh.worstCase);
    return out;
}

ElementBounds transposedBounds(const ElementBounds& bounds) {
    return {bounds.bound.transpose(), bounds.worstCase.transpose(), bounds.inDim};
}

MlpForwardBounds mlpForwardBounds(const MlpParams& p, const MlpReference& r) {
    MlpForwardBounds b;
    const RowVectorCRef bias1 = p.bias1;
    const RowVectorCRef bias2 = p.bias2;
    b.h = productBounds(p.x, nullptr, p.kernel1, nullptr, &bias1);
    b.a = geluBounds(r.h, b.h);
    b.output = productBounds(r.a, &b.a, p.kernel2, nullptr, &bias2);
    return b;
}

Verdict MlpVerification::verdict() const {
    const Verdict all[] = {h.verdict, a.verdict, output.verdict};
    if (std::find(std::begin(all), std::end(all), Verdict::Failed) != std::end(all))
        return Verdict::Failed;
    if (std::find(std::begin(all), std::end(all), Verdict::Inconclusive) != std::end(all))
        return Verdict::Inconclusive;
    return Verdict::Passed;
}

MlpVerification verifyMlp(const MlpForward& split, const MlpReference& reference,
                          const MlpForwardBounds& bounds, const CheckSettings& settings) {
    return {verifyWithin(split.h, reference.h, bounds.h, settings),
            verifyWithin(split.a, reference.a, bounds.a, settings),
            verifyWithin(split.output, reference.output, bounds.output, settings)};
}

}  // namespace tp
