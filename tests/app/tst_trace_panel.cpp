// The trace panel's text of one output value: every number, NaN and infinities included, printed
// as the rest of tpviz prints them ("nan", "inf", "-inf").

#include "trace_panel.h"

#include <QTest>

#include <limits>

using namespace tp;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// y[1, 2] of a column-mode split whose x holds a NaN and an infinity.
OutputTrace nonFiniteTrace() {
    OutputTrace t;
    t.row = 1;
    t.col = 2;
    t.terms = {{.k = 0, .x = kNaN, .kernel = 0.5f, .product = double(kNaN), .group = -1},
               {.k = 1, .x = kInf, .kernel = -2.0f, .product = -double(kInf), .group = -1},
               {.k = 2, .x = 1.0f, .kernel = 0.25f, .product = 0.25, .group = -1}};
    t.omittedCount = 1;
    t.omittedSum = double(kInf);
    t.termSum = double(kNaN);
    t.bias = -kInf;
    t.exact = -double(kNaN);  // the sign of a NaN is not printed
    t.result = kNaN;
    t.reference = kInf;
    t.ownerGroup = 0;
    return t;
}

}  // namespace

class TestTracePanel : public QObject {
    Q_OBJECT

private slots:
    void nonFiniteValuesPrintAsNanAndInf() {
        const QString html = traceHtml(nonFiniteTrace(), ParallelMode::Column);
        QVERIFY2(html.contains(QString("x[1, 0] * kernel[0, 2] = nan × 0.5 = nan")),
                 qPrintable(html));
        QVERIFY2(html.contains(QString("x[1, 1] * kernel[1, 2] = inf × -2 = -inf")),
                 qPrintable(html));
        QVERIFY2(html.contains(QString("+ 1 smaller terms, summed: inf")), qPrintable(html));
        QVERIFY2(html.contains(QString("+ bias[2] = -inf")), qPrintable(html));
        QVERIFY2(html.contains(QString("= nan (sum of the terms in double)")), qPrintable(html));
        QVERIFY2(html.contains(QString("float32 result: <b>nan</b>")), qPrintable(html));
        QVERIFY2(html.contains(QString("(reference inf)")), qPrintable(html));
    }

    void rowModePartialsPrintNonFinite() {
        OutputTrace t = nonFiniteTrace();
        t.ownerGroup = -1;
        t.contributions = {{.group = 0, .kernelRows = {0, 2}, .partial = -kInf},
                           {.group = 1, .kernelRows = {2, 4}, .partial = kNaN}};
        const QString html = traceHtml(t, ParallelMode::Row);
        QVERIFY2(html.contains(QString("group 0 (kernel rows [0:2)) adds its partial -inf")),
                 qPrintable(html));
        QVERIFY2(html.contains(QString("group 1 (kernel rows [2:4)) adds its partial nan")),
                 qPrintable(html));
    }

    // The panel shows what traceHtml writes.
    void panelShowsTheTrace() {
        TracePanel panel;
        panel.showTrace(nonFiniteTrace(), ParallelMode::Column);
        QCOMPARE(panel.text(), traceHtml(nonFiniteTrace(), ParallelMode::Column));
    }
};

QTEST_MAIN(TestTracePanel)
#include "tst_trace_panel.moc"
