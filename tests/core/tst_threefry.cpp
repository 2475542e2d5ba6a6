// Threefry-2x32 against the Random123 known answers that JAX's tests also assert.

#include "nnx/threefry.h"
#include "test_vectors.h"

#include <QTest>

using namespace tp;

class TestThreefry : public QObject {
    Q_OBJECT

private slots:
    void knownAnswers_data() {
        QTest::addColumn<uint>("k0");
        QTest::addColumn<uint>("k1");
        QTest::addColumn<uint>("x0");
        QTest::addColumn<uint>("x1");
        QTest::addColumn<uint>("y0");
        QTest::addColumn<uint>("y1");
        QTest::newRow("zero key, zero counter")
            << 0u << 0u << 0u << 0u << 0x6b200159u << 0x99ba4efeu;
        QTest::newRow("all-ones key and counter") << 0xffffffffu << 0xffffffffu << 0xffffffffu
                                                  << 0xffffffffu << 0x1cb996fcu << 0xbb002be7u;
        QTest::newRow("pi digits") << 0x13198a2eu << 0x03707344u << 0x243f6a88u << 0x85a308d3u
                                   << 0xc4923a9cu << 0x483df7a0u;
    }

    void knownAnswers() {
        QFETCH(uint, k0);
        QFETCH(uint, k1);
        QFETCH(uint, x0);
        QFETCH(uint, x1);
        QFETCH(uint, y0);
        QFETCH(uint, y1);
        const Threefry2x32Block out = threefry2x32(Key{k0, k1}, x0, x1);
        QCOMPARE(out.y0, y0);
        QCOMPARE(out.y1, y1);
    }

    // The same vectors as they appear in the spec's vector file.
    void vectorFile() {
        const std::vector<test::ThreefryVector>& cases = test::testVectors().threefry;
        QCOMPARE(cases.size(), std::size_t(3));
        for (const test::ThreefryVector& c : cases) {
            const Threefry2x32Block out =
                threefry2x32(Key{c.key[0], c.key[1]}, c.counter[0], c.counter[1]);
            QCOMPARE(out.y0, c.out[0]);
            QCOMPARE(out.y1, c.out[1]);
        }
    }

    // A cipher: changing one counter bit changes about half of the output bits.
    void avalanche() {
        const Key key{0x6b200159u, 0x99ba4efeu};
        int changed = 0;
        for (std::uint32_t bit = 0; bit < 32; ++bit) {
            const Threefry2x32Block a = threefry2x32(key, 7u, 11u);
            const Threefry2x32Block b = threefry2x32(key, 7u, 11u ^ (1u << bit));
            changed += __builtin_popcount(a.y0 ^ b.y0) + __builtin_popcount(a.y1 ^ b.y1);
        }
        const double meanFlipped = changed / 32.0;  // of 64 output bits
        QVERIFY2(meanFlipped > 28.0 && meanFlipped < 36.0,
                 qPrintable(QString::number(meanFlipped)));
    }
};

QTEST_APPLESS_MAIN(TestThreefry)
#include "tst_threefry.moc"
