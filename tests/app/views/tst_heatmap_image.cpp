// Pixels of renderHeatmap and renderLegend, the palette, and MatrixData views.

#include "heatmap_image.h"
#include "matrix_data.h"
#include "palette.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <memory>
#include <random>

using namespace tp;

namespace {

// Hue distance in degrees on the colour circle.
double hueDistance(double a, double b) {
    const double d = std::fmod(std::abs(a - b), 360.0);
    return std::min(d, 360.0 - d);
}

// CIELAB of an sRGB colour (D65).
std::array<double, 3> lab(const QColor& c) {
    const auto linear = [](double v) {
        return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    const double r = linear(c.redF()), g = linear(c.greenF()), b = linear(c.blueF());
    const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    const double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    const auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

// OKLab lightness, chroma and hue angle (degrees) of palette.h's toOkLab: the space the ramps are
// mixed in, where mixing with white or darkening keeps the hue angle.
struct OkLch {
    double l, c, h;
};

OkLch oklch(const QColor& color) {
    const OkLab lab = toOkLab(color);
    return {lab.l, std::hypot(lab.a, lab.b), std::atan2(lab.b, lab.a) * 180.0 / M_PI};
}

// Hue angle distance between two colours, in degrees.
double hueError(const QColor& a, const QColor& b) {
    return hueDistance(oklch(a).h, oklch(b).h);
}

double deltaE(const QColor& a, const QColor& b) {
    const auto la = lab(a), lb = lab(b);
    return std::hypot(la[0] - lb[0], la[1] - lb[1], la[2] - lb[2]);
}

// The pixel at the centre of element (row, col) when `m` fills `image`.
QColor pixelOf(const QImage& image, const Matrix& m, Index row, Index col) {
    const int x = int((double(col) + 0.5) * image.width() / double(m.cols()));
    const int y = int((double(row) + 0.5) * image.height() / double(m.rows()));
    return image.pixelColor(x, y);
}

std::shared_ptr<Matrix> filled(Index rows, Index cols, float value) {
    return std::make_shared<Matrix>(Matrix::Constant(rows, cols, value));
}

std::vector<IndexRange> equalGroups(Index extent, Index count) {
    std::vector<IndexRange> groups;
    const Index chunk = extent / count;
    for (Index i = 0; i < count; ++i)
        groups.push_back({i * chunk, (i + 1) * chunk});
    return groups;
}

}  // namespace

class TestHeatmapImage : public QObject {
    Q_OBJECT

private slots:
    void paletteIsDistinct();
    void paletteHatchesPastSixteen();
    void okLabMatchesPublishedValues();
    void fromOkLabInvertsToOkLab();
    void fromOkLabKeepsHueWhenClipping();

    void groupColumnsCarryGroupHue_data();
    void groupColumnsCarryGroupHue();
    void signIsDiverging_data();
    void signIsDiverging();
    void magnitudeIsMonotonic();
    void highlightDimsOtherGroups();
    void rowGroupsFollowRows();
    void groupIdsPickColours();
    void ungroupedElementsAreNeutral();
    void downsamplingKeepsGroupBands_data();
    void downsamplingKeepsGroupBands();
    void downsampleMeanAverages();
    void automaticScaleIsMaxAbs();
    void hatchedGroupDiffersFromItsPaletteTwin();
    void nanHasItsOwnColour();
    void emptyGivesNullImage();
    void stopGivesNullImage();
    void imageCarriesDevicePixelRatio();

    void pixelsPartitionElements_data();
    void pixelsPartitionElements();
    void groupAtFindsGroup();
    void maxAbsOfStridedView();
    void matrixDataViewsWithoutCopy();
    void legendShowsRampEnds();
};

void TestHeatmapImage::paletteIsDistinct() {
    for (int i = 0; i < kGroupPaletteSize; ++i) {
        QVERIFY2(groupColor(i).hsvSaturationF() > 0.3, qPrintable(groupColor(i).name()));
        for (int j = i + 1; j < kGroupPaletteSize; ++j) {
            const double d = deltaE(groupColor(i), groupColor(j));
            QVERIFY2(d > 15.0, qPrintable(QStringLiteral("groups %1 %2 (%3, %4): deltaE %5")
                                              .arg(i)
                                              .arg(j)
                                              .arg(groupColor(i).name(), groupColor(j).name())
                                              .arg(d)));
        }
        // Light colours leave no room for a white-to-colour magnitude ramp.
        QVERIFY2(lab(groupColor(i))[0] < 75, qPrintable(groupColor(i).name()));
    }
}

void TestHeatmapImage::paletteHatchesPastSixteen() {
    QVERIFY(!groupHatched(0));
    QVERIFY(!groupHatched(15));
    QVERIFY(groupHatched(16));
    QCOMPARE(groupColor(16), groupColor(0));
    QCOMPARE(groupHatchStyle(16), 1);
    QCOMPARE(groupHatchStyle(33), 2);
    QCOMPARE(groupHatchStyle(50), 3);
    QVERIFY(groupHatchStyle(16) != groupHatchStyle(32));
}

void TestHeatmapImage::groupColumnsCarryGroupHue_data() {
    QTest::addColumn<int>("features");
    QTest::addColumn<int>("tpSize");
    QTest::addColumn<float>("value");
    QTest::newRow("12 features tp2 positive") << 12 << 2 << 1.0f;
    QTest::newRow("12 features tp3 positive") << 12 << 3 << 0.7f;
    QTest::newRow("16 features tp8 negative") << 16 << 8 << -1.0f;
    QTest::newRow("16 features tp16 half") << 16 << 16 << 0.5f;
    QTest::newRow("16 features tp16 negative half") << 16 << 16 << -0.5f;
}

void TestHeatmapImage::groupColumnsCarryGroupHue() {
    QFETCH(int, features);
    QFETCH(int, tpSize);
    QFETCH(float, value);
    const auto m = filled(4, features, value);
    HeatmapStyle style;
    style.groups = equalGroups(features, tpSize);
    style.scale = 1.0f;
    const QImage image = renderHeatmap(MatrixData::of(m, *m), style, QSize(features * 10, 40));
    QCOMPARE(image.size(), QSize(features * 10, 40));
    for (int c = 0; c < features; ++c) {
        const int group = c / (features / tpSize);
        const QColor pixel = pixelOf(image, *m, 1, c);
        QVERIFY2(hueError(pixel, groupColor(group)) < 4.0,
                 qPrintable(QStringLiteral("column %1 group %2: %3 vs %4")
                                .arg(c)
                                .arg(group)
                                .arg(pixel.name(), groupColor(group).name())));
    }
}

void TestHeatmapImage::signIsDiverging_data() {
    QTest::addColumn<int>("group");
    QTest::newRow("neutral") << -1;
    QTest::newRow("group 0 blue") << 0;
    QTest::newRow("group 1 orange") << 1;
    QTest::newRow("group 5 sky blue") << 5;
    QTest::newRow("group 11 indigo") << 11;
}

void TestHeatmapImage::signIsDiverging() {
    QFETCH(int, group);
    auto m = std::make_shared<Matrix>(1, 3);
    *m << 2.0f, 0.0f, -2.0f;
    HeatmapStyle style;
    if (group >= 0) {
        style.groups = {{0, 3}};
        style.groupIds = {group};
    }
    const QImage image = renderHeatmap(MatrixData::of(m, *m), style, QSize(30, 10));
    const QColor positive = pixelOf(image, *m, 0, 0);
    const QColor zero = pixelOf(image, *m, 0, 1);
    const QColor negative = pixelOf(image, *m, 0, 2);
    // Zero is white; full positive is the group colour itself; negative is a darker shade.
    QVERIFY2(zero.red() >= 250 && zero.green() >= 250 && zero.blue() >= 250,
             qPrintable(zero.name()));
    QCOMPARE(positive, groupColor(group));
    QCOMPARE(negative.rgb(), groupRampColor(group, -1.0f).rgb());
    QVERIFY2(deltaE(positive, negative) > 20.0,
             qPrintable(positive.name() + " vs " + negative.name()));
    // One story in every map, the neutral one too: negative is the same hue, darker.
    QVERIFY(lab(negative)[0] < lab(positive)[0] - 10);
    QVERIFY(hueError(negative, positive) < 4.0);
}

void TestHeatmapImage::magnitudeIsMonotonic() {
    auto m = std::make_shared<Matrix>(1, 9);
    *m << -1.0f, -0.75f, -0.5f, -0.25f, 0.0f, 0.25f, 0.5f, 0.75f, 1.0f;
    HeatmapStyle style;
    style.groups = {{0, 9}};
    const QImage image = renderHeatmap(MatrixData::of(m, *m), style, QSize(90, 4));
    // Lightness falls from zero towards both ends.
    for (int c = 0; c < 4; ++c)
        QVERIFY(lab(pixelOf(image, *m, 0, c))[0] < lab(pixelOf(image, *m, 0, c + 1))[0]);
    for (int c = 4; c < 8; ++c)
        QVERIFY(lab(pixelOf(image, *m, 0, c))[0] > lab(pixelOf(image, *m, 0, c + 1))[0]);
}

void TestHeatmapImage::highlightDimsOtherGroups() {
    const auto m = filled(2, 4, 1.0f);
    HeatmapStyle style;
    style.groups = equalGroups(4, 2);
    const QImage plain = renderHeatmap(MatrixData::of(m, *m), style, QSize(40, 20));
    style.highlightedGroup = 1;
    const QImage highlighted = renderHeatmap(MatrixData::of(m, *m), style, QSize(40, 20));
    const QColor dimmed = pixelOf(highlighted, *m, 0, 0);
    const QColor shown = pixelOf(highlighted, *m, 0, 3);
    QCOMPARE(shown, pixelOf(plain, *m, 0, 3));
    QVERIFY(dimmed.hsvSaturationF() < 0.5 * pixelOf(plain, *m, 0, 0).hsvSaturationF());
    QVERIFY(lab(dimmed)[0] > lab(pixelOf(plain, *m, 0, 0))[0] + 10);
}

void TestHeatmapImage::rowGroupsFollowRows() {
    const auto m = filled(4, 3, 1.0f);
    HeatmapStyle style;
    style.groups = equalGroups(4, 2);
    style.groupAxis = Qt::Vertical;
    const QImage image = renderHeatmap(MatrixData::of(m, *m), style, QSize(30, 40));
    for (Index r = 0; r < 4; ++r) {
        for (Index c = 0; c < 3; ++c)
            QCOMPARE(pixelOf(image, *m, r, c), groupColor(int(r / 2)));
    }
}

void TestHeatmapImage::groupIdsPickColours() {
    const auto m = filled(1, 4, 1.0f);
    HeatmapStyle style;
    style.groups = {{0, 4}};
    style.groupIds = {2};
    const QImage image = renderHeatmap(MatrixData::of(m, *m), style, QSize(4, 1));
    QCOMPARE(image.pixelColor(0, 0), groupColor(2));
    QCOMPARE(image.pixelColor(3, 0), groupColor(2));
}

void TestHeatmapImage::ungroupedElementsAreNeutral() {
    const auto m = filled(2, 6, 1.0f);
    HeatmapStyle style;
    style.groups = {{0, 2}};  // columns 2..5 in no group, like a running concatenation
    const QImage image = renderHeatmap(MatrixData::of(m, *m), style, QSize(60, 20));
    QCOMPARE(pixelOf(image, *m, 0, 1), groupColor(0));
    QCOMPARE(pixelOf(image, *m, 0, 4), neutralColor());
}

void TestHeatmapImage::downsamplingKeepsGroupBands_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("tpSize");
    QTest::addColumn<QSize>("size");
    QTest::newRow("512x4096 tp8 to 400x100") << 512 << 4096 << 8 << QSize(400, 100);
    QTest::newRow("300x1000 tp4 to 333x77 (uneven)") << 300 << 1000 << 4 << QSize(333, 77);
    QTest::newRow("64x4096 tp16 to 160x64") << 64 << 4096 << 16 << QSize(160, 64);
}

void TestHeatmapImage::downsamplingKeepsGroupBands() {
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(int, tpSize);
    QFETCH(QSize, size);
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 0.05f);
    auto m = std::make_shared<Matrix>(rows, cols);
    for (Index i = 0; i < m->size(); ++i)
        m->data()[i] = normal(rng);
    HeatmapStyle style;
    style.groups = equalGroups(cols, tpSize);
    const QImage image = renderHeatmap(MatrixData::of(m, *m), style, size);
    QCOMPARE(image.size(), size);
    const int chunk = cols / tpSize;
    int checked = 0;
    int coloured = 0;
    for (int x = 0; x < size.width(); ++x) {
        const IndexRange elements = elementsOfPixel(x, size.width(), cols);
        const int group = int(elements.start / chunk);
        if (elements.stop - 1 >= (group + 1) * chunk)
            continue;  // a pixel straddling a boundary
        for (int y = 0; y < size.height(); ++y) {
            const QColor pixel = image.pixelColor(x, y);
            ++checked;
            if (oklch(pixel).c < 0.03)
                continue;  // too pale for a hue
            ++coloured;
            QVERIFY2(hueError(pixel, groupColor(group)) < 4.0,
                     qPrintable(QStringLiteral("pixel (%1, %2) %3, group %4 %5")
                                    .arg(x)
                                    .arg(y)
                                    .arg(pixel.name())
                                    .arg(group)
                                    .arg(groupColor(group).name())));
        }
    }
    QVERIFY(checked > size.width() * size.height() * 3 / 4);
    // Max-|v| downsampling keeps nearly every pixel coloured (a mean would fade to white).
    QVERIFY2(coloured > checked * 9 / 10,
             qPrintable(QStringLiteral("%1 of %2").arg(coloured).arg(checked)));
}

void TestHeatmapImage::downsampleMeanAverages() {
    auto m = std::make_shared<Matrix>(2, 4);
    *m << 1.0f, -1.0f, 1.0f, 1.0f,  //
        1.0f, -1.0f, 1.0f, 1.0f;
    HeatmapStyle style;
    style.scale = 1.0f;
    style.downsample = Downsample::Mean;
    const QImage mean = renderHeatmap(MatrixData::of(m, *m), style, QSize(2, 1));
    QCOMPARE(mean.pixel(0, 0), heatmapColor(0.0f, 1.0f, -1));
    QCOMPARE(mean.pixel(1, 0), heatmapColor(1.0f, 1.0f, -1));
    style.downsample = Downsample::MaxAbs;
    const QImage peak = renderHeatmap(MatrixData::of(m, *m), style, QSize(2, 1));
    QCOMPARE(peak.pixel(0, 0), heatmapColor(1.0f, 1.0f, -1));  // first of equal |v| wins
}

void TestHeatmapImage::automaticScaleIsMaxAbs() {
    auto m = std::make_shared<Matrix>(1, 2);
    *m << 1.0f, -4.0f;
    HeatmapStyle style;
    const QImage automatic = renderHeatmap(MatrixData::of(m, *m), style, QSize(2, 1));
    QCOMPARE(automatic.pixel(0, 0), heatmapColor(1.0f, 4.0f, -1));
    QCOMPARE(automatic.pixel(1, 0), heatmapColor(-4.0f, 4.0f, -1));
    style.scale = 2.0f;
    const QImage fixed = renderHeatmap(MatrixData::of(m, *m), style, QSize(2, 1));
    QCOMPARE(fixed.pixel(0, 0), heatmapColor(1.0f, 2.0f, -1));
    QCOMPARE(fixed.pixel(1, 0), heatmapColor(-2.0f, 2.0f, -1));  // clamped
}

void TestHeatmapImage::hatchedGroupDiffersFromItsPaletteTwin() {
    const auto m = filled(8, 8, 1.0f);
    HeatmapStyle style;
    style.groups = {{0, 8}};
    style.groupIds = {0};
    const QImage plain = renderHeatmap(MatrixData::of(m, *m), style, QSize(64, 64));
    style.groupIds = {16};
    const QImage hatched = renderHeatmap(MatrixData::of(m, *m), style, QSize(64, 64));
    int differing = 0;
    for (int y = 0; y < 64; ++y) {
        for (int x = 0; x < 64; ++x)
            differing += plain.pixel(x, y) != hatched.pixel(x, y);
    }
    QVERIFY2(differing > 64 * 64 / 8 && differing < 64 * 64 / 2,
             qPrintable(QString::number(differing)));
}

// NaN is drawn in its fixed colour (tst_non_finite tests every kind and their distance from the
// ramps); the finite value next to it keeps the ramp.
void TestHeatmapImage::nanHasItsOwnColour() {
    auto m = std::make_shared<Matrix>(1, 2);
    *m << std::nanf(""), 1.0f;
    const QImage image = renderHeatmap(MatrixData::of(m, *m), HeatmapStyle{}, QSize(2, 1));
    QCOMPARE(image.pixel(0, 0), nonFiniteColor(std::nanf("")));
    QCOMPARE(image.pixel(1, 0), neutralColor().rgb());
    // Where NaN means "not there yet" (a device's buffer), it takes the style's colour instead;
    // infinities keep theirs.
    *m << std::nanf(""), std::numeric_limits<float>::infinity();
    HeatmapStyle absent;
    absent.absentColour = qRgb(0x9e, 0x9e, 0x9e);
    const QImage buffer = renderHeatmap(MatrixData::of(m, *m), absent, QSize(2, 1));
    QCOMPARE(buffer.pixel(0, 0), qRgb(0x9e, 0x9e, 0x9e));
    QCOMPARE(buffer.pixel(1, 0), nonFiniteColor(std::numeric_limits<float>::infinity()));
}

void TestHeatmapImage::emptyGivesNullImage() {
    const auto m = filled(2, 2, 1.0f);
    QVERIFY(renderHeatmap(MatrixData{}, HeatmapStyle{}, QSize(10, 10)).isNull());
    QVERIFY(renderHeatmap(MatrixData::of(m, *m), HeatmapStyle{}, QSize(0, 10)).isNull());
}

void TestHeatmapImage::imageCarriesDevicePixelRatio() {
    const auto m = filled(2, 2, 1.0f);
    HeatmapStyle style;
    style.devicePixelRatio = 2.0;
    const QImage image = renderHeatmap(MatrixData::of(m, *m), style, QSize(40, 40));
    QCOMPARE(image.size(), QSize(40, 40));
    QCOMPARE(image.devicePixelRatio(), 2.0);
}

void TestHeatmapImage::pixelsPartitionElements_data() {
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("pixels");
    QTest::newRow("16384 into 1600") << 16384 << 1600;
    QTest::newRow("1000 into 333") << 1000 << 333;
    QTest::newRow("7 into 7") << 7 << 7;
    QTest::newRow("3 into 10 (upsampling)") << 3 << 10;
}

void TestHeatmapImage::pixelsPartitionElements() {
    QFETCH(int, count);
    QFETCH(int, pixels);
    Index next = 0;
    for (int p = 0; p < pixels; ++p) {
        const IndexRange r = elementsOfPixel(p, pixels, count);
        QVERIFY(r.size() >= 1);
        if (count >= pixels) {
            QCOMPARE(r.start, next);  // downsampling: every element in exactly one pixel
            next = r.stop;
        } else {
            QVERIFY(r.start == next || r.start == next - 1);
            next = r.stop;
        }
    }
    QCOMPARE(next, Index(count));
}

void TestHeatmapImage::groupAtFindsGroup() {
    HeatmapStyle style;
    style.groups = equalGroups(12, 3);
    QCOMPARE(groupAt(style, 5, 0), 0);
    QCOMPARE(groupAt(style, 0, 4), 1);
    QCOMPARE(groupAt(style, 0, 11), 2);
    QCOMPARE(groupAt(style, 0, 12), -1);
    style.groupAxis = Qt::Vertical;
    QCOMPARE(groupAt(style, 5, 0), 1);
    style.groupIds = {7, 8, 9};
    QCOMPARE(groupAt(style, 9, 0), 9);
}

void TestHeatmapImage::maxAbsOfStridedView() {
    auto m = std::make_shared<Matrix>(3, 4);
    *m << 1, -9, 2, 3,  //
        4, 5, -6, 0,    //
        7, 1, 1, -8;
    const MatrixData all = MatrixData::of(m, *m);
    QCOMPARE(maxAbs(all), 9.0f);
    QCOMPARE(maxAbs(all.block({1, 3}, {2, 4})), 8.0f);
    QCOMPARE(maxAbs(MatrixData::of(m, m->middleCols(2, 2))), 8.0f);
    QCOMPARE(maxAbs(MatrixData{}), 0.0f);
}

void TestHeatmapImage::matrixDataViewsWithoutCopy() {
    auto m = std::make_shared<Matrix>(Matrix::Zero(4, 6));
    (*m)(2, 3) = 5.0f;
    const MatrixData all = MatrixData::of(m, *m);
    QCOMPARE(all.data(), m->data());
    QCOMPARE(all.stride(), Index(6));
    QCOMPARE(all(2, 3), 5.0f);
    const MatrixData cols = MatrixData::of(m, m->middleCols(3, 2));
    QCOMPARE(cols.data(), m->data() + 3);
    QCOMPARE(cols.cols(), Index(2));
    QCOMPARE(cols.stride(), Index(6));
    QCOMPARE(cols(2, 0), 5.0f);
    const MatrixData block = all.block({2, 4}, {1, 5});
    QCOMPARE(block(0, 2), 5.0f);
    QCOMPARE(block.map()(0, 2), 5.0f);
    QVERIFY(block.owner() == all.owner());
    auto bias = std::make_shared<RowVector>(RowVector::LinSpaced(4, 0.0f, 3.0f));
    const MatrixData row = MatrixData::ofRow(bias, *bias);
    QCOMPARE(row.rows(), Index(1));
    QCOMPARE(row.cols(), Index(4));
    QCOMPARE(row(0, 3), 3.0f);
    // The owner keeps the memory alive after the caller drops its handle.
    std::weak_ptr<Matrix> watch = m;
    m.reset();
    QVERIFY(!watch.expired());
    QCOMPARE(all(2, 3), 5.0f);
}

void TestHeatmapImage::legendShowsRampEnds() {
    LegendStyle style;
    style.scale = 0.5f;
    style.groups = {0};
    const QImage legend = renderLegend(style, QSize(300, 60));
    QCOMPARE(legend.size(), QSize(300, 60));
    // Find the ramp row: the first row whose middle pixel is opaque.
    int y = 0;
    while (y < legend.height() && qAlpha(legend.pixel(150, y)) < 255)
        ++y;
    QVERIFY(y < legend.height());
    y += 3;
    int left = 0;
    while (qAlpha(legend.pixel(left, y)) < 255)
        ++left;
    int right = legend.width() - 1;
    while (qAlpha(legend.pixel(right, y)) < 255)
        --right;
    const QColor low = legend.pixelColor(left + 3, y);
    const QColor high = legend.pixelColor(right - 3, y);
    const QColor middle = legend.pixelColor((left + right) / 2, y);
    QVERIFY2(deltaE(low, negativeShade(groupColor(0))) < 8, qPrintable(low.name()));
    QVERIFY2(deltaE(high, groupColor(0)) < 8, qPrintable(high.name()));
    QVERIFY2(middle.lightnessF() > 0.9f, qPrintable(middle.name()));
}

// Ottosson's published OKLab of white and the sRGB primaries.
void TestHeatmapImage::okLabMatchesPublishedValues() {
    const struct {
        QColor color;
        OkLab lab;
    } known[] = {{Qt::white, {1.0, 0.0, 0.0}},
                 {QColor(255, 0, 0), {0.627955, 0.224863, 0.125846}},
                 {QColor(0, 255, 0), {0.866440, -0.233888, 0.179498}},
                 {QColor(0, 0, 255), {0.452014, -0.032457, -0.311528}}};
    for (const auto& [color, lab] : known) {
        const OkLab got = toOkLab(color);
        QVERIFY2(
            std::abs(got.l - lab.l) < 1e-4 && std::abs(got.a - lab.a) < 1e-4 &&
                std::abs(got.b - lab.b) < 1e-4,
            qPrintable(
                QStringLiteral("%1: %2 %3 %4").arg(color.name()).arg(got.l).arg(got.a).arg(got.b)));
    }
}

void TestHeatmapImage::fromOkLabInvertsToOkLab() {
    for (int g = 0; g < kGroupPaletteSize; ++g) {
        for (const QColor& color : {groupColor(g), negativeShade(groupColor(g))}) {
            const QColor back = fromOkLab(toOkLab(color));
            QVERIFY2(std::abs(back.red() - color.red()) <= 1 &&
                         std::abs(back.green() - color.green()) <= 1 &&
                         std::abs(back.blue() - color.blue()) <= 1,
                     qPrintable(color.name() + " -> " + back.name()));
        }
    }
}

void TestHeatmapImage::fromOkLabKeepsHueWhenClipping() {
    // Chroma 0.4 at lightness 0.5 is far outside sRGB: the colour keeps lightness and hue.
    const OkLab wanted{0.5, 0.4 * std::cos(0.5), 0.4 * std::sin(0.5)};
    const OkLab got = toOkLab(fromOkLab(wanted));
    QVERIFY(std::abs(got.l - wanted.l) < 0.01);
    QVERIFY(std::hypot(got.a, got.b) < 0.3);
    QVERIFY(hueDistance(std::atan2(got.b, got.a) * 180 / M_PI, 0.5 * 180 / M_PI) < 2.0);
}

void TestHeatmapImage::stopGivesNullImage() {
    const auto m = filled(64, 64, 0.5f);
    std::atomic_bool stop = true;
    QVERIFY(renderHeatmap(MatrixData::of(m, *m), HeatmapStyle{}, QSize(32, 32), &stop).isNull());
    stop = false;
    QCOMPARE(renderHeatmap(MatrixData::of(m, *m), HeatmapStyle{}, QSize(32, 32), &stop),
             renderHeatmap(MatrixData::of(m, *m), HeatmapStyle{}, QSize(32, 32)));
}

QTEST_MAIN(TestHeatmapImage)
#include "tst_heatmap_image.moc"
