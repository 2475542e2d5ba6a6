// The MLP block's product bounds (block/mlp_check.h) against their formulas, element by element:
// M = (|A| + dA) @ (|B| + dB) + |bias| and D = dA @ (|B| + dB) + |A| @ dB, each element's bound
// roundingBound (worstCaseBound) of M widened by gamma(K + 3), plus D widened by gamma(2K + 4).
// The check computes each model's constants once, shares M between the two bounds where no
// factor differs, and runs the elements on every thread: none of that may move a bit.

#include "block/mlp_check.h"
#include "matrix_bits.h"
#include "random_matrix.h"

#include <QTest>

#include <cmath>

using namespace tp;
using tp::test::randomMatrix;
using tp::test::sameBits;

namespace {

// Differences of both kinds, each element nonnegative, the worst case's the larger.
ElementBounds differences(Index rows, Index cols, unsigned seed) {
    const Matrix small = randomMatrix(rows, cols, seed).cwiseAbs() * 1e-6f;
    return {small, Matrix(small * 3.0f), 0};
}

double widened(float value, Index terms) {
    const double gamma = roundingGamma(terms);
    return std::isfinite(gamma) ? double(value) * (1.0 + gamma) : INFINITY;
}

// One bound by its formula, a product at a time and an element at a time.
Matrix formula(const Matrix& a, const Matrix* da, const Matrix& b, const Matrix* db,
               const RowVector* bias, bool worst) {
    const Index k = a.cols();
    const Matrix absA = a.cwiseAbs();
    const Matrix wideA = da ? Matrix(absA + *da) : absA;
    const Matrix wideB = db ? Matrix(b.cwiseAbs() + *db) : Matrix(b.cwiseAbs());
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
            const double s = widened(m(r, c), k + 3);
            const double rounding = worst ? worstCaseBound(s, k) : roundingBound(s, k);
            bound(r, c) = float(rounding + widened(d(r, c), 2 * k + 4));
        }
    return bound;
}

}  // namespace

class TestMlpCheck : public QObject {
    Q_OBJECT

private slots:
    void productBoundsAreTheirFormulaElementByElement_data() {
        QTest::addColumn<bool>("withDa");
        QTest::addColumn<bool>("withDb");
        QTest::addColumn<bool>("withBias");
        QTest::newRow("no differences, bias") << false << false << true;
        QTest::newRow("no differences") << false << false << false;
        QTest::newRow("dA") << true << false << true;
        QTest::newRow("dB") << false << true << false;
        QTest::newRow("dA and dB") << true << true << true;
    }
    void productBoundsAreTheirFormulaElementByElement() {
        QFETCH(bool, withDa);
        QFETCH(bool, withDb);
        QFETCH(bool, withBias);
        // Rows enough for every thread to take some.
        const Index n = 67, k = 300, m = 45;
        const Matrix a = randomMatrix(n, k, 7);
        const Matrix b = randomMatrix(k, m, 8);
        const RowVector bias = randomMatrix(1, m, 9);
        const ElementBounds da = differences(n, k, 10);
        const ElementBounds db = differences(k, m, 11);
        const RowVectorCRef biasRef = bias;
        const ElementBounds out = productBounds(
            a, withDa ? &da : nullptr, b, withDb ? &db : nullptr, withBias ? &biasRef : nullptr);
        QCOMPARE(out.inDim, k);
        const RowVector* biasUsed = withBias ? &bias : nullptr;
        QVERIFY(sameBits(out.bound, formula(a, withDa ? &da.bound : nullptr, b,
                                            withDb ? &db.bound : nullptr, biasUsed, false)));
        QVERIFY(sameBits(out.worstCase, formula(a, withDa ? &da.worstCase : nullptr, b,
                                                withDb ? &db.worstCase : nullptr, biasUsed, true)));
        QVERIFY((out.worstCase.array() >= out.bound.array()).all());
    }

    // A factor read transposed gives the bounds of the transposed copy.
    void aTransposedFactorIsReadAsItsTranspose() {
        const Matrix a = randomMatrix(40, 9, 12);  // read as (9, 40)
        const Matrix b = randomMatrix(40, 13, 13);
        const ElementBounds db = differences(40, 13, 14);
        const Matrix aT = a.transpose();
        const ElementBounds byView = productBounds(transposed(a), nullptr, b, &db);
        const ElementBounds byCopy = productBounds(aT, nullptr, b, &db);
        QVERIFY(sameBits(byView.bound, byCopy.bound));
        QVERIFY(sameBits(byView.worstCase, byCopy.worstCase));
    }

    // Past 2^23 terms D's own widening, gamma(2K + 4), is infinite: so are both bounds, even where
    // D is zero and M's own widening is finite.
    void aBoundPastFloatRangeOfTermsIsInfinite() {
        const Index k = Index(1) << 23;
        const Matrix a = Matrix::Constant(1, k, 0.5f);
        const Matrix b = Matrix::Constant(k, 1, 0.25f);
        const ElementBounds out = productBounds(a, nullptr, b, nullptr);
        QVERIFY(std::isinf(out.bound(0, 0)) && std::isinf(out.worstCase(0, 0)));
        QVERIFY(sameBits(out.bound, formula(a, nullptr, b, nullptr, nullptr, false)));
        QVERIFY(sameBits(out.worstCase, formula(a, nullptr, b, nullptr, nullptr, true)));
    }
};

QTEST_APPLESS_MAIN(TestMlpCheck)
#include "tst_mlp_check.moc"
