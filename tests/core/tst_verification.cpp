// The check of a split forward pass: the float32 rounding bound, its figures, and a sweep of
// correct splits of real NNX layers, none of which may fail it.

#include "layer/float_format.h"
#include "layer/verification.h"
#include "scene/scene.h"
#include "scene/scene_request.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace tp;

namespace {

constexpr double kU = 0x1p-24;

float ulpsAbove(float value, int ulps) {
    for (int i = 0; i < ulps; ++i)
        value = std::nextafter(value, std::numeric_limits<float>::infinity());
    return value;
}

// The exact largest error / roundingBound over every element, from the full magnitude product.
struct ExactRatio {
    double maxRatio = 0.0;
    Index overBound = 0;
};

ExactRatio exactRatio(const Scene& scene) {
    const LayerParams& p = scene.params;
    const Matrix s = magnitudes(p.x, p.kernel, p.bias);
    ExactRatio exact;
    for (Index r = 0; r < s.rows(); ++r)
        for (Index c = 0; c < s.cols(); ++c) {
            const double error =
                std::abs(double(scene.result.output(r, c)) - double(scene.reference(r, c)));
            const double ratio = error / roundingBound(s(r, c), p.kernel.rows());
            exact.maxRatio = std::max(exact.maxRatio, ratio);
            exact.overBound += ratio > 1.0;
        }
    return exact;
}

// The bound allows about 2 * 11 * sqrt(K + 1) u * s; correct splits measure at most about 3 u * s
// over the sweep in tests/bench/sweep_rounding. Past 20 u * s this test calls it a regression of
// the forward pass, long before the bound itself could be reached.
constexpr double kSweepCeilingUnits = 20.0;

}  // namespace

class TestVerification : public QObject {
    Q_OBJECT

private slots:
    // The sweep: correct splits of real nnx.Linear layers, both modes, both PRNG layouts, several
    // seeds, batch up to 256, in_dim up to 16384, tp up to 64. Every one passes; the reported
    // largest ratio is the exact largest over every element.
    void correctSplitsPass_data() {
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("inDim");
        QTest::addColumn<int>("features");
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("row");
        QTest::addColumn<bool>("legacy");
        QTest::addColumn<qint64>("seed");
        QTest::addColumn<float>("biasStddev");  // 0: zeros
        struct Shape {
            int batch, inDim, features, tp;
            bool row, legacy;
            qint64 seed;
            float bias;
        };
        const Shape shapes[] = {
            {1, 1, 1, 1, false, false, 0, 0},
            {2, 8, 12, 3, false, false, 0, 0},
            {2, 8, 12, 4, true, true, 1, 0.5f},
            {3, 5, 7, 7, false, true, 7, 0},
            {4, 64, 64, 4, true, false, 42, 0},
            {16, 128, 256, 8, false, false, -3, 0.5f},
            {1, 1000, 10, 10, true, true, 5, 0},
            {256, 256, 256, 64, false, false, 11, 0},
            {256, 256, 256, 64, true, true, 11, 0.5f},
            {32, 512, 1024, 16, false, true, 2, 0},
            {7, 777, 21, 3, true, false, 3, 0},
            {64, 1024, 1024, 8, false, false, 0, 0.5f},
            {64, 1024, 1024, 8, true, true, 0, 0},
            {1, 4096, 64, 64, true, false, 9, 0},
            {128, 2048, 512, 2, false, true, 123456789, 0},
            {128, 2048, 512, 32, true, false, 123456789, 0},
            {256, 1024, 4096, 64, false, false, 0, 0},
            {64, 4096, 4096, 8, false, false, 0, 0},
            {64, 4096, 4096, 8, true, false, 0, 0},
            {64, 4096, 4096, 8, false, true, 1, 0.5f},
            {8, 16384, 4096, 16, true, false, 0, 0},
            {4, 2048, 2048, 2, true, false, 0, 0},
            {2, 16384, 256, 64, true, true, 4, 0},
            {2, 16384, 256, 64, false, false, 4, 0.5f},
            {256, 512, 64, 1, false, false, 8, 0},
            {100, 300, 600, 5, false, true, -1, 0},
            {100, 300, 600, 5, true, false, -1, 0.5f},
            {13, 97, 97, 97, false, false, 97, 0},
            {13, 97, 97, 97, true, true, 97, 0},
            {1, 8192, 2048, 8, false, true, 6, 0},
            {200, 3000, 48, 6, true, false, 12, 0},
            {48, 640, 1280, 40, false, false, 13, 0.5f},
            {5, 10000, 100, 50, true, true, 14, 0},
            {256, 16384, 64, 64, true, false, 15, 0},
            {256, 16384, 64, 64, false, true, 16, 0},
            {256, 4096, 1024, 16, true, false, 17, 0.5f},
        };
        for (const Shape& s : shapes) {
            const QString name = QString("%1x%2x%3 tp%4 %5 %6 seed%7%8")
                                     .arg(s.batch)
                                     .arg(s.inDim)
                                     .arg(s.features)
                                     .arg(s.tp)
                                     .arg(s.row ? "row" : "column")
                                     .arg(s.legacy ? "legacy" : "partitionable")
                                     .arg(s.seed)
                                     .arg(s.bias > 0 ? " bias" : "");
            QTest::newRow(qPrintable(name)) << s.batch << s.inDim << s.features << s.tp << s.row
                                            << s.legacy << s.seed << s.bias;
        }
    }

    void correctSplitsPass() {
        QFETCH(int, batch);
        QFETCH(int, inDim);
        QFETCH(int, features);
        QFETCH(int, tp);
        QFETCH(bool, row);
        QFETCH(bool, legacy);
        QFETCH(qint64, seed);
        QFETCH(float, biasStddev);
        LayerConfig config{.batch = batch,
                           .inDim = inDim,
                           .features = features,
                           .tpSize = tp,
                           .seed = seed,
                           .mode = row ? ParallelMode::Row : ParallelMode::Column,
                           .prng = legacy ? PrngLayout::Legacy : PrngLayout::Partitionable};
        if (biasStddev > 0)
            config.bias = BiasInit{BiasInit::Kind::Normal, biasStddev};
        QVERIFY(config.validate().empty());
        const auto scene = computeScene({config, SceneSource::Nnx});
        QVERIFY(scene);
        const Verification& v = scene->verification;
        QVERIFY2(v.passed(), qPrintable(QString("ratio %1, resolution %2 against values %3")
                                            .arg(v.maxErrorOverBound)
                                            .arg(v.resolution)
                                            .arg(v.valueScale)));
        QVERIFY(v.rule == CheckRule::RoundingBound);
        QCOMPARE(v.overBound, Index(0));
        QCOMPARE(v.elements, Index(batch) * features);

        const ExactRatio exact = exactRatio(*scene);
        QCOMPARE(exact.overBound, Index(0));
        QVERIFY2(exact.maxRatio * 2 * probabilisticGamma(inDim + 1) < kSweepCeilingUnits * kU,
                 qPrintable(QString::number(exact.maxRatio)));
        // The reported ratio is the largest over the elements whose bound was computed (those
        // the cheap test could not clear and the largest errors): never above the exact largest,
        // up to the rounding of the two magnitude sums.
        QVERIFY2(
            v.maxErrorOverBound <= exact.maxRatio * (1 + 1e-3),
            qPrintable(
                QString("reported %1, exact %2").arg(v.maxErrorOverBound).arg(exact.maxRatio)));
    }

    // u = 2^-24; gamma(n) = n u / (1 - n u), infinite once n u reaches 1; gamma~(n) =
    // exp(11 sqrt(n) u + n u^2 / (1 - u)) - 1, finite at every size.
    void gammaArithmetic() {
        QCOMPARE(roundingGamma(1), kU / (1 - kU));
        QCOMPARE(roundingGamma(4097), 4097 * kU / (1 - 4097 * kU));
        QVERIFY(std::isinf(roundingGamma(Index(1) << 24)));
        QVERIFY(std::isinf(worstCaseBound(1.0, Index(1) << 24)));
        QCOMPARE(probabilisticGamma(4097),
                 std::expm1(11 * std::sqrt(4097.0) * kU + 4097 * kU * kU / (1 - kU)));
        // About 11 sqrt(n) u: far below the worst case from a few terms on.
        QVERIFY(std::abs(probabilisticGamma(4097) / (11 * std::sqrt(4097.0) * kU) - 1) < 1e-3);
        QVERIFY(probabilisticGamma(4097) < roundingGamma(4097) / 5);
        const double atLimit = roundingBound(1.0, Index(1) << 24);
        QVERIFY(std::isfinite(atLimit) && atLimit < 0.01);
    }

    // x [[1, 2]], kernel [[3], [4]], bias [5]: reference 16, s = 3 + 8 + 5 = 16, K = 2. With three
    // terms the worst case is the smaller bound (gamma(3) = 3 u against gamma~(3) = 19.05 u): 2 *
    // gamma(3) * 16 = 96 u (and a hair more) = 3 ulps of 16 (ulp(16) = 2^-19 = 32 u). 3 ulps pass,
    // 4 fail: beyond the worst case, no float32 computation of this product gets there.
    void boundOfAHandMadeProduct() {
        const Matrix x{{1.f, 2.f}};
        const Matrix kernel{{3.f}, {4.f}};
        const RowVector bias{{5.f}};
        const Matrix reference{{16.f}};
        const double bound = roundingBound(16.0, 2);
        const double gamma3 = 3 * kU / (1 - 3 * kU);
        QVERIFY(gamma3 < probabilisticGamma(3));
        QCOMPARE(bound, 2 * gamma3 * (16.0 + 3 * 0x1p-125) / (1 - gamma3) + 2 * 3 * 0x1p-125);
        QCOMPARE(worstCaseBound(16.0, 2), bound);
        QVERIFY(bound > 96 * kU && bound < 96 * kU * (1 + 1e-5));

        const Verification within =
            verify(Matrix{{ulpsAbove(16.f, 3)}}, reference, x, kernel, bias);
        QVERIFY(within.passed());
        QCOMPARE(within.maxUlp, std::uint64_t(3));
        QCOMPARE(within.maxErrorOverBound, 96 * kU / bound);
        const Verification over = verify(Matrix{{ulpsAbove(16.f, 4)}}, reference, x, kernel, bias);
        QCOMPARE(toString(over.verdict), toString(Verdict::Failed));
        QCOMPARE(over.overBound, Index(1));
        QCOMPARE(over.overWorstCase, Index(1));
        QCOMPARE(over.maxErrorOverBound, 128 * kU / bound);
        QCOMPARE(over.maxErrorOverWorstCase, over.maxErrorOverBound);
        // allclose (rtol 1e-5) lets both through: the verdict is the rounding bound's.
        QVERIFY(over.allclose);
    }

    // Past about 120 terms the probabilistic bound is the smaller: an error between the two
    // bounds is inconclusive, one beyond the worst case fails.
    void betweenTheBoundsIsInconclusive() {
        const Index inDim = 4096;
        const Matrix x = Matrix::Ones(1, inDim);
        const Matrix kernel = Matrix::Constant(inDim, 1, 0.25f);
        const RowVector bias = RowVector::Zero(1);
        const Matrix reference{{1024.f}};
        const double bound = roundingBound(1024.0, inDim);
        const double worst = worstCaseBound(1024.0, inDim);
        QVERIFY(bound < worst / 5);
        const auto at = [&](double error) {
            return verify(Matrix{{float(1024.0 + error)}}, reference, x, kernel, bias);
        };
        QCOMPARE(toString(at(bound * 0.9).verdict), toString(Verdict::Passed));
        const Verification between = at((bound + worst) / 2);
        QCOMPARE(toString(between.verdict), toString(Verdict::Inconclusive));
        QCOMPARE(between.overBound, Index(1));
        QCOMPARE(between.overWorstCase, Index(0));
        QVERIFY2(inconclusiveReason(between).find("but not its worst case") != std::string::npos,
                 inconclusiveReason(between).c_str());
        const Verification beyond = at(worst * 1.5);
        QCOMPARE(toString(beyond.verdict), toString(Verdict::Failed));
        QCOMPARE(beyond.overWorstCase, Index(1));
    }

    // The resolution: the largest bound any element can have, from norms, at least every
    // element's own bound; against the values' size it decides passed or inconclusive.
    void resolutionCoversEveryElement_data() {
        QTest::addColumn<int>("inDim");
        QTest::addColumn<bool>("row");
        QTest::newRow("in_dim 64 column") << 64 << false;
        QTest::newRow("in_dim 4096 row") << 4096 << true;
        QTest::newRow("in_dim 65536 row") << 65536 << true;
    }

    void resolutionCoversEveryElement() {
        QFETCH(int, inDim);
        QFETCH(bool, row);
        const LayerConfig config{.batch = 4,
                                 .inDim = inDim,
                                 .features = 16,
                                 .tpSize = 4,
                                 .mode = row ? ParallelMode::Row : ParallelMode::Column,
                                 .bias = {BiasInit::Kind::Normal, 0.5f}};
        const auto scene = computeScene({config, SceneSource::Nnx});
        QVERIFY(scene);
        const LayerParams& p = scene->params;
        Matrix actual = scene->reference;
        actual(0, 0) = ulpsAbove(actual(0, 0), 1);  // not bit-identical: the resolution decides
        const Verification v = verify(actual, scene->reference, p.x, p.kernel, p.bias);
        const Matrix s = magnitudes(p.x, p.kernel, p.bias);
        QVERIFY(v.resolution >= roundingBound(s.maxCoeff(), inDim) * (1 - 1e-6));
        // Cauchy-Schwarz is within a small factor of the largest real bound for Gaussian data.
        QVERIFY(v.resolution < 3 * roundingBound(s.maxCoeff(), inDim));
        const double rms =
            std::sqrt(scene->reference.squaredNorm() / double(scene->reference.size()));
        QVERIFY(std::abs(v.valueScale - rms) <= 1e-6 * rms);
        QCOMPARE(toString(v.verdict),
                 toString(v.resolution <= kResolutionShare * v.valueScale ? Verdict::Passed
                                                                          : Verdict::Inconclusive));
    }

    // A correct row split past the size where rounding alone reaches 1/16 of the values is
    // inconclusive, in words; the same scene's column split, bit-identical, passes.
    void inconclusiveFromTheResolution() {
        LayerConfig config{.batch = 2, .inDim = Index(1) << 20, .features = 4, .tpSize = 2};
        config.mode = ParallelMode::Row;
        const auto row = computeScene({config, SceneSource::Nnx});
        QVERIFY(row);
        const Verification& v = row->verification;
        QCOMPARE(toString(v.verdict), toString(Verdict::Inconclusive));
        QCOMPARE(v.overBound, Index(0));
        QVERIFY(v.resolution > v.valueScale / 16);
        const std::string reason = inconclusiveReason(v);
        QVERIFY2(reason.rfind("summing 1048576 terms, float32 rounding alone may reach ", 0) == 0,
                 reason.c_str());
        QVERIFY(inconclusiveReason(Verification{}).empty());

        config.mode = ParallelMode::Column;
        const auto column = computeScene({config, SceneSource::Nnx});
        QVERIFY(column);
        QCOMPARE(toString(column->verification.verdict), toString(Verdict::Passed));
        QCOMPARE(column->verification.bitIdentical, column->verification.elements);
    }

    // Data made so that roundings agree (x all ones, a constant kernel summed over 2^16 rows)
    // breaks the model of independent roundings the bound assumes: its correct splits must still
    // not fail.
    void constantDataRaisesNoFalseAlarm_data() {
        QTest::addColumn<int>("batch");
        QTest::addColumn<float>("value");
        QTest::newRow("1 row, 0.1") << 1 << 0.1f;
        QTest::newRow("4 rows, 0.1") << 4 << 0.1f;
        QTest::newRow("4 rows, 1/3") << 4 << 1.f / 3.f;
        QTest::newRow("64 rows, 0.7") << 64 << 0.7f;
    }

    void constantDataRaisesNoFalseAlarm() {
        QFETCH(int, batch);
        QFETCH(float, value);
        const Index inDim = Index(1) << 16;
        const Index features = 8;
        LayerParams params;
        params.x = Matrix::Ones(batch, inDim);
        params.kernel = Matrix::Constant(inDim, features, value);
        params.bias = RowVector::Constant(features, value);
        for (const ParallelMode mode : {ParallelMode::Column, ParallelMode::Row}) {
            for (const Index tp : {Index(2), Index(8)}) {
                const LayerConfig config{.batch = batch,
                                         .inDim = inDim,
                                         .features = features,
                                         .tpSize = tp,
                                         .mode = mode};
                LoadedArrays loaded;
                loaded.x = params.x;
                loaded.kernel = params.kernel;
                loaded.bias = params.bias;
                const auto scene =
                    computeScene({config, SceneSource::Files, {}, {}, std::move(loaded)});
                QVERIFY(scene);
                QVERIFY2(scene->verification.verdict != Verdict::Failed,
                         qPrintable(QString("%1 tp %2: error %3 of its bound")
                                        .arg(mode == ParallelMode::Row ? "row" : "column")
                                        .arg(tp)
                                        .arg(scene->verification.maxErrorOverBound)));
            }
        }
    }

    // An element moved just past its bound fails, just inside passes: once where the magnitude is
    // far above the reference (the cheap test cannot clear it) and once at the largest element.
    void perturbationJustAboveTheBoundFails() {
        const LayerConfig config{.batch = 4, .inDim = 256, .features = 32, .tpSize = 4};
        const auto scene = computeScene({config, SceneSource::Nnx});
        QVERIFY(scene);
        const LayerParams& p = scene->params;
        const Matrix s = magnitudes(p.x, p.kernel, p.bias);
        Index smallRow = 0, smallCol = 0, bigRow = 0, bigCol = 0;
        scene->reference.cwiseAbs().minCoeff(&smallRow, &smallCol);
        scene->reference.cwiseAbs().maxCoeff(&bigRow, &bigCol);
        for (const auto& [r, c] : {std::pair{smallRow, smallCol}, std::pair{bigRow, bigCol}}) {
            const double bound = roundingBound(s(r, c), config.inDim);
            const float ref = scene->reference(r, c);
            // The largest float within the bound above ref, and the next one.
            float inside = ref;
            while (double(std::nextafter(inside, INFINITY)) - ref <= bound)
                inside = std::nextafter(inside, INFINITY);
            const float outside = std::nextafter(inside, INFINITY);
            Matrix actual = scene->reference;
            actual(r, c) = inside;
            const Verification pass = verify(actual, scene->reference, p.x, p.kernel, p.bias);
            QVERIFY2(pass.passed(), qPrintable(QString("row %1 column %2").arg(r).arg(c)));
            QVERIFY(pass.maxErrorOverBound <= 1.0 && pass.maxErrorOverBound > 0.5);
            actual(r, c) = outside;
            const Verification fail = verify(actual, scene->reference, p.x, p.kernel, p.bias);
            QVERIFY(!fail.passed());
            QCOMPARE(fail.overBound, Index(1));
            QCOMPARE(fail.worstBoundRow, r);
            QCOMPARE(fail.worstBoundCol, c);
        }
    }

    // The bias added to every row-parallel partial: off by (tp - 1) * bias, far past the bound.
    void aWrongSumFails() {
        const LayerConfig config{.batch = 8,
                                 .inDim = 64,
                                 .features = 16,
                                 .tpSize = 4,
                                 .mode = ParallelMode::Row,
                                 .bias = {BiasInit::Kind::Normal, 0.5f}};
        const auto scene = computeScene({config, SceneSource::Nnx});
        QVERIFY(scene && scene->verification.passed());
        const LayerParams& p = scene->params;
        Matrix wrong = scene->result.output;
        wrong.rowwise() += 3 * p.bias;
        const Verification v = verify(wrong, scene->reference, p.x, p.kernel, p.bias);
        QVERIFY(!v.passed());
        QCOMPARE(v.overBound, v.elements);
        QVERIFY(v.maxErrorOverBound > 1e3);
    }

    void nanNeverPasses() {
        const Matrix x{{1.f, 2.f}};
        const Matrix kernel{{3.f, 1.f}, {4.f, 1.f}};
        const RowVector bias{{5.f, 0.f}};
        const Matrix reference{{16.f, 3.f}};
        const float nan = std::numeric_limits<float>::quiet_NaN();
        for (const CheckRule rule : {CheckRule::RoundingBound, CheckRule::Allclose}) {
            const CheckSettings loose{rule, Tolerance{1e9, 1e9}};
            const Verification a = verify(Matrix{{nan, 3.f}}, reference, x, kernel, bias, loose);
            QVERIFY(!a.passed());
            QCOMPARE(a.nanElements, Index(1));
            QVERIFY(std::isnan(a.maxAbsError));
            // NaN in both, bit for bit the same, still does not pass.
            const Verification b =
                verify(Matrix{{nan, 3.f}}, Matrix{{nan, 3.f}}, x, kernel, bias, loose);
            QVERIFY(!b.passed());
            QCOMPARE(b.bitIdentical, Index(1));
        }
        QVERIFY(!verify(Matrix{{nan}}, Matrix{{1.f}}, Tolerance{1e9, 1e9}).passed());
    }

    void bitIdenticalAndUlpCounting() {
        const LayerConfig config{.batch = 3, .inDim = 16, .features = 8, .tpSize = 2};
        const auto scene = computeScene({config, SceneSource::Nnx});
        QVERIFY(scene);
        const LayerParams& p = scene->params;
        Matrix actual = scene->reference;
        actual(0, 1) = ulpsAbove(actual(0, 1), 1);
        actual(2, 7) = ulpsAbove(actual(2, 7), 2);
        const Verification v = verify(actual, scene->reference, p.x, p.kernel, p.bias);
        QCOMPARE(v.elements, Index(24));
        QCOMPARE(v.bitIdentical, Index(22));
        QCOMPARE(v.maxUlp, std::uint64_t(2));
        QVERIFY(v.passed());
        QCOMPARE(v.worstBoundRow * 100 + v.worstBoundCol, Index(207));

        // +0 and -0: different bits, zero ULPs apart, no error.
        const Verification zeros = verify(Matrix{{-0.f}}, Matrix{{0.f}});
        QCOMPARE(zeros.bitIdentical, Index(0));
        QCOMPARE(zeros.maxUlp, std::uint64_t(0));
        QCOMPARE(zeros.maxAbsError, 0.0);
    }

    void ulpDistances() {
        const float tiny = std::numeric_limits<float>::denorm_min();
        const float big = std::numeric_limits<float>::max();
        QCOMPARE(ulpDistance(1.f, 1.f), std::uint64_t(0));
        QCOMPARE(ulpDistance(1.f, std::nextafter(1.f, 2.f)), std::uint64_t(1));
        QCOMPARE(ulpDistance(1.f, 2.f), std::uint64_t(1) << 23);
        QCOMPARE(ulpDistance(2.f, 1.f), std::uint64_t(1) << 23);
        QCOMPARE(ulpDistance(-tiny, tiny), std::uint64_t(2));
        QCOMPARE(ulpDistance(0.f, -0.f), std::uint64_t(0));
        QCOMPARE(ulpDistance(big, INFINITY), std::uint64_t(1));
        QCOMPARE(ulpDistance(-1.f, 1.f), std::uint64_t(2) * bitsOfFloat(1.f));
        QCOMPARE(ulpDistance(NAN, 1.f), std::numeric_limits<std::uint64_t>::max());
    }

    void shapeMismatchIsASentence() {
        const Matrix x = Matrix::Ones(2, 3);
        const Matrix kernel = Matrix::Ones(3, 12);
        const RowVector bias = RowVector::Zero(12);
        const Verification v = verify(Matrix::Zero(2, 4), Matrix::Ones(2, 12) * 3, x, kernel, bias);
        QVERIFY(!v.passed());
        QCOMPARE(v.shapeMismatch, std::string("shapes differ: (2, 4) vs (2, 12)"));
        QVERIFY(std::isnan(v.maxAbsError));
        QVERIFY(verify(Matrix::Ones(2, 12) * 3, Matrix::Ones(2, 12) * 3, x, kernel, bias)
                    .shapeMismatch.empty());
    }

    // Without the factors (the allclose rule alone), the largest error is found and placed.
    void verificationFindsTheWorstElement() {
        Matrix reference = Matrix::Constant(3, 4, 2.0f);
        Matrix actual = reference;
        actual(1, 2) = 2.5f;
        actual(2, 0) = 2.0f + 1e-6f;
        const Verification v = verify(actual, reference);
        QVERIFY(!v.allclose);
        QCOMPARE(v.worstRow, Index(1));
        QCOMPARE(v.worstCol, Index(2));
        QCOMPARE(v.maxAbsError, 0.5);
        QCOMPARE(v.maxRelError, 0.25);
        QVERIFY(verify(actual, reference, Tolerance{0.0, 0.6}).allclose);
        actual(0, 0) = std::numeric_limits<float>::quiet_NaN();
        QVERIFY(!verify(actual, reference, Tolerance{0.0, 10.0}).allclose);
    }

    // Given rtol and atol, allclose decides; the rounding figures are still reported.
    void allcloseRuleDecidesWhenGiven() {
        const Matrix x{{1.f, 2.f}};
        const Matrix kernel{{3.f}, {4.f}};
        const RowVector bias{{5.f}};
        const Matrix reference{{16.f}};
        const Matrix actual{{16.5f}};
        const Verification bound = verify(actual, reference, x, kernel, bias);
        QVERIFY(!bound.passed() && !bound.allclose);
        const CheckSettings loose{CheckRule::Allclose, Tolerance{0.0, 0.6}};
        const Verification allclose = verify(actual, reference, x, kernel, bias, loose);
        QVERIFY(allclose.passed() && allclose.allclose);
        QVERIFY(allclose.rule == CheckRule::Allclose);
        QCOMPARE(allclose.overBound, Index(1));
        const CheckSettings tight{CheckRule::Allclose, Tolerance{0.0, 0.0}};
        QVERIFY(!verify(Matrix{{ulpsAbove(16.f, 1)}}, reference, x, kernel, bias, tight).passed());
        QCOMPARE(toString(CheckRule::RoundingBound), std::string_view("rounding-bound"));
        QCOMPARE(toString(CheckRule::Allclose), std::string_view("allclose"));
    }

    // The brief's example stays exact, every element bit for bit, in every split it allows.
    void briefExampleIsBitIdentical_data() {
        QTest::addColumn<bool>("row");
        QTest::addColumn<int>("tp");
        QTest::newRow("column tp1") << false << 1;
        QTest::newRow("column tp2") << false << 2;
        QTest::newRow("column tp4") << false << 4;
        QTest::newRow("row tp1") << true << 1;
        QTest::newRow("row tp2") << true << 2;
    }

    void briefExampleIsBitIdentical() {
        QFETCH(bool, row);
        QFETCH(int, tp);
        LayerConfig config = briefExampleConfig();
        config.mode = row ? ParallelMode::Row : ParallelMode::Column;
        config.tpSize = tp;
        const auto scene = computeScene({config, SceneSource::Brief});
        QVERIFY(scene);
        const Verification& v = scene->verification;
        QVERIFY(v.passed());
        QCOMPARE(v.bitIdentical, Index(4));
        QCOMPARE(v.elements, Index(4));
        QCOMPARE(v.maxUlp, std::uint64_t(0));
        QCOMPARE(v.maxErrorOverBound, 0.0);
    }
};

QTEST_APPLESS_MAIN(TestVerification)
#include "tst_verification.moc"
