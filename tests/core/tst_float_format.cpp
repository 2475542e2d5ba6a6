// Float text forms: the shortest form reads back to the same float32 bits.

#include "layer/float_format.h"

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

    // The short form prints every digit asked for, however many: 42 digits of -FLT_MIN and the
    // 105 of 2^-149 once came out cut to the 47 characters of a fixed buffer.
    void shortFormKeepsEveryDigit_data() {
        QTest::addColumn<uint>("bits");
        QTest::addColumn<int>("digits");
        QTest::addColumn<QString>("text");
        QTest::newRow("-FLT_MIN 41 digits, 47 characters")
            << 0x80800000u << 41 << "-1.1754943508222875079687365372222456778187e-38";
        QTest::newRow("-FLT_MIN 42 digits, 48 characters")
            << 0x80800000u << 42 << "-1.17549435082228750796873653722224567781867e-38";
        QTest::newRow("2^-149 exactly, 105 digits")
            << 0x00000001u << 105
            << "1."
               "40129846432481707092372958328991613128026194187651577175706828388979108268586060148"
               "663818836212158203125e-45";
    }

    void shortFormKeepsEveryDigit() {
        QFETCH(uint, bits);
        QFETCH(int, digits);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(formatFloatShort(floatFromBits(bits), digits)), text);
    }

    void nonFinite() {
        QCOMPARE(formatFloat(std::numeric_limits<float>::infinity()), std::string("inf"));
        QCOMPARE(formatFloat(-std::numeric_limits<float>::infinity()), std::string("-inf"));
        QCOMPARE(formatFloat(std::numeric_limits<float>::quiet_NaN()), std::string("nan"));
        QCOMPARE(formatFloatShort(-0.26290740f), std::string("-0.263"));
    }

    // A NaN with its sign bit set (what inf - inf gives on x86) prints as "nan" too, in both forms.
    void nonFiniteDoubles() {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        QCOMPARE(formatDouble(nan), std::string("nan"));
        QCOMPARE(formatDouble(-nan), std::string("nan"));
        QCOMPARE(formatFloat(-std::numeric_limits<float>::quiet_NaN()), std::string("nan"));
        QCOMPARE(formatDouble(std::numeric_limits<double>::infinity()), std::string("inf"));
        QCOMPARE(formatDouble(-std::numeric_limits<double>::infinity()), std::string("-inf"));
        QCOMPARE(formatDouble(1e-5), std::string("1e-05"));
    }
};

QTEST_APPLESS_MAIN(TestFloatFormat)
#include "tst_float_format.moc"
