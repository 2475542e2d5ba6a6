// The GeLU of the MLP block (jax.nn.gelu's tanh form in float32) and its derivative, each against
// the same formula in double precision over every float32 of |x| <= 64 in steps of 2^-10 and a
// sweep of tiny and huge values: every evaluation within its stated rounding bound, and the bound
// not far above what rounding reaches.

#include "block/gelu.h"

#include <QTest>

#include <cmath>
#include <vector>

using namespace tp;

namespace {

// The formula in double, with the same float32 constants.
double exactGelu(double x) {
    const double inner = double(kGeluScale) * (x + double(kGeluCubic) * x * x * x);
    return x * 0.5 * (1.0 + std::tanh(inner));
}

double exactDerivative(double x) {
    const double t = std::tanh(double(kGeluScale) * (x + double(kGeluCubic) * x * x * x));
    return 0.5 * (1.0 + t) +
           x * 0.5 * (1.0 - t * t) * double(kGeluScale) * (1.0 + 3.0 * double(kGeluCubic) * x * x);
}

std::vector<float> sweep() {
    std::vector<float> xs;
    for (int i = -64 * 1024; i <= 64 * 1024; ++i)
        xs.push_back(float(i) / 1024.0f);
    for (float x = 1e-30f; x < 1e4f; x *= 1.37f) {
        xs.push_back(x);
        xs.push_back(-x);
    }
    for (int i = 1; i < 200000; ++i)  // odd values in [-8, 8] that no power-of-two step hits
        xs.push_back(std::nextafter(-8.0f, 8.0f) + float(i) * 8.0e-5f);
    return xs;
}

}  // namespace

class TestGelu : public QObject {
    Q_OBJECT

private slots:
    void theFormulaAtKnownPoints() {
        QCOMPARE(gelu(0.0f), 0.0f);
        QVERIFY(std::abs(gelu(1.0f) - 0.841192f) < 1e-6f);  // jax.nn.gelu(1.0)
        QVERIFY(std::abs(gelu(-1.0f) + 0.158808f) < 1e-6f);
        QVERIFY(std::abs(geluDerivative(0.0f) - 0.5f) < 1e-7f);
        QCOMPARE(gelu(20.0f), 20.0f);
        QCOMPARE(gelu(-20.0f), -0.0f);
    }

    void everyEvaluationIsWithinItsBound() {
        double worst = 0, worstDerivative = 0;
        for (const float x : sweep()) {
            const double error = std::abs(double(gelu(x)) - exactGelu(x));
            const double bound = geluRoundingBound(x);
            QVERIFY2(error <= bound,
                     qPrintable(QStringLiteral("gelu(%1)").arg(double(x), 0, 'g', 9)));
            worst = std::max(worst, error / bound);
            const double dError = std::abs(double(geluDerivative(x)) - exactDerivative(x));
            const double dBound = geluDerivativeRoundingBound(x);
            QVERIFY2(dError <= dBound,
                     qPrintable(QStringLiteral("gelu'(%1)").arg(double(x), 0, 'g', 9)));
            worstDerivative = std::max(worstDerivative, dError / dBound);
        }
        // The bounds are the rounding's, not a multiple of it: rounding reaches a good part of
        // them.
        QVERIFY2(worst > 0.15, qPrintable(QString::number(worst)));
        QVERIFY2(worstDerivative > 0.1, qPrintable(QString::number(worstDerivative)));
        qInfo("largest error over bound: gelu %.3f, gelu' %.3f", worst, worstDerivative);
    }

    void theSlopeAndCurvatureBoundsHold() {
        for (double x = -30; x <= 30; x += 1e-3) {
            QVERIFY(std::abs(exactDerivative(x)) <= kGeluMaxSlope);
            const double curvature = (exactDerivative(x + 1e-5) - exactDerivative(x - 1e-5)) / 2e-5;
            QVERIFY(std::abs(curvature) <= kGeluMaxCurvature);
        }
    }
};

QTEST_MAIN(TestGelu)
#include "tst_gelu.moc"
