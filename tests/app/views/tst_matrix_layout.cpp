// MatrixLayout: where title, band and cells go, without a widget.

#include "matrix_layout.h"

#include <QTest>

using namespace tp;

class TestMatrixLayout : public QObject {
    Q_OBJECT

private slots:
    void fitsSmallMatrixWithSquareCentredCells();
    void capsFittedCells();
    void stretchesCellsWhenSquaresAreTooSmall();
    void zoomGrowsTheSmallerSideFirst();
    void titleAndBandAboveHugTheCells();
    void bandLeftHugsTheCells();
    void scrolledContentStartsBeforeTheArea();
    void cellAtInvertsCellRect_data();
    void cellAtInvertsCellRect();
    void cellAtOutsideIsMinusOne();
    void visibleRangeCoversTheArea();
    void visibleDeviceSizeScalesWithRatio();
    void scrollRangeIsTheOverhang();
    void scrollBarsDoNotChangeTheCells();
    void clampZoomLimitsCellSide();
    void followsLeadersColumns();
    void emptyMatrixHasNoCells();
    void horizontalAlignPlacesNarrowMatrices();
};

void TestMatrixLayout::horizontalAlignPlacesNarrowMatrices() {
    // The same 2 x 4 matrix of 80 px cells in a 488 px wide area: 168 px to spare.
    MatrixLayoutInput in{.viewport = QSizeF(500, 300), .rows = 2, .cols = 4};
    in.horizontalAlign = Qt::AlignLeft;
    QCOMPARE(MatrixLayout(in).origin.x(), 6.0);
    in.horizontalAlign = Qt::AlignRight;
    QCOMPARE(MatrixLayout(in).origin.x(), 6.0 + 168);
    in.horizontalAlign = Qt::AlignHCenter;
    QCOMPARE(MatrixLayout(in).origin.x(), 6.0 + 84);
}

void TestMatrixLayout::fitsSmallMatrixWithSquareCentredCells() {
    // 500 x 300: area (6, 6, 488, 288); 2 x 4 cells of min(488 / 4, 288 / 2) = 122, capped at 80.
    const MatrixLayout l({.viewport = QSizeF(500, 300), .rows = 2, .cols = 4});
    QCOMPARE(l.area, QRectF(6, 6, 488, 288));
    QCOMPARE(l.base, QSizeF(80, 80));
    QCOMPARE(l.cell, QSizeF(80, 80));
    QCOMPARE(l.content, QSizeF(320, 160));
    QCOMPARE(l.origin, QPointF(6 + 84, 6 + 64));  // floor((488 - 320) / 2), floor((288 - 160) / 2)
    QVERIFY(l.title.isEmpty());
}

void TestMatrixLayout::capsFittedCells() {
    const MatrixLayout l({.viewport = QSizeF(1000, 1000), .rows = 1, .cols = 1});
    QCOMPARE(l.cell, QSizeF(MatrixLayout::kMaxFitCell, MatrixLayout::kMaxFitCell));
}

void TestMatrixLayout::stretchesCellsWhenSquaresAreTooSmall() {
    // 1000 columns in 488 px: 0.488 px wide, below kMinSquareCell, so rows take the full height.
    const MatrixLayout l({.viewport = QSizeF(500, 300), .rows = 10, .cols = 1000});
    QCOMPARE(l.cell.width(), 488.0 / 1000);
    QCOMPARE(l.cell.height(), 28.8);
    QCOMPARE(l.content.width(), 488.0);
}

void TestMatrixLayout::zoomGrowsTheSmallerSideFirst() {
    const MatrixLayout l({.viewport = QSizeF(500, 300), .rows = 10, .cols = 1000, .zoom = 4});
    QCOMPARE(l.cell.width(), 4 * 0.488);
    QCOMPARE(l.cell.height(), 28.8);  // already larger than 4 * 0.488
    const MatrixLayout out({.viewport = QSizeF(500, 300), .rows = 10, .cols = 1000, .zoom = 0.5});
    QCOMPARE(out.cell, QSizeF(0.244, 14.4));
}

void TestMatrixLayout::titleAndBandAboveHugTheCells() {
    const MatrixLayout l({.viewport = QSizeF(500, 300),
                          .rows = 2,
                          .cols = 4,
                          .titleHeight = 20,
                          .band = BandSide::Above,
                          .bandExtent = 25});
    QCOMPARE(l.title, QRectF(6, 6, 488, 20));
    const qreal top = 6 + 20 + 4 + 25 + 2;
    QCOMPARE(l.area, QRectF(6, top, 488, 300 - top - 6));
    QCOMPARE(l.band.bottom(), l.origin.y() - 2);  // moved down onto the centred cells
    QCOMPARE(l.band.height(), 25.0);
}

void TestMatrixLayout::bandLeftHugsTheCells() {
    const MatrixLayout l({.viewport = QSizeF(500, 300),
                          .rows = 4,
                          .cols = 2,
                          .band = BandSide::Left,
                          .bandExtent = 50});
    QCOMPARE(l.area.left(), 6 + 50 + 2.0);
    QCOMPARE(l.band.height(), l.area.height());
    QCOMPARE(l.band.right(), l.origin.x() - 2);
}

void TestMatrixLayout::scrolledContentStartsBeforeTheArea() {
    const MatrixLayout l({.viewport = QSizeF(300, 300),
                          .rows = 16,
                          .cols = 16,
                          .zoom = 4,
                          .scroll = QPoint(50, 70)});
    QVERIFY(l.content.width() > l.area.width());
    QCOMPARE(l.origin, QPointF(6 - 50, 6 - 70));
}

void TestMatrixLayout::cellAtInvertsCellRect_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<double>("zoom");
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("col");
    QTest::newRow("2x4 fit (1, 3)") << 2 << 4 << 1.0 << 1 << 3;
    QTest::newRow("8x12 fit (5, 7)") << 8 << 12 << 1.0 << 5 << 7;
    QTest::newRow("64x256 zoom 3 (2, 9)") << 64 << 256 << 3.0 << 2 << 9;
    QTest::newRow("3x5 zoom 0.5 (2, 4)") << 3 << 5 << 0.5 << 2 << 4;
}

void TestMatrixLayout::cellAtInvertsCellRect() {
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(double, zoom);
    QFETCH(int, row);
    QFETCH(int, col);
    const MatrixLayout l({.viewport = QSizeF(640, 480), .rows = rows, .cols = cols, .zoom = zoom});
    const QRectF rect = l.cellRect(row, col);
    QCOMPARE(rect.size(), l.cell);
    QCOMPARE(l.cellAt(rect.center()), (CellIndex{row, col}));
    QCOMPARE(l.cellAt(rect.topLeft() + QPointF(1e-3, 1e-3)), (CellIndex{row, col}));
}

void TestMatrixLayout::cellAtOutsideIsMinusOne() {
    const MatrixLayout l({.viewport = QSizeF(500, 300), .rows = 2, .cols = 4});
    QVERIFY(!l.cellAt(QPointF(2, 2)).isValid());                  // margin
    QVERIFY(!l.cellAt(l.origin - QPointF(1, 1)).isValid());       // area, no cell
    QVERIFY(!l.cellAt(l.origin + QPointF(320.5, 10)).isValid());  // right of cells
    QCOMPARE(l.cellAt(l.origin + QPointF(0.5, 0.5)), (CellIndex{0, 0}));
}

void TestMatrixLayout::visibleRangeCoversTheArea() {
    // 16 x 16 cells of 4 * 18 = 72 px in a 288 px area, scrolled 100 px right and 10 down.
    const MatrixLayout l({.viewport = QSizeF(300, 300),
                          .rows = 16,
                          .cols = 16,
                          .zoom = 4,
                          .scroll = QPoint(100, 10)});
    QCOMPARE(l.cell, QSizeF(72, 72));
    QCOMPARE(l.visibleCols(), (IndexRange{1, 6}));  // pixels 100 .. 388 of the content
    QCOMPARE(l.visibleRows(), (IndexRange{0, 5}));  // pixels 10 .. 298
    const MatrixLayout fit({.viewport = QSizeF(300, 300), .rows = 16, .cols = 16});
    QCOMPARE(fit.visibleCols(), (IndexRange{0, 16}));
    QCOMPARE(fit.visibleRows(), (IndexRange{0, 16}));
}

void TestMatrixLayout::visibleDeviceSizeScalesWithRatio() {
    const MatrixLayout l({.viewport = QSizeF(500, 300), .rows = 2, .cols = 4});
    QCOMPARE(l.visibleDeviceSize(1), QSize(320, 160));
    QCOMPARE(l.visibleDeviceSize(2), QSize(640, 320));
    QCOMPARE(l.visibleDeviceSize(1.5), QSize(480, 240));
}

void TestMatrixLayout::scrollRangeIsTheOverhang() {
    const MatrixLayout fit({.viewport = QSizeF(300, 300), .rows = 16, .cols = 16});
    QCOMPARE(fit.scrollRange(), QSize(0, 0));
    const MatrixLayout zoomed({.viewport = QSizeF(300, 300), .rows = 16, .cols = 16, .zoom = 4});
    QCOMPARE(zoomed.scrollRange(), QSize(16 * 72 - 288, 16 * 72 - 288));
}

// A scroll bar shrinks the viewport; the cells stay fitted to the viewport without bars, so a bar
// never shrinks the content into not needing it (which showed and hid it without end).
void TestMatrixLayout::scrollBarsDoNotChangeTheCells() {
    const MatrixLayoutInput without{
        .viewport = QSizeF(300, 300), .rows = 8, .cols = 12, .zoom = 1.1};
    MatrixLayoutInput with = without;
    with.viewport = QSizeF(285, 285);
    with.fitViewport = without.viewport;
    QCOMPARE(MatrixLayout(with).cell, MatrixLayout(without).cell);
    // Cells of 26.4 x 36 (the zoomed width, the fitted height): 316.8 x 288 px of content in an
    // area of 288 x 288 without bars, 273 x 273 with them.
    QCOMPARE(MatrixLayout(without).scrollRange(), QSize(29, 0));
    QCOMPARE(MatrixLayout(with).scrollRange(), QSize(44, 15));
    // At zoom 1 the content fits the viewport without bars: no bar is needed, even while one is
    // still shown.
    with.zoom = 1;
    QCOMPARE(MatrixLayout(with).scrollRange(), QSize(0, 0));
}

void TestMatrixLayout::clampZoomLimitsCellSide() {
    const MatrixLayout l({.viewport = QSizeF(300, 300), .rows = 16, .cols = 16});  // 18 px cells
    QCOMPARE(l.clampZoom(0.01), MatrixLayout::kMinZoom);
    QCOMPARE(l.clampZoom(3.0), 3.0);
    QCOMPARE(l.clampZoom(1000.0), MatrixLayout::kMaxCell / 18);
    const MatrixLayout big({.viewport = QSizeF(3000, 3000), .rows = 1, .cols = 1});
    QCOMPARE(big.clampZoom(100.0), MatrixLayout::kMaxCell / MatrixLayout::kMaxFitCell);
}

void TestMatrixLayout::followsLeadersColumns() {
    // A (1, 12) bias under a kernel whose 30 px columns start at x = 100 of the follower's
    // viewport.
    const MatrixLayout l({.viewport = QSizeF(600, 84),
                          .rows = 1,
                          .cols = 12,
                          .titleHeight = 20,
                          .leader = LeaderColumns{30, 100}});
    QCOMPARE(l.cell.width(), 30.0);
    QCOMPARE(l.cell.height(), 30.0);
    QCOMPARE(l.origin.x(), 100.0);
    QCOMPARE(l.cellRect(0, 5).left(), 100 + 5 * 30.0);
    // The area and the title span the columns shown.
    QCOMPARE(l.title.left(), 100.0);
    QCOMPARE(l.title.right(), 100 + 12 * 30.0);
    QCOMPARE(l.area.left(), 100.0);
    QCOMPARE(l.area.right(), 100 + 12 * 30.0);
    QVERIFY(!l.cellAt(QPointF(99, 50)).isValid());
    // Too little height: cells keep the leader's width and get what height there is.
    const MatrixLayout flat(
        {.viewport = QSizeF(600, 30), .rows = 1, .cols = 12, .leader = LeaderColumns{30, 100}});
    QCOMPARE(flat.cell, QSizeF(30, 18));
    // Scrolled leader: the columns start left of the area; the title starts at the area.
    const MatrixLayout scrolled({.viewport = QSizeF(600, 84),
                                 .rows = 1,
                                 .cols = 12,
                                 .titleHeight = 20,
                                 .leader = LeaderColumns{90, -200}});
    QCOMPARE(scrolled.origin.x(), -200.0);
    QCOMPARE(scrolled.title.left(), 6.0);
    QCOMPARE(scrolled.title.right(), 594.0);
    QCOMPARE(scrolled.area.left(), 6.0);
    QCOMPARE(scrolled.area.right(), 594.0);
    QCOMPARE(scrolled.visibleCols(), (IndexRange{2, 9}));  // pixels 206 .. 794 of the columns
}

void TestMatrixLayout::emptyMatrixHasNoCells() {
    const MatrixLayout l({.viewport = QSizeF(500, 300), .titleHeight = 20});
    QVERIFY(l.cell.isEmpty());
    QVERIFY(!l.cellAt(QPointF(100, 100)).isValid());
    QCOMPARE(l.visibleCols(), IndexRange{});
    QCOMPARE(l.scrollRange(), QSize(0, 0));
}

QTEST_APPLESS_MAIN(TestMatrixLayout)
#include "tst_matrix_layout.moc"
