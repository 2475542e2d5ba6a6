// JAX's random functions: seed -> key, fold_in, split, random bits in both layouts, uniform,
// normal, truncated normal and the float pieces (log1p, erf_inv), against the spec's numbers and
// against published JAX values.

#include "layer/float_format.h"
#include "nnx/jax_random.h"
#include "test_vectors.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <vector>

using namespace tp;

Q_DECLARE_METATYPE(tp::PrngLayout)
Q_DECLARE_METATYPE(tp::SimdPath)

namespace {

QString hex(std::uint32_t word) {
    return QString::asprintf("%08x", word);
}

QString floatHex(float value) {
    return QString::fromStdString(floatBitsHex(value));
}

// Adds a row `<path> <name>` for every vectorised path this process can run (all those the CPU
// supports, up to TPVIZ_SIMD), or one row with the scalar path, which the test skips, when there
// is none. `columns` streams the row's other columns.
template <typename Columns>
void addRowPerSimdPath(const char* name, Columns columns) {
    bool any = false;
    for (const SimdPath path : availableSimdPaths()) {
        if (path == SimdPath::Scalar)
            continue;
        any = true;
        columns(QTest::newRow(qPrintable(QString("%1 %2").arg(simdPathName(path), name))) << path);
    }
    if (!any)
        columns(QTest::newRow(qPrintable(QString("scalar only, %1").arg(name)))
                << SimdPath::Scalar);
}

}  // namespace

class TestJaxRandom : public QObject {
    Q_OBJECT

private slots:
    void seedToKeyTable_data() {
        QTest::addColumn<qint64>("seed");
        QTest::addColumn<bool>("x64");
        QTest::addColumn<uint>("k0");
        QTest::addColumn<uint>("k1");
        QTest::newRow("0") << qint64(0) << false << 0u << 0u;
        QTest::newRow("42") << qint64(42) << false << 0u << 42u;
        QTest::newRow("-1") << qint64(-1) << false << 0u << 0xffffffffu;
        QTest::newRow("2^31+99") << (qint64(1) << 31) + 99 << false << 0u << 0x80000063u;
        QTest::newRow("2^32+5") << (qint64(1) << 32) + 5 << false << 0u << 5u;
        QTest::newRow("x64 0") << qint64(0) << true << 0u << 0u;
        QTest::newRow("x64 -1") << qint64(-1) << true << 0xffffffffu << 0xffffffffu;
        QTest::newRow("x64 -3") << qint64(-3) << true << 0xffffffffu << 0xfffffffdu;
        QTest::newRow("x64 2^32+5") << (qint64(1) << 32) + 5 << true << 1u << 5u;
        QTest::newRow("x64 2^31+99") << (qint64(1) << 31) + 99 << true << 0u << 0x80000063u;
    }

    void seedToKeyTable() {
        QFETCH(qint64, seed);
        QFETCH(bool, x64);
        QFETCH(uint, k0);
        QFETCH(uint, k1);
        QCOMPARE(seedToKey(seed, x64), (Key{k0, k1}));
    }

    void foldInKnownAnswers() {
        const auto& expected = test::testVectors().foldInKey0With4;
        const Key folded = foldIn(seedToKey(0), 4);
        QCOMPARE(hex(folded.k0), hex(expected[0]));
        QCOMPARE(hex(folded.k1), hex(expected[1]));
        // jax tests/random_test.py testPRNGValues: fold_in(PRNGKey(0), 4).
        QCOMPARE(folded, (Key{2285895361u, 433833334u}));
        // The first draw of nnx.Rngs(0) (spec §3).
        QCOMPARE(foldIn(seedToKey(0), 0), (Key{0x6b200159u, 0x99ba4efeu}));
    }

    void splitLegacyKnownAnswer() {
        // jax tests/random_test.py testPRNGValues (legacy layout, the default then).
        const std::vector<Key> keys = split(seedToKey(0), 4, PrngLayout::Legacy);
        const std::vector<Key> expected = {{2285895361u, 1501764800u},
                                           {1518642379u, 4090693311u},
                                           {433833334u, 4221794875u},
                                           {839183663u, 3740430601u}};
        QVERIFY(keys == expected);
    }

    void splitPartitionableIsFoldIn() {
        const Key key = seedToKey(1234);
        const std::vector<Key> keys = split(key, 5, PrngLayout::Partitionable);
        QCOMPARE(keys.size(), std::size_t(5));
        for (std::uint32_t j = 0; j < 5; ++j)
            QCOMPARE(keys[j], foldIn(key, j));
    }

    void legacyBitsKnownAnswer() {
        // jax tests/random_test.py testRngRandomBits: _random_bits(PRNGKey(1701), 32, (3,)),
        // legacy layout with an odd count (one padding counter).
        std::uint32_t bits[3];
        randomBits32(seedToKey(1701), PrngLayout::Legacy, 3, 0, 3, bits);
        QCOMPARE(bits[0], 56197195u);
        QCOMPARE(bits[1], 4200222568u);
        QCOMPARE(bits[2], 961309823u);
    }

    void bitRangesMatchFullArray_data() {
        QTest::addColumn<PrngLayout>("layout");
        QTest::addColumn<int>("n");
        for (const int n : {1, 2, 7, 12, 33, 1001}) {
            QTest::addRow("partitionable n=%d", n) << PrngLayout::Partitionable << n;
            QTest::addRow("legacy n=%d", n) << PrngLayout::Legacy << n;
        }
    }

    void bitRangesMatchFullArray() {
        QFETCH(PrngLayout, layout);
        QFETCH(int, n);
        const Key key{0x12345678u, 0x9abcdef0u};
        std::vector<std::uint32_t> full(static_cast<std::size_t>(n));
        randomBits32(key, layout, std::uint64_t(n), 0, std::uint64_t(n), full.data());
        for (int start = 0; start < n; start += std::max(1, n / 7)) {
            for (const int count : {1, 3, n - start}) {
                if (start + count > n)
                    continue;
                std::vector<std::uint32_t> part(static_cast<std::size_t>(count));
                randomBits32(key, layout, std::uint64_t(n), std::uint64_t(start),
                             std::uint64_t(count), part.data());
                for (int k = 0; k < count; ++k)
                    QCOMPARE(part[std::size_t(k)], full[std::size_t(start + k)]);
            }
        }
    }

    // Spec §4: the legacy stream for n = 5 is y0 of pairs (0,3), (1,4), (2,0[pad]), then y1 of
    // pairs (0,3), (1,4).
    void legacyLayoutByHand() {
        const Key key{7u, 9u};
        std::uint32_t bits[5];
        randomBits32(key, PrngLayout::Legacy, 5, 0, 5, bits);
        QCOMPARE(bits[0], threefry2x32(key, 0, 3).y0);
        QCOMPARE(bits[1], threefry2x32(key, 1, 4).y0);
        QCOMPARE(bits[2], threefry2x32(key, 2, 0).y0);
        QCOMPARE(bits[3], threefry2x32(key, 0, 3).y1);
        QCOMPARE(bits[4], threefry2x32(key, 1, 4).y1);
    }

    void partitionableHighWord() {
        // Elements past 2^32 use the high word of the index as the first counter word.
        const Key key{1u, 2u};
        const std::uint64_t n = (std::uint64_t(1) << 32) + 10;
        std::uint32_t bits[2];
        randomBits32(key, PrngLayout::Partitionable, n, (std::uint64_t(1) << 32) + 3, 2, bits);
        const Threefry2x32Block a = threefry2x32(key, 1u, 3u);
        const Threefry2x32Block b = threefry2x32(key, 1u, 4u);
        QCOMPARE(bits[0], a.y0 ^ a.y1);
        QCOMPARE(bits[1], b.y0 ^ b.y1);
    }

    // Spec §10, Linear(3, 4, Rngs(0)), partitionable: every intermediate of elements (0,0) and
    // (2,3).
    void workedTrace_data() {
        QTest::addColumn<int>("index");
        QTest::addColumn<uint>("bits");
        QTest::addColumn<QString>("f");
        QTest::addColumn<QString>("u");
        QTest::addColumn<QString>("w");
        QTest::addColumn<QString>("erfinv");
        QTest::addColumn<QString>("kernel");
        QTest::newRow("element (0,0)") << 0 << 0xd7a1e7e1u << "3f57a1e6"
                                       << "3f274a4d"
                                       << "3f0e92c2"
                                       << "3f2a6753"
                                       << "3f1e2c8f";
        QTest::newRow("element (2,3)") << 11 << 0x8d9acd05u << "3f0d9acc"
                                       << "3dcfc542"
                                       << "3c298049"
                                       << "3db8a17c"
                                       << "3dab6153";
    }

    void workedTrace() {
        QFETCH(int, index);
        QFETCH(uint, bits);
        QFETCH(QString, f);
        QFETCH(QString, u);
        QFETCH(QString, w);
        QFETCH(QString, erfinv);
        QFETCH(QString, kernel);
        const Key key = foldIn(seedToKey(0), 0);
        std::uint32_t drawn = 0;
        randomBits32(key, PrngLayout::Partitionable, 12, std::uint64_t(index), 1, &drawn);
        QCOMPARE(hex(drawn), hex(bits));
        const float unit = unitFloat(drawn);
        QCOMPARE(floatHex(unit), f);
        const float uValue =
            std::max(kTruncatedLower, std::fma(unit, kTruncatedSpan, kTruncatedLower));
        QCOMPARE(floatHex(uValue), u);
        QCOMPARE(floatHex(-log1pXla(uValue * -uValue)), w);
        QCOMPARE(floatHex(erfInv(uValue)), erfinv);
        float value = 0.0f;
        truncatedNormal(key, PrngLayout::Partitionable, 12, std::uint64_t(index), 1, &value,
                        floatFromBits(0x3f280725u));  // STDDEV(3)
        QCOMPARE(floatHex(value), kernel);
    }

    void truncatedBounds() {
        // Spec §6: A = erf(-2/sqrt2) = 0xBF745A18, S = B - A = 0x3FF45A18.
        QCOMPARE(floatHex(kTruncatedLower), QStringLiteral("bf745a18"));
        QCOMPARE(floatHex(kTruncatedUpper), QStringLiteral("3f745a18"));
        QCOMPARE(floatHex(kTruncatedSpan), QStringLiteral("3ff45a18"));
        QCOMPARE(kTruncatedUpper - kTruncatedLower, kTruncatedSpan);
        // They agree with erf (double, rounded) at +-f32(sqrt 2).
        QCOMPARE(float(std::erf(double(floatFromBits(0x3fb504f3u)))), kTruncatedUpper);
    }

    // jax/random.py docstring: uniform(key(0)) is 0.947667 (partitionable) / 0.41845703 (legacy).
    void publishedUniform_data() {
        QTest::addColumn<PrngLayout>("layout");
        QTest::addColumn<float>("expected");
        QTest::newRow("partitionable") << PrngLayout::Partitionable << 0.947667f;
        QTest::newRow("legacy") << PrngLayout::Legacy << 0.41845703f;
    }

    void publishedUniform() {
        QFETCH(PrngLayout, layout);
        QFETCH(float, expected);
        float value = -1.0f;
        uniform(seedToKey(0), layout, 1, 0, 1, 0.0f, 1.0f, &value);
        QVERIFY2(std::fabs(value - expected) <= 1e-6f, qPrintable(QString::number(value, 'g', 9)));
    }

    // key_concepts.ipynb: jax.random.normal(nnx.Rngs(0).params(), (4, 4))[0, 0] = 1.0040143.
    void publishedNormal() {
        float values[16];
        normal(foldIn(seedToKey(0), 0), PrngLayout::Partitionable, 16, 0, 16, values);
        QVERIFY2(std::fabs(values[0] - 1.0040143f) <= 2e-7f,
                 qPrintable(QString::number(values[0], 'g', 9)));
    }

    void erfInvEdgesAndInverse_data() {
        QTest::addColumn<float>("x");
        for (const float x : {0.0f, 1e-6f, 0.1f, 0.5f, 0.6436f, 0.9f, 0.9544997f, 0.99f, 0.999f,
                              0.9999f, 0.99999994f, -0.3f, -0.99999994f})
            QTest::addRow("x=%g", double(x)) << x;
    }

    void erfInvEdgesAndInverse() {
        QFETCH(float, x);
        const float y = erfInv(x);
        QCOMPARE(erfInv(-x), -y);  // odd, exactly
        // erf(erfinv(x)) == x within a few float32 steps of x.
        const double back = std::erf(double(y));
        QVERIFY2(std::fabs(back - double(x)) <= 4.0 * std::numeric_limits<float>::epsilon() *
                                                    std::max(std::fabs(double(x)), 1e-3),
                 qPrintable(QString::number(back, 'g', 12)));
    }

    void erfInvOfOneIsInfinite() {
        QCOMPARE(erfInv(1.0f), std::numeric_limits<float>::infinity());
        QCOMPARE(erfInv(-1.0f), -std::numeric_limits<float>::infinity());
    }

    // The XLA:CPU log1p model is within 2 ulp of the true log1p on both branches.
    void log1pIsAccurate() {
        int checked = 0;
        for (float y = -0.9999f; y < 1.0f; y += 0.000731f) {
            const float got = log1pXla(y);
            const double exact = std::log1p(double(y));
            const double ulp = std::ldexp(1.0, std::ilogb(exact) - 23);
            QVERIFY2(std::fabs(double(got) - exact) <= 2.0 * ulp,
                     qPrintable(QString("y=%1").arg(double(y), 0, 'g', 9)));
            ++checked;
        }
        QVERIFY(checked > 2000);
        QCOMPARE(log1pXla(0.0f), 0.0f);
    }

    void truncatedNormalStaysInside() {
        std::vector<float> values(200000);
        truncatedNormal(Key{3u, 4u}, PrngLayout::Partitionable, values.size(), 0, values.size(),
                        values.data());
        for (const float v : values)
            QVERIFY(v > -2.0f && v < 2.0f);
    }

    // TPVIZ_SIMD caps the path in use (ctest runs the core tests once per cap): the path in use is
    // the cap when the CPU runs it, and never above it.
    void simdPathFollowsTheCap() {
        const QByteArray cap = qgetenv("TPVIZ_SIMD");
        const std::vector<SimdPath> paths = availableSimdPaths();
        QVERIFY(!paths.empty());
        QCOMPARE(paths.front(), SimdPath::Scalar);
        QCOMPARE(QByteArray(simdPathName()), QByteArray(simdPathName(paths.back())));
        if (cap.isEmpty())
            QSKIP("TPVIZ_SIMD is not set");
        const QList<QByteArray> order = {"scalar", "avx2", "avx512"};
        QVERIFY2(order.contains(cap), cap.constData());
        QVERIFY(order.indexOf(QByteArray(simdPathName())) <= order.indexOf(cap));
        if (cap == "scalar")
            QCOMPARE(QByteArray(simdPathName()), QByteArray("scalar"));
        // A path above the one in use runs the one in use.
        QCOMPARE(QByteArray(simdPathName(SimdPath::Avx512)), QByteArray(simdPathName()));
    }

    // The vectorised path and the scalar reference give the same bits, over a few million values,
    // for ranges that start and end at unaligned positions.
    void simdEqualsScalar_data() {
        QTest::addColumn<SimdPath>("path");
        QTest::addColumn<PrngLayout>("layout");
        QTest::addColumn<bool>("truncated");
        for (const PrngLayout layout : {PrngLayout::Partitionable, PrngLayout::Legacy}) {
            for (const bool truncated : {true, false}) {
                const QString name =
                    QString("%1 %2").arg(truncated ? "truncated" : "normal",
                                         layout == PrngLayout::Legacy ? "legacy" : "partitionable");
                addRowPerSimdPath(qPrintable(name),
                                  [&](QTestData& row) { row << layout << truncated; });
            }
        }
    }

    void simdEqualsScalar() {
        QFETCH(SimdPath, path);
        QFETCH(PrngLayout, layout);
        QFETCH(bool, truncated);
        if (path == SimdPath::Scalar)
            QSKIP("this process runs no vectorised path");
        const std::uint64_t n = 3'000'017;  // odd: exercises the legacy padding counter
        const std::uint64_t start = 5;
        const std::uint64_t count = n - start - 2;
        const Key key = foldIn(seedToKey(2024), 0);
        const float scale = truncated ? 0.03125f : 0.7f;
        std::vector<float> best(count), scalar(count);
        if (truncated) {
            truncatedNormal(key, layout, n, start, count, best.data(), scale, path);
            truncatedNormal(key, layout, n, start, count, scalar.data(), scale, SimdPath::Scalar);
        } else {
            normal(key, layout, n, start, count, best.data(), scale, path);
            normal(key, layout, n, start, count, scalar.data(), scale, SimdPath::Scalar);
        }
        std::uint64_t mismatches = 0;
        std::uint64_t first = count;
        for (std::uint64_t k = 0; k < count; ++k) {
            if (bitsOfFloat(best[k]) != bitsOfFloat(scalar[k])) {
                ++mismatches;
                first = std::min(first, k);
            }
        }
        QVERIFY2(mismatches == 0,
                 qPrintable(QString("%1 mismatches (%2), first at %3: %4 vs %5")
                                .arg(mismatches)
                                .arg(simdPathName(path))
                                .arg(first)
                                .arg(first < count ? floatHex(best[first]) : QString())
                                .arg(first < count ? floatHex(scalar[first]) : QString())));
    }

    // Short ranges, of every count up to 200, starting where the vectorised path changes how it
    // draws: at a block's start or not, at the array's end (a tail padded past it), across the
    // partitionable counter's low word wrapping, across the legacy halves and at the legacy
    // padding counter (those blocks fall back to the scalar bits).
    void simdEqualsScalarOnShortRanges_data() {
        QTest::addColumn<SimdPath>("path");
        QTest::addColumn<PrngLayout>("layout");
        QTest::addColumn<qulonglong>("n");
        QTest::addColumn<qulonglong>("start");
        const auto add = [](const char* name, PrngLayout layout, std::uint64_t n,
                            std::uint64_t start) {
            addRowPerSimdPath(
                name, [&](QTestData& row) { row << layout << qulonglong(n) << qulonglong(start); });
        };
        add("partitionable from 0", PrngLayout::Partitionable, 5000, 0);
        add("partitionable unaligned", PrngLayout::Partitionable, 5000, 77);
        add("partitionable at the end", PrngLayout::Partitionable, 5000, 4800);
        add("partitionable across the low word's wrap", PrngLayout::Partitionable,
            (std::uint64_t(1) << 32) + 1000, (std::uint64_t(1) << 32) - 100);
        add("legacy across the halves", PrngLayout::Legacy, 5001, 2401);
        add("legacy at the padding counter", PrngLayout::Legacy, 5001, 2380);
        add("legacy at the end", PrngLayout::Legacy, 5001, 4801);
    }

    void simdEqualsScalarOnShortRanges() {
        QFETCH(SimdPath, path);
        QFETCH(PrngLayout, layout);
        QFETCH(qulonglong, n);
        QFETCH(qulonglong, start);
        if (path == SimdPath::Scalar)
            QSKIP("this process runs no vectorised path");
        const Key key = foldIn(seedToKey(7), 0);
        std::vector<float> best(200), scalar(200);
        for (const bool truncated : {true, false}) {
            for (std::uint64_t count = 1; count <= 200; ++count) {
                if (truncated) {
                    truncatedNormal(key, layout, n, start, count, best.data(), 0.5f, path);
                    truncatedNormal(key, layout, n, start, count, scalar.data(), 0.5f,
                                    SimdPath::Scalar);
                } else {
                    normal(key, layout, n, start, count, best.data(), 0.5f, path);
                    normal(key, layout, n, start, count, scalar.data(), 0.5f, SimdPath::Scalar);
                }
                for (std::uint64_t k = 0; k < count; ++k) {
                    if (bitsOfFloat(best[k]) != bitsOfFloat(scalar[k]))
                        QFAIL(qPrintable(QString("%1, count %2, element %3: %4 vs %5")
                                             .arg(truncated ? "truncated" : "normal")
                                             .arg(count)
                                             .arg(k)
                                             .arg(floatHex(best[k]), floatHex(scalar[k]))));
                }
            }
        }
    }

    // The float pipeline depends only on the top 23 bits of a word, so these 2^23 words give
    // every value truncatedNormal and normal can produce: the vectorised path (including its
    // double-precision log and the lanes it hands back to the scalar log) equals the scalar path
    // on all of them.
    void simdEqualsScalarExhaustively_data() {
        QTest::addColumn<SimdPath>("path");
        QTest::addColumn<bool>("truncated");
        addRowPerSimdPath("truncated normal", [](QTestData& row) { row << true; });
        addRowPerSimdPath("normal", [](QTestData& row) { row << false; });
    }

    void simdEqualsScalarExhaustively() {
        QFETCH(SimdPath, path);
        QFETCH(bool, truncated);
        if (path == SimdPath::Scalar)
            QSKIP("this process runs no vectorised path");
        const std::size_t count = std::size_t(1) << 23;
        std::vector<std::uint32_t> words(count);
        for (std::size_t m = 0; m < count; ++m)
            words[m] = std::uint32_t(m << 9) | std::uint32_t(m & 0x1FF);  // low bits are ignored
        std::vector<float> best(count), scalar(count);
        if (truncated) {
            truncatedNormalOfBits(words.data(), count, best.data(), 1.0f, path);
            truncatedNormalOfBits(words.data(), count, scalar.data(), 1.0f, SimdPath::Scalar);
        } else {
            normalOfBits(words.data(), count, best.data(), 1.0f, path);
            normalOfBits(words.data(), count, scalar.data(), 1.0f, SimdPath::Scalar);
        }
        std::size_t mismatches = 0;
        for (std::size_t m = 0; m < count; ++m)
            mismatches += bitsOfFloat(best[m]) != bitsOfFloat(scalar[m]);
        QVERIFY2(
            mismatches == 0,
            qPrintable(
                QString("%1 mismatches on the %2 path").arg(mismatches).arg(simdPathName(path))));
        // Both ends: u = lower bound (f = 0) and the largest f.
        QCOMPARE(scalar[0],
                 truncated ? -2.0f * 0.99999994f : std::sqrt(2.0f) * erfInv(-0.99999994f));
    }
};

QTEST_APPLESS_MAIN(TestJaxRandom)
#include "tst_jax_random.moc"
