// MatrixView driven as a user would: hover, zoom, pan, and what it caches.
// This file is over 600 lines because each input the widget takes has its own test.

#include "cell_image_cache.h"
#include "hover_text.h"
#include "layer/float_format.h"
#include "matrix_view.h"
#include "palette.h"

#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>

#include <functional>
#include <memory>

using namespace tp;

namespace {

std::vector<IndexRange> equalGroups(Index extent, Index count) {
    std::vector<IndexRange> groups;
    const Index chunk = extent / count;
    for (Index i = 0; i < count; ++i)
        groups.push_back({i * chunk, (i + 1) * chunk});
    return groups;
}

// (rows, cols) filled with row * 100 + col, so every value names its cell.
std::shared_ptr<Matrix> indexed(Index rows, Index cols) {
    auto m = std::make_shared<Matrix>(rows, cols);
    for (Index r = 0; r < rows; ++r) {
        for (Index c = 0; c < cols; ++c)
            (*m)(r, c) = float(r * 100 + c) * (c % 2 ? -1.0f : 1.0f);
    }
    return m;
}

// The brief's kernel [[1, 0, 2, -1], [0, 1, 1, 3]].
std::shared_ptr<Matrix> briefKernel() {
    auto m = std::make_shared<Matrix>(2, 4);
    *m << 1, 0, 2, -1,  //
        0, 1, 1, 3;
    return m;
}

// Saves the widget for a human to look at when TPVIZ_SCREENSHOT_DIR is set.
void saveScreenshot(QWidget& widget, const QString& name) {
    const QString dir = qEnvironmentVariable("TPVIZ_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        widget.grab().save(dir + "/" + name + ".png");
}

}  // namespace

class TestMatrixView : public QObject {
    Q_OBJECT

private slots:
    void hoverReportsCell_data();
    void labelRangesNameTheWholeLayersColumns();
    void smallValuesStillShowANumber();
    void hoverReportsCell();
    void hoverShowsTooltipWithFullPrecision();
    void leavingClearsHover();
    void zoomSlotsScaleCells();
    void ctrlWheelAndKeysZoom();
    void zoomKeepsAnchorCell();
    void scrollBarsSettle();
    void dragPans();
    void fitsSmallMatrixWithSquareCells();
    void cellNumbersFollowCellSize_data();
    void cellNumbersFollowCellSize();
    void cellNumbersAreDrawn();
    void repaintDoesNotRerender();
    void inputChangesRerender();
    void highlightDimsInWidget();
    void effectiveScale();
    void largeMatrixRendersOffThread();
    void staleRenderIsDroppedForTheNewest();
    void followerLinesUpWithLeadersColumns();
    void hoverTextNamesCellValueAndGroup();
    void numbersAreAllOrNone();
    void titleShowsTheViewsScale();
};

void TestMatrixView::hoverReportsCell_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("tpSize");
    QTest::addColumn<bool>("rowGroups");
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("col");
    QTest::addColumn<int>("group");
    QTest::newRow("8x12 tp3 cell (5, 7)") << 8 << 12 << 3 << false << 5 << 7 << 1;
    QTest::newRow("8x12 tp3 cell (0, 0)") << 8 << 12 << 3 << false << 0 << 0 << 0;
    QTest::newRow("8x12 tp3 cell (7, 11)") << 8 << 12 << 3 << false << 7 << 11 << 2;
    QTest::newRow("8x12 row tp4 cell (6, 2)") << 8 << 12 << 4 << true << 6 << 2 << 3;
    QTest::newRow("2x40 tp8 cell (1, 33)") << 2 << 40 << 8 << false << 1 << 33 << 6;
    QTest::newRow("3x5 no groups cell (2, 4)") << 3 << 5 << 0 << false << 2 << 4 << -1;
}

void TestMatrixView::hoverReportsCell() {
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(int, tpSize);
    QFETCH(bool, rowGroups);
    QFETCH(int, row);
    QFETCH(int, col);
    QFETCH(int, group);
    const auto m = indexed(rows, cols);
    MatrixView view;
    view.resize(600, 400);
    view.setMatrix(MatrixData::of(m, *m));
    if (tpSize > 0)
        view.setGroups(equalGroups(rowGroups ? rows : cols, tpSize),
                       rowGroups ? Qt::Vertical : Qt::Horizontal);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy spy(&view, &MatrixView::cellHovered);
    const QPoint centre = view.cellRect(row, col).center().toPoint();
    QCOMPARE(view.cellAt(centre), (CellIndex{row, col}));
    QTest::mouseMove(view.viewport(), centre);
    QTRY_COMPARE(spy.count(), 1);
    const QList<QVariant> args = spy.takeFirst();
    QCOMPARE(args.at(0).toInt(), row);
    QCOMPARE(args.at(1).toInt(), col);
    QCOMPARE(args.at(2).toFloat(), (*m)(row, col));
    QCOMPARE(args.at(3).toInt(), group);
    // Moving inside the same cell does not repeat the signal.
    QTest::mouseMove(view.viewport(), centre + QPoint(1, 1));
    QCOMPARE(spy.count(), 0);
}

void TestMatrixView::hoverShowsTooltipWithFullPrecision() {
    auto m = std::make_shared<Matrix>(2, 4);
    *m << 0.6178674f, -0.1f, 1.0f / 3.0f, 2.0f,  //
        1e-7f, 0.0f, -3.25f, 7.0f;
    MatrixView view;
    view.resize(500, 300);
    view.setTitle("kernel (2, 4)");
    view.setName("kernel");
    view.setMatrix(MatrixData::of(m, *m));
    view.setGroups(equalGroups(4, 2), Qt::Horizontal);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTest::mouseMove(view.viewport(), view.cellRect(0, 2).center().toPoint());
    QTRY_VERIFY(QToolTip::isVisible());
    const QString text = QToolTip::text();
    QVERIFY2(text.contains("kernel[0, 2] = " + QString::fromStdString(formatFloat(1.0f / 3.0f))),
             qPrintable(text));
    QVERIFY2(text.contains("group 1") && text.contains("[2:4)"), qPrintable(text));
}

void TestMatrixView::leavingClearsHover() {
    const auto m = briefKernel();
    MatrixView view;
    view.resize(400, 300);
    view.setMatrix(MatrixData::of(m, *m));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy left(&view, &MatrixView::hoverLeft);
    QTest::mouseMove(view.viewport(), view.cellRect(1, 1).center().toPoint());
    QTest::mouseMove(view.viewport(), QPoint(2, 2));  // the margin, outside the cells
    QTRY_COMPARE(left.count(), 1);
}

void TestMatrixView::zoomSlotsScaleCells() {
    const auto m = indexed(8, 12);
    MatrixView view;
    view.resize(400, 300);
    view.setMatrix(MatrixData::of(m, *m));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QSizeF fitted = view.cellSize();
    QSignalSpy spy(&view, &MatrixView::zoomChanged);
    view.zoomIn();
    QCOMPARE(spy.count(), 1);
    QVERIFY(qFuzzyCompare(view.cellSize().width(), fitted.width() * 1.25));
    view.zoomIn();
    view.zoomIn();
    QVERIFY(view.cellSize().width() > fitted.width() * 1.9);
    QVERIFY(view.horizontalScrollBar()->maximum() > 0);  // content outgrew the view
    view.zoomOut();
    QVERIFY(qFuzzyCompare(view.cellSize().width(), fitted.width() * 1.25 * 1.25));
    view.resetZoom();
    QCOMPARE(view.zoom(), 1.0);
    QCOMPARE(view.cellSize(), fitted);
    QCOMPARE(view.horizontalScrollBar()->maximum(), 0);
}

void TestMatrixView::ctrlWheelAndKeysZoom() {
    const auto m = indexed(8, 12);
    MatrixView view;
    view.resize(400, 300);
    view.setMatrix(MatrixData::of(m, *m));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const double before = view.cellSize().width();
    const QPointF at = view.cellRect(3, 3).center();
    QWheelEvent wheel(at, view.viewport()->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view.viewport(), &wheel);
    QVERIFY(view.cellSize().width() > before * 1.2);
    QTest::keyClick(&view, Qt::Key_Minus);
    QVERIFY(qFuzzyCompare(view.cellSize().width(), before));
    QTest::keyClick(&view, Qt::Key_Plus);
    QTest::keyClick(&view, Qt::Key_Plus);
    QVERIFY(view.zoom() > 1.5);
    QTest::keyClick(&view, Qt::Key_0);
    QCOMPARE(view.zoom(), 1.0);
    // A plain wheel scrolls rather than zooms.
    QWheelEvent plain(at, view.viewport()->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view.viewport(), &plain);
    QCOMPARE(view.zoom(), 1.0);
}

void TestMatrixView::zoomKeepsAnchorCell() {
    const auto m = indexed(16, 16);
    MatrixView view;
    view.resize(400, 400);
    view.setMatrix(MatrixData::of(m, *m));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QPointF anchor = view.cellRect(12, 3).center();
    view.setZoom(4.0, anchor);
    QCOMPARE(view.cellAt(anchor), (CellIndex{12, 3}));
    QVERIFY(view.verticalScrollBar()->value() > 0);
}

// Counts the times a widget is shown.
class ShowCounter : public QObject {
public:
    int shows = 0;
    std::function<void()> onFlood;
    bool eventFilter(QObject*, QEvent* event) override {
        if (event->type() == QEvent::Show && ++shows == 50 && onFlood)
            onFlood();
        return false;
    }
};

// Found by the random user: zoomed just past fitting, a scroll bar shrank the cells until they no
// longer needed it, its hiding grew them again, and the view showed and hid the bar without end
// (the event loop never returned). Over many sizes and zooms, the bars settle after a few shows.
void TestMatrixView::scrollBarsSettle() {
    const auto m = indexed(8, 12);
    MatrixView view;
    view.setMatrix(MatrixData::of(m, *m));
    view.resize(300, 200);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    ShowCounter counter;
    counter.onFlood = [&view] { view.resetZoom(); };  // ends a loop that would never end
    view.horizontalScrollBar()->installEventFilter(&counter);
    view.verticalScrollBar()->installEventFilter(&counter);
    for (int width = 200; width <= 420; width += 5) {
        for (double zoom = 1.0; zoom <= 1.6; zoom += 0.02) {
            counter.shows = 0;
            view.resetZoom();
            view.resize(width, 2 * width / 3);
            view.setZoom(zoom);
            QCoreApplication::processEvents();
            QVERIFY2(counter.shows < 50,
                     qPrintable(QStringLiteral("%1 px wide at zoom %2").arg(width).arg(zoom)));
        }
    }
}

void TestMatrixView::dragPans() {
    const auto m = indexed(16, 16);
    MatrixView view;
    view.resize(300, 300);
    view.setMatrix(MatrixData::of(m, *m));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setZoom(4.0);
    const int before = view.horizontalScrollBar()->value();
    QTest::mousePress(view.viewport(), Qt::LeftButton, {}, QPoint(150, 150));
    QTest::mouseMove(view.viewport(), QPoint(100, 150));
    QTest::mouseRelease(view.viewport(), Qt::LeftButton, {}, QPoint(100, 150));
    QCOMPARE(view.horizontalScrollBar()->value(), before + 50);
}

void TestMatrixView::fitsSmallMatrixWithSquareCells() {
    const auto m = briefKernel();
    MatrixView view;
    view.resize(500, 300);
    view.setMatrix(MatrixData::of(m, *m));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QSizeF cell = view.cellSize();
    QCOMPARE(cell.width(), cell.height());
    const QRectF all = view.cellRect(0, 0).united(view.cellRect(1, 3));
    QVERIFY(view.viewport()->rect().contains(all.toAlignedRect()));
    QCOMPARE(view.horizontalScrollBar()->maximum(), 0);
    QCOMPARE(view.verticalScrollBar()->maximum(), 0);
}

void TestMatrixView::cellNumbersFollowCellSize_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("mode");
    QTest::addColumn<bool>("shown");
    QTest::newRow("brief 2x4 auto") << 2 << 4 << int(CellNumbers::Auto) << true;
    QTest::newRow("8x12 auto") << 8 << 12 << int(CellNumbers::Auto) << true;
    QTest::newRow("64x256 auto") << 64 << 256 << int(CellNumbers::Auto) << false;
    QTest::newRow("2x4 hidden") << 2 << 4 << int(CellNumbers::Hidden) << false;
    QTest::newRow("16x30 auto (cells too small)") << 16 << 30 << int(CellNumbers::Auto) << false;
    // Shown follows the same rule: numbers only where the widest fits.
    QTest::newRow("16x30 shown") << 16 << 30 << int(CellNumbers::Shown) << false;
    QTest::newRow("8x12 shown") << 8 << 12 << int(CellNumbers::Shown) << true;
}

void TestMatrixView::cellNumbersFollowCellSize() {
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(int, mode);
    QFETCH(bool, shown);
    const auto m = indexed(rows, cols);
    MatrixView view;
    view.resize(640, 480);
    view.setMatrix(MatrixData::of(m, *m));
    view.setCellNumbers(CellNumbers(mode));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.cellNumbersShown(), shown);
}

void TestMatrixView::cellNumbersAreDrawn() {
    // A zero cell is white; with numbers on, its "0" puts dark pixels inside it.
    const auto m = briefKernel();
    MatrixView view;
    view.resize(500, 300);
    view.setMatrix(MatrixData::of(m, *m));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const auto darkPixelsInCell = [&](int row, int col) {
        const QImage shot = view.viewport()->grab().toImage();
        const qreal dpr = shot.devicePixelRatio();
        const QRect cell = view.cellRect(row, col).adjusted(4, 4, -4, -4).toRect();
        int dark = 0;
        for (int y = cell.top(); y <= cell.bottom(); ++y) {
            for (int x = cell.left(); x <= cell.right(); ++x)
                dark += qGray(shot.pixel(int(x * dpr), int(y * dpr))) < 128;
        }
        return dark;
    };
    QVERIFY(view.cellNumbersShown());
    saveScreenshot(view, "brief_kernel_numbers");
    QVERIFY(darkPixelsInCell(0, 1) > 5);
    view.setCellNumbersVisible(false);
    QCOMPARE(darkPixelsInCell(0, 1), 0);
}

void TestMatrixView::repaintDoesNotRerender() {
    const auto m = indexed(8, 12);
    MatrixView view;
    view.resize(400, 300);
    view.setMatrix(MatrixData::of(m, *m));
    view.setGroups(equalGroups(12, 3), Qt::Horizontal);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_VERIFY(view.renderCount() >= 1);
    const int renders = view.renderCount();
    for (int i = 0; i < 5; ++i)
        view.viewport()->repaint();
    QTest::mouseMove(view.viewport(), view.cellRect(2, 2).center().toPoint());
    view.viewport()->repaint();
    QCOMPARE(view.renderCount(), renders);
    QVERIFY(!view.cachedImage().isNull());
}

void TestMatrixView::inputChangesRerender() {
    const auto m = indexed(8, 12);
    MatrixView view;
    view.resize(400, 300);
    view.setMatrix(MatrixData::of(m, *m));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.viewport()->repaint();
    int renders = view.renderCount();
    view.setGroups(equalGroups(12, 4), Qt::Horizontal);
    view.viewport()->repaint();
    QCOMPARE(view.renderCount(), ++renders);
    view.resize(500, 350);  // the resize paints again, with the new visible size
    QTRY_COMPARE(view.renderCount(), renders + 1);
    ++renders;
    view.setHighlightedGroup(2);
    view.viewport()->repaint();
    QCOMPARE(view.renderCount(), ++renders);
    view.setHighlightedGroup(2);  // no change, no render
    view.viewport()->repaint();
    QCOMPARE(view.renderCount(), renders);
}

void TestMatrixView::highlightDimsInWidget() {
    auto m = std::make_shared<Matrix>(Matrix::Constant(2, 4, 1.0f));
    MatrixView view;
    view.resize(500, 300);
    view.setCellNumbersVisible(false);
    view.setMatrix(MatrixData::of(m, *m));
    view.setGroups(equalGroups(4, 2), Qt::Horizontal);
    view.setHighlightedGroup(1);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage shot = view.viewport()->grab().toImage();
    const qreal dpr = shot.devicePixelRatio();
    const auto at = [&](int row, int col) {
        const QPointF p = view.cellRect(row, col).center() * dpr;
        return shot.pixelColor(p.toPoint());
    };
    QCOMPARE(at(0, 3).rgb(), groupColor(1).rgb());
    QVERIFY(at(0, 0).hsvSaturationF() < 0.5 * groupColor(0).hsvSaturationF());
    saveScreenshot(view, "highlight_group1");
}

void TestMatrixView::effectiveScale() {
    auto m = std::make_shared<Matrix>(1, 3);
    *m << 0.5f, -4.0f, 1.0f;
    MatrixView view;
    QSignalSpy spy(&view, &MatrixView::effectiveScaleChanged);
    view.setMatrix(MatrixData::of(m, *m));
    QCOMPARE(view.effectiveScale(), 4.0f);
    QCOMPARE(spy.count(), 1);
    view.setScale(2.0f);
    QCOMPARE(view.effectiveScale(), 2.0f);
    QCOMPARE(spy.count(), 2);
    view.setScale(0.0f);
    QCOMPARE(view.effectiveScale(), 4.0f);
}

void TestMatrixView::largeMatrixRendersOffThread() {
    auto m = std::make_shared<Matrix>(Matrix::Random(1024, 4096));
    MatrixView view;
    view.resize(800, 400);
    view.setTitle("kernel (1024, 4096)");
    view.setMatrix(MatrixData::of(m, *m));
    view.setGroups(equalGroups(4096, 8), Qt::Horizontal);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_VERIFY(view.renderCount() >= 1);
    QVERIFY(!view.cachedImage().isNull());
    QVERIFY(!view.cellNumbersShown());
    // A new input: the paint starts a worker and returns with the old image still cached. A render
    // on the UI thread would have finished inside repaint().
    const int renders = view.renderCount();
    const QImage before = view.cachedImage();
    view.setHighlightedGroup(3);
    view.viewport()->repaint();
    QVERIFY(view.isRendering());
    QCOMPARE(view.renderCount(), renders);
    QCOMPARE(view.cachedImage(), before);
    QTRY_COMPARE(view.renderCount(), renders + 1);
    QVERIFY(!view.isRendering());
    QVERIFY(view.cachedImage() != before);
    view.viewport()->repaint();
    saveScreenshot(view, "kernel_1024x4096_tp8");
    // Zooming far in renders only the visible cells, so the image stays viewport-sized.
    view.setZoom(500.0);
    view.viewport()->repaint();
    QTRY_VERIFY(view.cachedImage().width() <= 2 * 800 * view.devicePixelRatioF());
    QVERIFY(view.cellSize().width() >= 28);
}

// Inputs that change while a worker renders: the worker is told to stop, its image never shows,
// and the newest inputs are rendered.
void TestMatrixView::staleRenderIsDroppedForTheNewest() {
    auto m = std::make_shared<Matrix>(Matrix::Random(1024, 4096));
    MatrixView view;
    view.resize(800, 400);
    view.setMatrix(MatrixData::of(m, *m));
    view.setGroups(equalGroups(4096, 8), Qt::Horizontal);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_VERIFY(!view.isRendering() && view.renderCount() >= 1);
    const int renders = view.renderCount();
    view.setHighlightedGroup(1);
    view.viewport()->repaint();
    QVERIFY(view.isRendering());
    view.setHighlightedGroup(5);
    view.viewport()->repaint();
    QCOMPARE(view.imageCache().stoppedCount(), 1);
    QTRY_VERIFY(!view.isRendering());
    QCOMPARE(view.renderCount(), renders + 1);  // only the newest became the image
    // Its pixels are group 5's highlight: group 1's columns are dimmed.
    HeatmapStyle style;
    style.groups = equalGroups(4096, 8);
    style.highlightedGroup = 5;
    style.scale = view.effectiveScale();
    style.devicePixelRatio = view.cachedImage().devicePixelRatio();
    const QImage image = view.cachedImage();
    const QImage expected = renderHeatmap(MatrixData::of(m, *m), style, image.size());
    for (const int group : {1, 5}) {
        const int x = image.width() * group / 8 + image.width() / 16;  // inside its columns
        QCOMPARE(image.pixel(x, image.height() / 2), expected.pixel(x, image.height() / 2));
    }
}

// The bias strip under the kernel: column j of the follower lies under column j of the leader,
// at zoom 1 and zoomed in and scrolled.
void TestMatrixView::followerLinesUpWithLeadersColumns() {
    const auto kernelData = indexed(8, 12);
    auto biasData = std::make_shared<Matrix>(Matrix::Random(1, 12));
    QWidget window;
    window.resize(600, 500);
    auto* kernel = new MatrixView(&window);
    auto* bias = new MatrixView(&window);
    kernel->setGeometry(0, 0, 600, 400);
    bias->setGeometry(0, 400, 600, 100);
    kernel->setMatrix(MatrixData::of(kernelData, *kernelData));
    bias->setMatrix(MatrixData::of(biasData, *biasData));
    bias->setTitle("bias (12,)");
    bias->setColumnLeader(kernel);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const auto linedUp = [&] {
        for (int col : {0, 5, 11}) {
            const QRectF k = kernel->cellRect(0, col).translated(
                kernel->viewport()->mapTo(&window, QPoint(0, 0)));
            const QRectF b =
                bias->cellRect(0, col).translated(bias->viewport()->mapTo(&window, QPoint(0, 0)));
            if (std::abs(k.left() - b.left()) > 1e-9 || std::abs(k.width() - b.width()) > 1e-9)
                return false;
        }
        return true;
    };
    QVERIFY(linedUp());
    QCOMPARE(bias->layout().title.left(), bias->cellRect(0, 0).left());  // over its columns
    QCOMPARE(bias->heightForSquareCells(), 0.0);
    kernel->setZoom(3.0, kernel->cellRect(4, 9).center());
    QVERIFY(kernel->horizontalScrollBar()->value() > 0);
    QVERIFY(linedUp());
    kernel->horizontalScrollBar()->setValue(kernel->horizontalScrollBar()->value() / 2);
    QVERIFY(linedUp());
    QCOMPARE(bias->horizontalScrollBar()->maximum(), 0);
    QVERIFY(bias->heightForSquareCells() > 0);  // 100 px is too short for cells this wide
    // Ending following: the bias fits its own area again.
    bias->setColumnLeader(nullptr);
    QVERIFY(!linedUp());
}

void TestMatrixView::hoverTextNamesCellValueAndGroup() {
    QCOMPARE(hoverText("kernel", 3, 7, -0.5f, 1), QString("kernel[3, 7] = -0.5  \u00b7  group 1"));
    QCOMPARE(hoverText("bias", -1, 7, 2.0f, -1), QString("bias[7] = 2"));
    QCOMPARE(hoverText("x", 0, 1, 0.25f, 2, "rows [4:8)"),
             QString("x[0, 1] = 0.25  \u00b7  group 2 \u00b7 rows [4:8)"));
    // The tooltip is the same text, named by the view's name, never by its title: a title that
    // reads "y = sum of the partials  (2, 4): ..." describes the matrix, it does not name it.
    const auto m = indexed(2, 4);
    MatrixView view;
    view.setMatrix(MatrixData::of(m, *m));
    view.setTitle("kernel (2, 4)");
    view.setGroups(equalGroups(4, 2), Qt::Horizontal);
    QCOMPARE(view.cellDescription(1, 3), hoverText("value", 1, 3, (*m)(1, 3), 1, "columns [2:4)"));
    view.setName("kernel");
    QCOMPARE(view.cellDescription(1, 3), hoverText("kernel", 1, 3, (*m)(1, 3), 1, "columns [2:4)"));
    view.setTitle("y = sum of the partials  (2, 4): 1 of 2 added");
    QCOMPARE(view.cellDescription(1, 3), hoverText("kernel", 1, 3, (*m)(1, 3), 1, "columns [2:4)"));
}

// A partial output (N, chunk) of group 2 is indexed from 0, but names the output columns it fills.
void TestMatrixView::labelRangesNameTheWholeLayersColumns() {
    const auto m = indexed(2, 4);
    MatrixView view;
    view.setMatrix(MatrixData::of(m, *m));
    view.setTitle("partial (2, 4)");
    view.setName("partial");
    view.setGroups({IndexRange{0, 4}}, Qt::Horizontal, {2});
    QCOMPARE(view.cellDescription(1, 2),
             QString("partial[1, 2] = 102  \u00b7  group 2 \u00b7 columns [0:4)"));
    view.setGroupLabelRanges({IndexRange{8, 12}});
    QCOMPARE(view.cellDescription(1, 2),
             QString("partial[1, 2] = 102  \u00b7  group 2 \u00b7 columns [8:12)"));
}

// Values much smaller than the cell's room for digits (-0.0123) still print, in a shorter form,
// rather than leaving a blank cell among numbered ones.
void TestMatrixView::smallValuesStillShowANumber() {
    auto m = std::make_shared<Matrix>(8, 12);
    for (Index r = 0; r < 8; ++r) {
        for (Index c = 0; c < 12; ++c)
            (*m)(r, c) = (c % 2 ? -0.0123f : 0.0123f) * float(r + 1);
    }
    MatrixView view;
    view.resize(480, 330);
    view.setMatrix(MatrixData::of(m, *m));
    view.setScale(1.0f);  // cells stay near white, numbers dark
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.cellNumbersShown());
    const QImage shot = view.viewport()->grab().toImage();
    const qreal dpr = shot.devicePixelRatio();
    for (Index r = 0; r < 8; ++r) {
        for (Index c = 0; c < 12; ++c) {
            const QRect cell = view.cellRect(int(r), int(c)).adjusted(2, 2, -2, -2).toRect();
            int dark = 0;
            for (int y = cell.top(); y <= cell.bottom(); ++y) {
                for (int x = cell.left(); x <= cell.right(); ++x)
                    dark += qGray(shot.pixel(int(x * dpr), int(y * dpr))) < 128;
            }
            QVERIFY2(dark > 3, qPrintable(QString("cell (%1, %2) is blank").arg(r).arg(c)));
        }
    }
}

void TestMatrixView::numbersAreAllOrNone() {
    // One value has a long text (-2.3e-3): in cells too narrow for it no cell prints a number,
    // in cells wide enough every cell does. Never some cells with and some without.
    auto m = std::make_shared<Matrix>(1, 8);
    *m << 0.5f, -0.00232f, 0.25f, 1.0f, 0.5f, 0.5f, 0.5f, 0.5f;
    for (const int width : {260, 330, 400, 600}) {
        MatrixView view;
        view.resize(width, 120);
        view.setMatrix(MatrixData::of(m, *m));
        view.setScale(4.0f);  // light cells, dark numbers
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTRY_VERIFY(view.renderCount() > 0);
        const QImage shot = view.viewport()->grab().toImage();
        const qreal dpr = shot.devicePixelRatio();
        int cellsWithText = 0;
        for (int c = 0; c < 8; ++c) {
            const QRect cell = view.cellRect(0, c).adjusted(2, 2, -2, -2).toRect();
            int dark = 0;
            for (int y = cell.top(); y <= cell.bottom(); ++y) {
                for (int x = cell.left(); x <= cell.right(); ++x)
                    dark += qGray(shot.pixel(int(x * dpr), int(y * dpr))) < 128;
            }
            cellsWithText += dark > 3;
        }
        QVERIFY2(cellsWithText == 0 || cellsWithText == 8,
                 qPrintable(QString("width %1: %2 of 8 cells").arg(width).arg(cellsWithText)));
        QCOMPARE(cellsWithText == 8, view.cellNumbersShown());
        if (width == 600)
            QVERIFY(view.cellNumbersShown());
    }
}

void TestMatrixView::titleShowsTheViewsScale() {
    const auto m = briefKernel();
    MatrixView view;
    view.resize(600, 300);
    view.setMatrix(MatrixData::of(m, *m));
    view.setTitle("kernel (2, 4)");
    view.setScale(2.0f);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.scaleText(), QString("\u00b12"));
    const QRectF ramp = view.scaleRampRect(view.layout());
    QVERIFY(!ramp.isEmpty());
    const QImage shot = view.viewport()->grab().toImage();
    const qreal dpr = shot.devicePixelRatio();
    // The ramp's right end is the +scale colour, its left end the -scale colour (neutral map).
    const auto at = [&](qreal x) {
        return QColor(shot.pixel(int(x * dpr), int(ramp.center().y() * dpr)));
    };
    const QColor positive(heatmapColor(2.0f, 2.0f, -1));
    const QColor negative(heatmapColor(-2.0f, 2.0f, -1));
    QVERIFY(std::abs(at(ramp.right() - 2).lightness() - positive.lightness()) < 20);
    QVERIFY(std::abs(at(ramp.left() + 2).lightness() - negative.lightness()) < 20);
}

QTEST_MAIN(TestMatrixView)
#include "tst_matrix_view.moc"
