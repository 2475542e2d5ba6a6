// The trace panel's text of one output value: every number, NaN and infinities included, printed
// as the rest of tpviz prints them ("nan", "inf", "-inf"); and what hovering a kernel cell says.

#include "layer_panel.h"
#include "matrix_view.h"
#include "scene/scene.h"
#include "scene/scene_request.h"
#include "trace_panel.h"

#include <QSignalSpy>
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

    // A kernel cell names its group, the output column it feeds, its flat index and, for a
    // kernel drawn from the seed, the threefry counter it was drawn from.
    void hoveringAKernelCellNamesItsCounter_data() {
        QTest::addColumn<int>("source");
        QTest::addColumn<int>("layout");
        QTest::addColumn<QString>("counter");
        // kernel[2, 5] of the 8 x 12 kernel: flat index 29 of 96; legacy pairs it with 29 + 48.
        QTest::newRow("partitionable")
            << int(SceneSource::Nnx) << int(PrngLayout::Partitionable)
            << "threefry counter (x0, x1) = (0, 29), bits y0 ^ y1 (partitionable)";
        QTest::newRow("legacy") << int(SceneSource::Nnx) << int(PrngLayout::Legacy)
                                << "threefry counter (x0, x1) = (29, 77), bits y0 (legacy)";
        QTest::newRow("worked example: not drawn")
            << int(SceneSource::Brief) << int(PrngLayout::Partitionable) << "";
    }

    void hoveringAKernelCellNamesItsCounter() {
        QFETCH(int, source);
        QFETCH(int, layout);
        QFETCH(QString, counter);
        const bool brief = SceneSource(source) == SceneSource::Brief;
        LayerConfig config = brief ? briefExampleConfig() : LayerConfig{};
        config.prng = PrngLayout(layout);
        const auto scene =
            std::make_shared<const Scene>(*computeScene({config, SceneSource(source)}));
        LayerPanel panel;
        panel.resize(1000, 700);
        panel.setScene(scene);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy hover(&panel, &LayerPanel::hoverText);
        MatrixView* kernel = panel.kernelView();
        const int row = brief ? 0 : 2, col = brief ? 3 : 5;
        QTRY_VERIFY(!kernel->cellRect(row, col).isEmpty());
        // Move until the layout has settled under the pointer: each move is a real hover (from a
        // corner first, since an earlier test may have left the pointer on the same spot).
        const QString flat = QString("flat index %1 ").arg(row * config.features + col);
        QTRY_VERIFY2(
            (QTest::mouseMove(kernel->viewport(), QPoint(1, 1)),
             QTest::mouseMove(kernel->viewport(), kernel->cellRect(row, col).center().toPoint()),
             !hover.isEmpty() && hover.last().at(0).toString().contains(flat)),
            qPrintable(hover.isEmpty() ? QString() : hover.last().at(0).toString()));
        const QString text = hover.last().at(0).toString();
        QVERIFY2(text.contains(QString("feeds y[:, %1]").arg(col)), qPrintable(text));
        if (counter.isEmpty())
            QVERIFY2(!text.contains("threefry"), qPrintable(text));
        else
            QVERIFY2(text.endsWith(counter), qPrintable(text));
    }
};

QTEST_MAIN(TestTracePanel)
#include "tst_trace_panel.moc"
