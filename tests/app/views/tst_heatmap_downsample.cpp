// What a pixel of renderHeatmap shows when it covers several elements, checked pixel by pixel
// against a plain scan of the elements it covers, on matrices full of ties, zeros, NaN and
// infinities.

#include "heatmap_image.h"
#include "matrix_data.h"

#include <QTest>

#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <random>

using namespace tp;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// A rows x cols matrix drawn from a few values, so that equal |values| of both signs, zeros,
// NaN and infinities meet under most pixels. `special` is the share of NaN and infinities.
std::shared_ptr<Matrix> tiedMatrix(Index rows, Index cols, unsigned seed, double special) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const std::array<float, 8> finite{0.0f, -0.0f, 0.5f, -0.5f, 1.0f, -1.0f, 2.0f, -2.0f};
    const std::array<float, 3> nonFinite{std::numeric_limits<float>::quiet_NaN(), kInf, -kInf};
    auto m = std::make_shared<Matrix>(rows, cols);
    for (Index i = 0; i < m->size(); ++i) {
        m->data()[i] = unit(rng) < special ? nonFinite[rng() % nonFinite.size()]
                                           : finite[rng() % finite.size()];
    }
    return m;
}

// The value a pixel covering `rows` x `cols` of `m` shows, by a scan of its elements row by row:
// MaxAbs keeps the first element with the largest |value| (a NaN replaces anything, all zeros
// give 0); Mean sums them in that order. One element is shown as it is.
float scannedPixel(const MatrixData& m, IndexRange rows, IndexRange cols, Downsample downsample) {
    if (rows.size() == 1 && cols.size() == 1)
        return m(rows.start, cols.start);
    float acc = 0.0f;
    for (Index r = rows.start; r < rows.stop; ++r) {
        for (Index c = cols.start; c < cols.stop; ++c) {
            const float v = m(r, c);
            if (downsample == Downsample::Mean)
                acc += v;
            else if (std::fabs(v) > std::fabs(acc) || std::isnan(v))
                acc = v;
        }
    }
    return downsample == Downsample::Mean ? acc / float(rows.size() * cols.size()) : acc;
}

}  // namespace

class TestHeatmapDownsample : public QObject {
    Q_OBJECT

private slots:
    void pixelShowsTheScannedValue_data();
    void pixelShowsTheScannedValue();
};

void TestHeatmapDownsample::pixelShowsTheScannedValue_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("meanDownsample");
    QTest::addColumn<bool>("automaticScale");
    QTest::addColumn<bool>("strided");
    QTest::addColumn<double>("special");

    // Wider than one tile of columns (2048), several bands per pixel row, the kernel's ratios.
    QTest::newRow("maxabs 90x5000 to 37x23")
        << 90 << 5000 << QSize(37, 23) << false << false << false << 0.01;
    QTest::newRow("maxabs 64x3000 to 200x9 auto")
        << 64 << 3000 << QSize(200, 9) << false << true << false << 0.0;
    QTest::newRow("maxabs 49x163 to 10x6 strided")
        << 49 << 163 << QSize(10, 6) << false << false << true << 0.02;
    // Taller and wider than the matrix: bands shared by pixel rows, single elements.
    QTest::newRow("maxabs 3x40 to 30x17")
        << 3 << 40 << QSize(30, 17) << false << false << false << 0.05;
    QTest::newRow("maxabs 2x7 to 20x5 auto")
        << 2 << 7 << QSize(20, 5) << false << true << true << 0.1;
    QTest::newRow("maxabs all zero 20x30 to 4x3")
        << 20 << 30 << QSize(4, 3) << false << false << false << -1.0;
    QTest::newRow("mean 50x300 to 13x11")
        << 50 << 300 << QSize(13, 11) << true << false << false << 0.0;
    QTest::newRow("mean 3x40 to 30x17 auto")
        << 3 << 40 << QSize(30, 17) << true << true << true << 0.01;
}

void TestHeatmapDownsample::pixelShowsTheScannedValue() {
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(QSize, size);
    QFETCH(bool, meanDownsample);
    QFETCH(bool, automaticScale);
    QFETCH(bool, strided);
    QFETCH(double, special);

    // A strided view: the matrix is a block inside a wider one.
    auto whole = tiedMatrix(rows + 2, cols + (strided ? 5 : 0), unsigned(rows * 31 + cols),
                            std::max(special, 0.0));
    if (special < 0)
        whole->setZero();
    const MatrixData m = MatrixData::of(whole, *whole).block({1, Index(rows) + 1}, {0, cols});
    QCOMPARE(m.stride(), whole->cols());

    HeatmapStyle style;
    style.downsample = meanDownsample ? Downsample::Mean : Downsample::MaxAbs;
    style.scale = automaticScale ? 0.0f : 1.5f;
    const QImage image = renderHeatmap(m, style, size);
    QCOMPARE(image.size(), size);

    // The scanned value of every pixel, drawn one element per pixel with the same scale.
    auto scanned = std::make_shared<Matrix>(size.height(), size.width());
    for (int y = 0; y < size.height(); ++y) {
        for (int x = 0; x < size.width(); ++x)
            (*scanned)(y, x) =
                scannedPixel(m, elementsOfPixel(y, size.height(), rows),
                             elementsOfPixel(x, size.width(), cols), style.downsample);
    }
    HeatmapStyle single = style;
    single.scale = automaticScale ? maxAbs(m) : style.scale;
    if (!(single.scale > 0.0f))
        single.scale = 1.0f;
    const QImage expected = renderHeatmap(MatrixData::of(scanned, *scanned), single, size);
    for (int y = 0; y < size.height(); ++y) {
        for (int x = 0; x < size.width(); ++x) {
            QVERIFY2(image.pixel(x, y) == expected.pixel(x, y),
                     qPrintable(QStringLiteral("pixel (%1, %2): %3, the scan keeps %4 (%5)")
                                    .arg(x)
                                    .arg(y)
                                    .arg(image.pixel(x, y), 8, 16)
                                    .arg(expected.pixel(x, y), 8, 16)
                                    .arg(double((*scanned)(y, x)))));
        }
    }
}

QTEST_MAIN(TestHeatmapDownsample)
#include "tst_heatmap_downsample.moc"
