// durationText: a time in s, ms, µs or ns with three significant digits, never picoseconds, and
// with an exponent where fixed digits would run long or read 0.

#include "devices/duration_text.h"

#include <QTest>

#include <limits>

class TestDurationText : public QObject {
    Q_OBJECT

private slots:
    void units_data() {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << 0.0 << "0 s";
        QTest::newRow("seconds") << 1.2 << "1.20 s";
        QTest::newRow("minutes stay seconds") << 754.0 << "754 s";
        QTest::newRow("milliseconds") << 0.016 << "16.0 ms";
        QTest::newRow("microseconds") << 53.3e-6 << "53.3 µs";
        QTest::newRow("nanoseconds") << 136e-9 << "136 ns";
        QTest::newRow("below a nanosecond") << 0.194e-9 << "0.194 ns";
        QTest::newRow("far below") << 1.97e-11 << "0.0197 ns";
        QTest::newRow("rounds up a unit") << 0.99971 << "1.00 s";
        QTest::newRow("rounds up to ms") << 999.8e-6 << "1.00 ms";
        QTest::newRow("just below") << 0.9994e-3 << "999 µs";
        QTest::newRow("days stay seconds") << 999999.0 << "999999 s";
        QTest::newRow("a million seconds") << 1e6 << "1.00e+06 s";
        QTest::newRow("huge") << 1e100 << "1.00e+100 s";
        QTest::newRow("largest") << std::numeric_limits<double>::max() << "1.80e+308 s";
        QTest::newRow("below a picosecond") << 1e-300 << "1.00e-300 s";
        QTest::newRow("negative") << -1.0 << "unknown";
        QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN() << "unknown";
        QTest::newRow("infinite") << std::numeric_limits<double>::infinity() << "unknown";
    }

    void units() {
        QFETCH(double, seconds);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(tp::durationText(seconds)), text);
    }
};

QTEST_APPLESS_MAIN(TestDurationText)
#include "tst_duration_text.moc"
