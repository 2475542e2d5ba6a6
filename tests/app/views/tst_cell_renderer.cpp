// The cell renderer: pixels of renderBlock and the arithmetic under it.

#include "cell_renderer.h"
#include "palette.h"

#include <QTest>

#include <memory>

using namespace tp;

namespace {

std::shared_ptr<Matrix> filled(Index rows, Index cols, float value) {
    return std::make_shared<Matrix>(Matrix::Constant(rows, cols, value));
}

// Pixels in `rect` of `image` darker than grey 128.
int darkPixels(const QImage& image, QRect rect) {
    int dark = 0;
    for (int y = rect.top(); y <= rect.bottom(); ++y) {
        for (int x = rect.left(); x <= rect.right(); ++x)
            dark += qGray(image.pixel(x, y)) < 128;
    }
    return dark;
}

}  // namespace

class TestCellRenderer : public QObject {
    Q_OBJECT

private slots:
    void firstPixelOf_data();
    void firstPixelOf();
    void firstPixelInvertsElementsOfPixel();
    void styleForBlockShiftsAndClipsGroups();
    void plainBlockIsTheHeatmap();
    void groupBoundaryIsAWhiteGap_data();
    void groupBoundaryIsAWhiteGap();
    void gridLightensCellStarts();
    void numbersArePrintedInContrast();
    void stopYieldsNoImage();
};

void TestCellRenderer::firstPixelOf_data() {
    QTest::addColumn<int>("e");
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("pixels");
    QTest::addColumn<int>("first");
    QTest::newRow("0 of 4 in 10") << 0 << 4 << 10 << 0;
    QTest::newRow("1 of 4 in 10") << 1 << 4 << 10 << 3;  // ceil(2.5)
    QTest::newRow("2 of 4 in 10") << 2 << 4 << 10 << 5;
    QTest::newRow("4 of 4 in 10 (the end)") << 4 << 4 << 10 << 10;
    QTest::newRow("1 of 3 in 3") << 1 << 3 << 3 << 1;
    QTest::newRow("5 of 1000 in 100") << 5 << 1000 << 100 << 1;  // ceil(0.5)
}

void TestCellRenderer::firstPixelOf() {
    QFETCH(int, e);
    QFETCH(int, count);
    QFETCH(int, pixels);
    QFETCH(int, first);
    QCOMPARE(tp::firstPixelOf(e, count, pixels), first);
}

void TestCellRenderer::firstPixelInvertsElementsOfPixel() {
    // With at least a pixel per element, the first pixel of e is the first that shows e.
    for (const auto& [count, pixels] : {std::pair{4, 10}, {3, 3}, {7, 100}, {12, 37}}) {
        for (Index e = 0; e < count; ++e) {
            const int p = tp::firstPixelOf(e, count, pixels);
            QCOMPARE(elementsOfPixel(p, pixels, count).start, e);
            if (p > 0)
                QCOMPARE(elementsOfPixel(p - 1, pixels, count).start, e - 1);
        }
    }
}

void TestCellRenderer::styleForBlockShiftsAndClipsGroups() {
    HeatmapStyle style;
    style.groups = {{0, 4}, {4, 8}, {8, 12}};
    style.groupAxis = Qt::Horizontal;
    style.highlightedGroup = 1;
    // Columns [3, 9) of the matrix.
    const HeatmapStyle block = styleForBlock(style, 2, 3, 5, 6);
    QCOMPARE(block.groups, (std::vector<IndexRange>{{0, 1}, {1, 5}, {5, 6}}));
    QCOMPARE(block.groupIds, (std::vector<int>{0, 1, 2}));
    QCOMPARE(block.highlightedGroup, 1);
    // Row groups shift by the row offset; given ids are kept.
    style.groupAxis = Qt::Vertical;
    style.groupIds = {7, 8, 9};
    const HeatmapStyle rows = styleForBlock(style, 6, 0, 10, 3);
    QCOMPARE(rows.groups, (std::vector<IndexRange>{{0, 0}, {0, 2}, {2, 6}}));
    QCOMPARE(rows.groupIds, (std::vector<int>{7, 8, 9}));
}

void TestCellRenderer::plainBlockIsTheHeatmap() {
    auto m = std::make_shared<Matrix>(Matrix::Random(6, 9));
    const MatrixData data = MatrixData::of(m, *m);
    HeatmapStyle style;
    style.groups = {{0, 9}};
    const QImage heatmap = renderHeatmap(data, style, QSize(90, 60));
    const QImage block = renderBlock(data, style, QSize(90, 60), CellDecoration{});
    QCOMPARE(block.size(), QSize(90, 60));
    QCOMPARE(block.convertToFormat(heatmap.format()), heatmap);
}

void TestCellRenderer::groupBoundaryIsAWhiteGap_data() {
    QTest::addColumn<double>("dpr");
    QTest::addColumn<int>("gap");
    QTest::newRow("dpr 1: 2 px") << 1.0 << 2;
    QTest::newRow("dpr 2: 4 px") << 2.0 << 4;
}

void TestCellRenderer::groupBoundaryIsAWhiteGap() {
    QFETCH(double, dpr);
    QFETCH(int, gap);
    const auto m = filled(2, 4, 1.0f);
    HeatmapStyle style;
    style.groups = {{0, 2}, {2, 4}};
    style.devicePixelRatio = dpr;
    const QImage image =
        renderBlock(MatrixData::of(m, *m), style, QSize(40 * int(dpr), 20), CellDecoration{});
    QCOMPARE(image.devicePixelRatio(), dpr);
    const int boundary = 20 * int(dpr);  // firstPixelOf(2, 4, 40 dpr)
    for (int x = boundary - gap / 2; x < boundary - gap / 2 + gap; ++x)
        QCOMPARE(image.pixel(x, 10), qRgb(255, 255, 255));
    QCOMPARE(image.pixel(boundary - gap / 2 - 1, 10), groupColor(0).rgb());
    QCOMPARE(image.pixel(boundary - gap / 2 + gap, 10), groupColor(1).rgb());
}

void TestCellRenderer::gridLightensCellStarts() {
    const auto m = filled(2, 4, 1.0f);
    const MatrixData data = MatrixData::of(m, *m);
    HeatmapStyle style;
    style.groups = {{0, 4}};
    const QImage plain = renderBlock(data, style, QSize(40, 20), CellDecoration{});
    const QImage grid = renderBlock(
        data, style, QSize(40, 20),
        CellDecoration{.grid = true, .numbers = false, .font = {}, .numberPixelSize = 0});
    QCOMPARE(grid.pixel(5, 5), plain.pixel(5, 5));  // inside a cell: unchanged
    for (const QPoint line : {QPoint(10, 5), QPoint(20, 5), QPoint(30, 5), QPoint(5, 10)}) {
        QVERIFY(qGray(grid.pixel(line)) > qGray(plain.pixel(line)) + 40);
        QVERIFY(grid.pixel(line) != qRgb(255, 255, 255));  // a light line, not a gap
    }
}

void TestCellRenderer::numbersArePrintedInContrast() {
    // Zero (white) cells get dark digits; -1 (the dark negative shade) gets white digits.
    auto m = std::make_shared<Matrix>(1, 2);
    *m << 0.0f, -1.0f;
    const MatrixData data = MatrixData::of(m, *m);
    HeatmapStyle style;
    style.groups = {{0, 2}};
    style.scale = 1.0f;
    const QImage plain = renderBlock(data, style, QSize(160, 80), CellDecoration{});
    const QImage numbers = renderBlock(
        data, style, QSize(160, 80),
        CellDecoration{.grid = false, .numbers = true, .font = {}, .numberPixelSize = 0});
    const QRect zeroCell(4, 4, 72, 72);
    const QRect negativeCell(84, 4, 72, 72);
    QCOMPARE(darkPixels(plain, zeroCell), 0);
    QVERIFY(darkPixels(numbers, zeroCell) > 10);
    const QRgb shade = negativeShade(groupColor(0)).rgb();
    QCOMPARE(plain.pixel(negativeCell.center()), shade);
    int light = 0;
    for (int y = negativeCell.top(); y <= negativeCell.bottom(); ++y) {
        for (int x = negativeCell.left(); x <= negativeCell.right(); ++x)
            light += qGray(numbers.pixel(x, y)) > qGray(shade) + 80;
    }
    QVERIFY2(light > 10, qPrintable(QString::number(light)));
}

void TestCellRenderer::stopYieldsNoImage() {
    const auto m = filled(64, 64, 0.5f);
    std::atomic_bool stop = true;
    QVERIFY(
        renderBlock(MatrixData::of(m, *m), HeatmapStyle{}, QSize(64, 64), CellDecoration{}, &stop)
            .isNull());
    stop = false;
    QVERIFY(
        !renderBlock(MatrixData::of(m, *m), HeatmapStyle{}, QSize(64, 64), CellDecoration{}, &stop)
             .isNull());
}

QTEST_MAIN(TestCellRenderer)
#include "tst_cell_renderer.moc"
