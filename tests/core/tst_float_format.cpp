// Float text forms: the shortest form reads back to the same float32 bits.

#include "float_format.h"

#include <QTest>

#include <charconv>
#include <cmath>
#include <random>

using namespace tp;

class TestFloatFormat : public QObject {
    Q_OBJECT

private slots:
    void knownValues_data() {
        QTest::addColumn<uint>("bits");
        QTest::addColumn<QString>("text");
        QTest::newRow("trace kernel(0,0)") << 0x3f1e2c8fu << "0.6178674";
        QTest::newRow("stddev in_dim 1") << 0x3f918436u << "1.1368473";
        QTest::newRow("one and a half") << 0x3fc00000u << "1.5";
        QTest::newRow("negative zero") << 0x80000000u << "-0";
        QTest::newRow("smallest subnormal") << 0x00000001u << "1e-45";
        QTest::newRow("largest finite") << 0x7f7fffffu << "3.4028235e+38";
    }

    void knownValues() {
        QFETCH(uint, bits);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(formatFloat(floatFromBits(bits))), text);
        QCOMPARE(QString::fromStdString(floatBitsHex(floatFromBits(bits))),
                 QString("%1").arg(bits, 8, 16, QChar('0')));
    }

    // A million random finite bit patterns survive text and back unchanged.
    void roundTripsBitForBit() {
        std::mt19937 engine(12345);
        int checked = 0;
        for (int i = 0; i < 1000000; ++i) {
            const std::uint32_t bits = engine();
            const float value = floatFromBits(bits);
            if (!std::isfinite(value))
                continue;
            const std::string text = formatFloat(value);
            float back = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), back);
            QVERIFY(ec == std::errc() && end == text.data() + text.size());
            if (bitsOfFloat(back) != bits)
                QFAIL(qPrintable(QString::fromStdString(text)));
            ++checked;
        }
        QVERIFY(checked > 990000);
    }

    void nonFinite() {
        QCOMPARE(formatFloat(std::numeric_limits<float>::infinity()), std::string("inf"));
        QCOMPARE(formatFloat(-std::numeric_limits<float>::infinity()), std::string("-inf"));
        QCOMPARE(formatFloat(std::numeric_limits<float>::quiet_NaN()), std::string("nan"));
        QCOMPARE(formatFloatShort(-0.26290740f), std::string("-0.263"));
    }
};

QTEST_APPLESS_MAIN(TestFloatFormat)
#include "tst_float_format.moc"
