// The text printed in cells: one formatter, the font size that fits, and the contrast of the text.

#include "cell_text.h"
#include "heatmap_image.h"

#include <QFontDatabase>
#include <QRegularExpression>
#include <QTest>

#include <limits>

using namespace tp;

class TestCellText : public QObject {
    Q_OBJECT

private slots:
    void cellText_data();
    void cellText();
    void neverMinusZeroPointZeroZero();
    void widestIsTheLongest();
    void pixelSizeFitsTheWidestText();
    void numbersContrastWithEveryCellColour();
};

void TestCellText::cellText_data() {
    QTest::addColumn<float>("value");
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << 0.0f << "0";
    QTest::newRow("minus zero") << -0.0f << "0";
    QTest::newRow("-0.00232") << -0.00232f << "-2.3e-3";
    QTest::newRow("-0.0989") << -0.0989f << "-0.099";
    QTest::newRow("0.6178674") << 0.6178674f << "0.62";
    QTest::newRow("-1.5") << -1.5f << "-1.5";
    QTest::newRow("12.3") << 12.3f << "12";
    QTest::newRow("350.2") << 350.2f << "350";
    QTest::newRow("12345") << 12345.0f << "1.2e4";
    QTest::newRow("1e-5") << 1e-5f << "1.0e-5";
    QTest::newRow("0.01") << 0.01f << "0.01";
    QTest::newRow("nan") << std::numeric_limits<float>::quiet_NaN() << "nan";
    QTest::newRow("-inf") << -std::numeric_limits<float>::infinity() << "-inf";
}

void TestCellText::cellText() {
    QFETCH(float, value);
    QFETCH(QString, text);
    QCOMPARE(tp::cellText(value), text);
}

void TestCellText::neverMinusZeroPointZeroZero() {
    // Every small negative value keeps a digit other than zero.
    for (float v = -0.0099f; v < 0.0f; v += 0.0000137f) {
        const QString text = tp::cellText(v);
        QVERIFY2(!text.startsWith("-0.0") || text.contains(QRegularExpression("[1-9]")),
                 qPrintable(text));
        QVERIFY2(text != "-0.00" && text != "-0", qPrintable(text));
    }
}

void TestCellText::widestIsTheLongest() {
    const std::vector<float> values = {0.5f, -0.25f, -0.00232f, 1.0f};
    QCOMPARE(widestCellText(4, [&](long long i) { return values[std::size_t(i)]; }),
             QString("-2.3e-3"));
}

void TestCellText::pixelSizeFitsTheWidestText() {
    const QFont font = QFontDatabase::systemFont(QFontDatabase::GeneralFont);
    // A wide cell takes the largest size, a cell too narrow for the smallest none.
    QCOMPARE(numberPixelSize(font, QSizeF(120, 40), "-0.62"), 13);
    QCOMPARE(numberPixelSize(font, QSizeF(10, 40), "-0.62"), 0);
    // In between, the chosen size fits and the next larger one does not.
    for (int width = 20; width < 70; width += 3) {
        const int size = numberPixelSize(font, QSizeF(width, 30), "-0.099");
        if (size == 0)
            continue;
        QFont f = font;
        f.setPixelSize(size);
        QVERIFY(QFontMetricsF(f).horizontalAdvance("-0.099") <= width - 4);
        if (size < 13) {
            f.setPixelSize(size + 1);
            QVERIFY(QFontMetricsF(f).horizontalAdvance("-0.099") > width - 4);
        }
    }
}

void TestCellText::numbersContrastWithEveryCellColour() {
    // Whatever the cell's colour (any group, dimmed or not, any value), the text reads at 4.5 : 1.
    for (int group = -1; group < 8; ++group) {
        for (const bool dimmed : {false, true}) {
            for (float v = -1.0f; v <= 1.0f; v += 0.05f) {
                const QRgb cell = heatmapColor(v, 1.0f, group, dimmed);
                const double contrast = contrastRatio(cell, numberColourOn(cell));
                QVERIFY2(
                    contrast >= 4.5,
                    qPrintable(
                        QString("group %1 value %2 contrast %3").arg(group).arg(v).arg(contrast)));
            }
        }
    }
    QCOMPARE(numberColourOn(qRgb(255, 255, 255)), qRgb(0, 0, 0));
    QCOMPARE(numberColourOn(qRgb(20, 40, 120)), qRgb(255, 255, 255));
}

QTEST_MAIN(TestCellText)
#include "tst_cell_text.moc"
