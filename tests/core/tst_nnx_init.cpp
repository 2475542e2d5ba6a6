// nnx.Linear's parameters and the scene's input, bit for bit against the spec's vectors and the
// published Flax values; sliced generation, statistical properties, progress and threads.

#include "layer/float_format.h"
#include "nnx/nnx_init.h"
#include "test_vectors.h"

#include <QTest>

#include <omp.h>

#include <cmath>
#include <thread>

using namespace tp;

Q_DECLARE_METATYPE(tp::PrngLayout)
Q_DECLARE_METATYPE(tp::LayerConfig)

namespace {

template <typename Derived>
bool sameBits(const Eigen::MatrixBase<Derived>& a, const Eigen::MatrixBase<Derived>& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return false;
    for (Index r = 0; r < a.rows(); ++r)
        for (Index c = 0; c < a.cols(); ++c)
            if (bitsOfFloat(a(r, c)) != bitsOfFloat(b(r, c)))
                return false;
    return true;
}

LayerConfig makeConfig(std::int64_t batch, std::int64_t inDim, std::int64_t features,
                       std::int64_t seed, PrngLayout prng, BiasInit bias = {}) {
    LayerConfig config;
    config.batch = batch;
    config.inDim = inDim;
    config.features = features;
    config.tpSize = 1;
    config.seed = seed;
    config.prng = prng;
    config.bias = bias;
    return config;
}

}  // namespace

class TestNnxInit : public QObject {
    Q_OBJECT

private slots:
    void specVectors_data() {
        QTest::addColumn<LayerConfig>("config");
        QTest::addColumn<QString>("kernelBits");
        QTest::addColumn<QString>("biasBits");
        QTest::addColumn<QString>("xBits");
        const std::vector<test::NnxSceneVector>& scenes = test::testVectors().scenes;
        QVERIFY(scenes.size() >= 9);
        for (const test::NnxSceneVector& s : scenes)
            QTest::newRow(qPrintable(s.name))
                << s.config << test::hexWords(s.kernelBits) << test::hexWords(s.biasBits)
                << test::hexWords(s.xBits);
    }

    void specVectors() {
        QFETCH(LayerConfig, config);
        QFETCH(QString, kernelBits);
        QFETCH(QString, biasBits);
        QFETCH(QString, xBits);
        const LayerParams p = initLayer(config);
        QCOMPARE(p.kernel.rows(), Index(config.inDim));
        QCOMPARE(p.kernel.cols(), Index(config.features));
        QCOMPARE(test::hexWords(test::floatBits(p.kernel)), kernelBits);
        QCOMPARE(test::hexWords(test::floatBits(p.bias)), biasBits);
        QCOMPARE(test::hexWords(test::floatBits(p.x)), xBits);
    }

    void lecunStddev_data() {
        QTest::addColumn<qint64>("fanIn");
        QTest::addColumn<QString>("bits");
        QTest::newRow("in_dim 1") << qint64(1) << "3f918436";
        QTest::newRow("in_dim 2") << qint64(2) << "3f4dca94";
        QTest::newRow("in_dim 3") << qint64(3) << "3f280725";
        QTest::newRow("in_dim 4") << qint64(4) << "3f118436";
        QTest::newRow("in_dim 784") << qint64(784) << "3d264df3";
    }

    void lecunStddev() {
        QFETCH(qint64, fanIn);
        QFETCH(QString, bits);
        QCOMPARE(QString::fromStdString(floatBitsHex(lecunNormalStddev(fanIn))), bits);
    }

    void sceneKeysAreStreamCounts() {
        const LayerConfig config = makeConfig(1, 3, 4, 0, PrngLayout::Partitionable);
        const SceneKeys keys = sceneKeys(config);
        QCOMPARE(keys.kernel, (Key{0x6b200159u, 0x99ba4efeu}));
        QCOMPARE(keys.bias, foldIn(Key{0, 0}, 1));
        QCOMPARE(keys.x, foldIn(Key{0, 0}, 2));
    }

    // flax/nnx/nn/stochastic.py Dropout docstring: nnx.Linear(3, 4, rngs=nnx.Rngs(0)) applied to
    // ones((1, 3)); before JAX 0.5.0 (legacy layout) the docstring showed the second row.
    void publishedLinearOutput_data() {
        QTest::addColumn<PrngLayout>("layout");
        QTest::addColumn<QList<float>>("expected");
        QTest::newRow("partitionable")
            << PrngLayout::Partitionable
            << QList<float>{1.0533503f, -1.2679932f, -0.7960095f, -1.2619419f};
        QTest::newRow("legacy") << PrngLayout::Legacy
                                << QList<float>{-0.46767104f, -0.7213411f, 0.7172085f,
                                                -0.31562346f};
    }

    void publishedLinearOutput() {
        QFETCH(PrngLayout, layout);
        QFETCH(QList<float>, expected);
        const LayerParams p = initLayer(makeConfig(1, 3, 4, 0, layout));
        const Matrix ones = Matrix::Ones(1, 3);
        const Matrix y = (ones * p.kernel).rowwise() + p.bias;
        for (int c = 0; c < 4; ++c)
            QVERIFY2(std::fabs(y(0, c) - expected[c]) <= 1e-6f,
                     qPrintable(QString("column %1: %2").arg(c).arg(double(y(0, c)), 0, 'g', 9)));
    }

    // docs_nnx/key_concepts.ipynb: nnx.Linear(4, 2, rngs=nnx.Rngs(42)).kernel.
    void publishedKeyConceptsKernel() {
        const Matrix kernel = initLayer(makeConfig(1, 4, 2, 42, PrngLayout::Partitionable)).kernel;
        const Matrix expected{{0.04119061f, -0.2629074f},
                              {0.6772455f, 0.2807398f},
                              {0.16276604f, 0.16813846f},
                              {0.310975f, -0.43336964f}};
        QVERIFY2((kernel - expected).cwiseAbs().maxCoeff() <= 1e-7f,
                 qPrintable(test::hexWords(test::floatBits(kernel))));
    }

    // Generating a group's block directly gives the same bits as slicing the full array, for every
    // tp_size of the shape, in column and row mode, both layouts (odd element counts included):
    // the kernel, the bias, x and the backward pass's dy.
    void slicesMatchFullArrays_data() {
        QTest::addColumn<LayerConfig>("config");
        const BiasInit normalBias{BiasInit::Kind::Normal, 0.5f};
        for (const PrngLayout layout : {PrngLayout::Partitionable, PrngLayout::Legacy}) {
            const char* name = layout == PrngLayout::Legacy ? "legacy" : "partitionable";
            QTest::addRow("8x12 batch2 %s", name) << makeConfig(2, 8, 12, 0, layout, normalBias);
            QTest::addRow("7x9 batch3 %s (odd)", name)
                << makeConfig(3, 7, 9, 5, layout, normalBias);
            QTest::addRow("5x6 batch1 %s", name) << makeConfig(1, 5, 6, -1, layout, normalBias);
            QTest::addRow("33x15 batch5 %s (odd)", name)
                << makeConfig(5, 33, 15, 2024, layout, normalBias);
            QTest::addRow("96x160 batch7 %s", name)
                << makeConfig(7, 96, 160, 77, layout, normalBias);
        }
    }

    void slicesMatchFullArrays() {
        QFETCH(LayerConfig, config);
        const LayerParams full = initLayer(config);
        const Matrix dy = cotangent(config);
        const Index inDim = config.inDim;
        const Index features = config.features;
        for (const std::int64_t tp : divisors(features)) {
            const Index chunk = features / tp;
            for (Index g = 0; g < tp; ++g) {
                const IndexRange cols{g * chunk, (g + 1) * chunk};
                const Matrix block = kernelBlock(config, {0, inDim}, cols);
                QVERIFY2(sameBits(block, Matrix(full.kernel.middleCols(cols.start, chunk))),
                         qPrintable(QString("column tp%1 group%2").arg(tp).arg(g)));
                const RowVector bias = biasSlice(config, cols);
                QVERIFY(sameBits(bias, RowVector(full.bias.segment(cols.start, chunk))));
                // dy's columns, for each batch row as a data row of the mesh draws them.
                for (Index r = 0; r < config.batch; ++r)
                    QVERIFY2(
                        sameBits(cotangentBlock(config, {r, config.batch}, cols),
                                 Matrix(dy.block(r, cols.start, config.batch - r, chunk))),
                        qPrintable(QString("dy tp%1 group%2 from row %3").arg(tp).arg(g).arg(r)));
            }
        }
        for (const std::int64_t tp : divisors(inDim)) {
            const Index chunk = inDim / tp;
            for (Index g = 0; g < tp; ++g) {
                const IndexRange rows{g * chunk, (g + 1) * chunk};
                const Matrix block = kernelBlock(config, rows, {0, features});
                QVERIFY2(sameBits(block, Matrix(full.kernel.middleRows(rows.start, chunk))),
                         qPrintable(QString("row tp%1 group%2").arg(tp).arg(g)));
                const Matrix x = inputBlock(config, {0, config.batch}, rows);
                QVERIFY(sameBits(x, Matrix(full.x.middleCols(rows.start, chunk))));
            }
        }
        // An interior block of both arrays.
        const IndexRange r{inDim / 3, inDim - inDim / 4};
        const IndexRange c{features / 5, features - 1};
        QVERIFY(sameBits(kernelBlock(config, r, c),
                         Matrix(full.kernel.block(r.start, c.start, r.size(), c.size()))));
        QVERIFY(sameBits(
            inputBlock(config, {1 % config.batch, config.batch}, {1, inDim}),
            Matrix(full.x.block(1 % config.batch, 1, config.batch - 1 % config.batch, inDim - 1))));
    }

    // A kernel of 512 x 1024: every value inside +-2 stddev, mean about 0, and the standard
    // deviation of the truncated normal, 1 / sqrt(inDim) by construction of lecun_normal.
    void kernelStatistics_data() {
        QTest::addColumn<PrngLayout>("layout");
        QTest::newRow("partitionable") << PrngLayout::Partitionable;
        QTest::newRow("legacy") << PrngLayout::Legacy;
    }

    void kernelStatistics() {
        QFETCH(PrngLayout, layout);
        const LayerConfig config = makeConfig(1, 512, 1024, 3, layout);
        const Matrix kernel = initLayer(config).kernel;
        const float stddev = lecunNormalStddev(config.inDim);
        QVERIFY(kernel.maxCoeff() < 2.0f * stddev);
        QVERIFY(kernel.minCoeff() > -2.0f * stddev);
        const double n = double(kernel.size());
        const double mean = kernel.cast<double>().sum() / n;
        const double sd =
            std::sqrt((kernel.cast<double>().array() - mean).square().sum() / (n - 1.0));
        const double target = 1.0 / std::sqrt(double(config.inDim));
        // Standard error of the mean is target / sqrt(n) ~ 6e-5; of the std ~ 0.1 %.
        QVERIFY2(std::fabs(mean) < 5.0 * target / std::sqrt(n), qPrintable(QString::number(mean)));
        QVERIFY2(std::fabs(sd / target - 1.0) < 0.01, qPrintable(QString::number(sd / target)));
    }

    void seedsAndArraysDiffer() {
        const LayerParams a = initLayer(makeConfig(4, 16, 16, 0, PrngLayout::Partitionable));
        const LayerParams b = initLayer(makeConfig(4, 16, 16, 1, PrngLayout::Partitionable));
        const LayerParams c = initLayer(makeConfig(4, 16, 16, 0, PrngLayout::Legacy));
        QVERIFY((a.kernel.array() != b.kernel.array()).all());
        QVERIFY((a.kernel.array() != c.kernel.array()).all());
        QVERIFY((a.x.array() != b.x.array()).all());
        // The kernel (count 0) and x (count 2) of one seed are different streams.
        const Matrix xTopRows = a.x;
        const Matrix kernelTop = a.kernel.topRows(4) / lecunNormalStddev(16);
        QVERIFY((xTopRows.array() != kernelTop.array()).all());
        QVERIFY(a.bias.isZero(0.0f));
    }

    void normalBiasUsesStddev() {
        LayerConfig config =
            makeConfig(1, 4, 64, 9, PrngLayout::Partitionable, {BiasInit::Kind::Normal, 1.0f});
        const RowVector unit = initLayer(config).bias;
        config.bias.stddev = 0.25f;
        const RowVector quarter = initLayer(config).bias;
        // Multiplying by a power of two is exact.
        QVERIFY(sameBits(quarter, RowVector(unit * 0.25f)));
        QVERIFY(!unit.isZero(0.0f));
    }

    void progressCountsEveryValue() {
        const LayerConfig config =
            makeConfig(3, 300, 500, 1, PrngLayout::Partitionable, {BiasInit::Kind::Normal, 0.1f});
        Progress progress;
        progress.setTotal(parameterCount(config));
        initLayer(config, &progress);
        QCOMPARE(parameterCount(config), std::int64_t(300 * 500 + 500 + 3 * 300));
        QCOMPARE(progress.done(), parameterCount(config));
        QCOMPARE(progress.fraction(), 1.0);
    }

    void cancelledBeforeStartDrawsNothing() {
        Progress progress;
        progress.cancel();
        initLayer(makeConfig(2, 256, 1024, 0, PrngLayout::Partitionable), &progress);
        QCOMPARE(progress.done(), std::int64_t(0));
    }

    void cancelStopsEarly() {
        const LayerConfig config = makeConfig(2, 4096, 4096, 0, PrngLayout::Legacy);
        Progress progress;
        progress.setTotal(parameterCount(config));
        std::thread worker([&] { initLayer(config, &progress); });
        while (progress.done() == 0)
            std::this_thread::yield();
        progress.cancel();
        const std::int64_t atCancel = progress.done();
        worker.join();
        // At most the batches already started finish (one per thread, 65536 values each).
        QVERIFY2(progress.done() < parameterCount(config) / 2,
                 qPrintable(QString("%1 of %2").arg(progress.done()).arg(parameterCount(config))));
        QVERIFY(progress.done() <= atCancel + 2 * omp_get_max_threads() * 65536);
    }

    // The counter the kernel hover names: redrawing every element from it (the kernel key, the
    // block at that counter, the named word, lecun_normal's pipeline) gives the generated bits.
    void kernelBitsOriginRedrawsTheKernel_data() {
        QTest::addColumn<LayerConfig>("config");
        for (const PrngLayout layout : {PrngLayout::Partitionable, PrngLayout::Legacy}) {
            const char* name = layout == PrngLayout::Legacy ? "legacy" : "partitionable";
            QTest::addRow("1x1 seed0 %s", name) << makeConfig(1, 1, 1, 0, layout);
            QTest::addRow("3x4 seed0 %s", name) << makeConfig(1, 3, 4, 0, layout);
            QTest::addRow("5x7 odd n seed9 %s", name) << makeConfig(1, 5, 7, 9, layout);
            QTest::addRow("64x33 seed-3 %s", name) << makeConfig(1, 64, 33, -3, layout);
            LayerConfig x64 = makeConfig(1, 13, 11, -3, layout);
            x64.x64 = true;  // another key, the same counters
            QTest::addRow("13x11 seed-3 x64 %s", name) << x64;
        }
    }

    void kernelBitsOriginRedrawsTheKernel() {
        QFETCH(LayerConfig, config);
        const Matrix kernel = initLayer(config).kernel;
        const Key key = sceneKeys(config).kernel;
        const float stddev = lecunNormalStddev(config.inDim);
        for (Index flat = 0; flat < kernel.size(); ++flat) {
            const BitsOrigin origin =
                kernelBitsOrigin(config.inDim, config.features, config.prng, flat);
            const std::uint32_t bits =
                blockWord(threefry2x32(key, origin.x0, origin.x1), origin.word);
            float value = 0.0f;
            truncatedNormalOfBits(&bits, 1, &value, stddev);
            const float generated = kernel(flat / config.features, flat % config.features);
            QVERIFY2(bitsOfFloat(value) == bitsOfFloat(generated),
                     qPrintable(QString("flat %1: %2 from %3, generated %4")
                                    .arg(flat)
                                    .arg(formatFloat(value).c_str(),
                                         bitsOriginText(origin, config.prng).c_str(),
                                         formatFloat(generated).c_str())));
        }
    }

    // The spec's worked trace: kernel[2, 3] of Linear(3, 4) is element 11, counter (0, 11) in
    // the partitionable layout; the legacy layout pairs it (5, 11) and takes y1.
    void kernelBitsOriginInWords() {
        QCOMPARE(bitsOriginText(kernelBitsOrigin(3, 4, PrngLayout::Partitionable, 11),
                                PrngLayout::Partitionable),
                 std::string("threefry counter (x0, x1) = (0, 11), bits y0 ^ y1 (partitionable)"));
        QCOMPARE(bitsOriginText(kernelBitsOrigin(3, 4, PrngLayout::Legacy, 11), PrngLayout::Legacy),
                 std::string("threefry counter (x0, x1) = (5, 11), bits y1 (legacy)"));
        QCOMPARE(kernelBitsOrigin(3, 4, PrngLayout::Legacy, 0), (BitsOrigin{0, 6, BlockWord::Y0}));
        // An odd count pads with counter 0: the middle element pairs with it.
        QCOMPARE(kernelBitsOrigin(5, 7, PrngLayout::Legacy, 17),
                 (BitsOrigin{17, 0, BlockWord::Y0}));
        QCOMPARE(kernelBitsOrigin(5, 7, PrngLayout::Legacy, 18),
                 (BitsOrigin{0, 18, BlockWord::Y1}));
        // Past 2^32 elements the partitionable counter's high word counts.
        QCOMPARE(bitsOrigin(PrngLayout::Partitionable, (std::uint64_t(1) << 33),
                            (std::uint64_t(1) << 32) + 7),
                 (BitsOrigin{1, 7, BlockWord::Y0XorY1}));
    }

    void threadCountDoesNotChangeBits_data() {
        QTest::addColumn<PrngLayout>("layout");
        QTest::newRow("partitionable") << PrngLayout::Partitionable;
        QTest::newRow("legacy") << PrngLayout::Legacy;
    }

    void threadCountDoesNotChangeBits() {
        QFETCH(PrngLayout, layout);
        const LayerConfig config =
            makeConfig(300, 700, 999, 11, layout, {BiasInit::Kind::Normal, 2.0f});
        const int saved = omp_get_max_threads();
        omp_set_num_threads(1);
        const LayerParams one = initLayer(config);
        omp_set_num_threads(2);
        const LayerParams two = initLayer(config);
        omp_set_num_threads(saved);
        QVERIFY(sameBits(one.kernel, two.kernel));
        QVERIFY(sameBits(one.bias, two.bias));
        QVERIFY(sameBits(one.x, two.x));
    }
};

QTEST_APPLESS_MAIN(TestNnxInit)
#include "tst_nnx_init.moc"
