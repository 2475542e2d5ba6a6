// The calibration's fit of alpha and beta: exact on timings the model made, close on noisy ones,
// and refusing what no positive bandwidth explains.

#include "devices/calibration.h"

#include <QTest>

#include <cmath>
#include <vector>

using namespace tp;

namespace {

// Timings of the three collectives on `devices` ranks, 8 B to 64 MiB by factors of 4, made by
// t = steps * alpha + sent / beta, each times (1 + noise * (-1)^i).
std::vector<CollectiveTiming> synthetic(std::int64_t devices, double alpha, double beta,
                                        double noise) {
    std::vector<CollectiveTiming> timings;
    int i = 0;
    for (const CollectiveKind kind :
         {CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::ReduceScatter})
        for (std::int64_t bytes = 8; bytes <= (std::int64_t(64) << 20); bytes *= 4, ++i) {
            const CollectiveCost cost = ringCost(kind, devices, bytes);
            const double t =
                double(cost.ringSteps) * alpha + double(cost.bytesSentPerDevice) / beta;
            timings.push_back({kind, devices, bytes, t * (1 + (i % 2 ? noise : -noise))});
        }
    return timings;
}

}  // namespace

class TestCalibration : public QObject {
    Q_OBJECT

private slots:
    void exact_data() {
        QTest::addColumn<qint64>("devices");
        QTest::addColumn<double>("alpha");
        QTest::addColumn<double>("beta");
        QTest::newRow("2 ranks, shared memory") << qint64(2) << 20e-6 << 5e9;
        QTest::newRow("4 ranks, 1 Gbit/s") << qint64(4) << 100e-6 << 1.25e8;
        QTest::newRow("8 GPUs, NVLink") << qint64(8) << 3.4e-6 << 370e9;
    }

    void exact() {
        QFETCH(qint64, devices);
        QFETCH(double, alpha);
        QFETCH(double, beta);
        const CollectiveFit fit = fitCollectives(synthetic(devices, alpha, beta, 0));
        QVERIFY(fit.valid);
        QVERIFY(std::abs(fit.alphaSeconds / alpha - 1) < 1e-9);
        QVERIFY(std::abs(fit.busBytesPerSecond / beta - 1) < 1e-9);
        QVERIFY(fit.worstResidual < 1e-9);
    }

    // 10% noise either way: the fit stays within it, and says its worst residual.
    void noisy() {
        const std::vector<CollectiveTiming> timings = synthetic(2, 30e-6, 4e9, 0.1);
        const CollectiveFit fit = fitCollectives(timings);
        QVERIFY(fit.valid);
        QVERIFY2(std::abs(fit.alphaSeconds / 30e-6 - 1) < 0.1,
                 qPrintable(QString::number(fit.alphaSeconds)));
        QVERIFY(std::abs(fit.busBytesPerSecond / 4e9 - 1) < 0.1);
        QVERIFY(fit.worstResidual > 0.05 && fit.worstResidual < 0.25);
        double worst = 0;
        for (const CollectiveTiming& t : timings)
            worst = std::max(worst, std::abs(fittedSeconds(fit, t) / t.seconds - 1));
        QCOMPARE(fit.worstResidual, worst);
    }

    // Times that fall as the size grows have no positive latency: the bandwidth alone is fitted.
    void negativeLatency() {
        std::vector<CollectiveTiming> timings = synthetic(2, 0, 1e9, 0);
        timings.front().seconds *= 0.5;
        const CollectiveFit fit = fitCollectives(timings);
        QVERIFY(fit.valid);
        QCOMPARE(fit.alphaSeconds, 0.0);
        QVERIFY(fit.busBytesPerSecond > 0);
    }

    void tooFew() {
        QVERIFY(!fitCollectives({}).valid);
        const std::vector<CollectiveTiming> one{{CollectiveKind::AllReduce, 2, 1024, 1e-5}};
        QVERIFY(!fitCollectives(one).valid);
    }
};

QTEST_APPLESS_MAIN(TestCalibration)
#include "tst_calibration.moc"
