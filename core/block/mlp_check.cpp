#include "block/mlp_check.h"

#include "block/gelu.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace tp {
namespace {

constexpr double kUnitRoundoff = 0x1p-24;

// |factor| as the product reads it.
Matrix absolute(const ProductFactor& f) {
    return f.transposed ? Matrix(f.matrix.transpose().cwiseAbs()) : Matrix(f.matrix.cwiseAbs());
}

// A float32 sum of nonnegative terms, widened by its own `terms` roundings so that it bounds the
// exact sum (infinite once gamma(terms) is).
class Widening {
public:
    explicit Widening(Index terms) : gamma_(roundingGamma(terms)), finite_(std::isfinite(gamma_)) {}
    double operator()(float value) const {
        return finite_ ? double(value) * (1.0 + gamma_) : INFINITY;
    }

private:
    double gamma_;
    bool finite_;
};

// Each element's bound from M and D (absent: zero): roundingBound, or worstCaseBound when `worst`,
// of M widened by its own roundings (each widened factor element carries one more, each sum K + 1
// of its own), plus D widened by its own. Each element is its own: the rows run on every thread.
Matrix elementBounds(const Matrix& m, const Matrix* d, Index k, bool worst) {
    const BoundModel model(k);
    const Widening magnitude(k + 3);
    const Widening difference(2 * k + 4);
    Matrix bound(m.rows(), m.cols());
#pragma omp parallel for schedule(static)
    for (Index r = 0; r < m.rows(); ++r)
        for (Index c = 0; c < m.cols(); ++c) {
            const double s = magnitude(m(r, c));
            const double rounding = worst ? model.worstCase(s) : model.bound(s);
            bound(r, c) = float(rounding + difference(d ? (*d)(r, c) : 0.0f));
        }
    return bound;
}

// M = (|A| + dA) @ wideB + |bias|, wideB being |B| + dB (dA nullptr: none).
Matrix magnitudes(const Matrix& absA, const Matrix* da, const Matrix& wideB,
                  const RowVectorCRef* bias) {
    Matrix m = da ? product(Matrix(absA + *da), wideB) : product(absA, wideB);
    if (bias)
        m.rowwise() += bias->cwiseAbs();
    return m;
}

// One of the two bounds, for factors' differences dA and dB of its kind (nullptr: none): M and D
// (the formulas at the top of mlp_check.h), then each element's bound.
Matrix productBound(const Matrix& absA, const Matrix* da, const Matrix& absB, const Matrix* db,
                    const RowVectorCRef* bias, bool worst) {
    const Matrix wideB = db ? Matrix(absB + *db) : Matrix();
    const Matrix& b = db ? wideB : absB;
    const Matrix m = magnitudes(absA, da, b, bias);
    Matrix d = Matrix::Zero(m.rows(), m.cols());
    if (da)
        multiplyAdd(d, *da, b);
    if (db)
        multiplyAdd(d, absA, *db);
    return elementBounds(m, &d, absA.cols(), worst);
}

}  // namespace

ElementBounds productBounds(const ProductFactor& a, const ElementBounds* da, const ProductFactor& b,
                            const ElementBounds* db, const RowVectorCRef* bias) {
    assert(a.cols() == b.rows());
    const Matrix absA = absolute(a);
    const Matrix absB = absolute(b);
    ElementBounds out;
    out.inDim = a.cols();
    if (!da && !db) {
        // Both passes read the same factors: D is zero and one M serves both bounds.
        const Matrix m = magnitudes(absA, nullptr, absB, bias);
        out.bound = elementBounds(m, nullptr, out.inDim, false);
        out.worstCase = elementBounds(m, nullptr, out.inDim, true);
        return out;
    }
    out.bound =
        productBound(absA, da ? &da->bound : nullptr, absB, db ? &db->bound : nullptr, bias, false);
    out.worstCase = productBound(absA, da ? &da->worstCase : nullptr, absB,
                                 db ? &db->worstCase : nullptr, bias, true);
    return out;
}

ElementBounds geluBounds(const MatrixCRef& h, const ElementBounds& dh) {
    ElementBounds out;
    out.inDim = dh.inDim;
    const auto one = [&h](const Matrix& d) {
        Matrix m(h.rows(), h.cols());
#pragma omp parallel for schedule(static)
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
#pragma omp parallel for schedule(static)
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
