// How ranges, slices and shapes are written: one spelling for every place that shows them.

#include "layer/range_text.h"

#include <QTest>

using namespace tp;

class TestRangeText : public QObject {
    Q_OBJECT

private slots:
    void ranges() {
        QCOMPARE(sliceText({4, 8}), std::string("4:8"));
        QCOMPARE(rangeLabel({4, 8}), std::string("[4:8)"));
        QCOMPARE(rangeLabel({0, 1'000'000'000'000}), std::string("[0:1000000000000)"));
    }

    void shapes() {
        QCOMPARE(shapeText(2, 8), std::string("2x8"));
        QCOMPARE(shapeTuple(2, 8), std::string("(2, 8)"));
        QCOMPARE(shapeTuple(12), std::string("(12,)"));
    }

    void slices() {
        QCOMPARE(columnSlice("kernel", {4, 8}), std::string("kernel[:, 4:8]"));
        QCOMPARE(rowSlice("kernel", {0, 2}), std::string("kernel[0:2, :]"));
        QCOMPARE(vectorSlice("bias", {8, 12}), std::string("bias[8:12]"));
    }
};

QTEST_APPLESS_MAIN(TestRangeText)
#include "tst_range_text.moc"
