// NaN and +-inf in the matrix views: their own colours off every ramp, cells and legend entries
// read from pixels, the automatic scale from the finite values only, and the hover text.

#include "cell_renderer.h"
#include "heatmap_image.h"
#include "heatmap_legend.h"
#include "hover_text.h"
#include "palette.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <memory>

using namespace tp;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// NaN, +inf, -inf, then 0.5 and -0.25: the largest finite |value| is 0.5.
std::shared_ptr<Matrix> edgeRow() {
    auto m = std::make_shared<Matrix>(1, 5);
    *m << kNaN, kInf, -kInf, 0.5f, -0.25f;
    return m;
}

double rgbDistance(QRgb a, QRgb b) {
    return std::hypot(qRed(a) - qRed(b), qGreen(a) - qGreen(b), qBlue(a) - qBlue(b));
}

int pixelsOf(const QImage& image, QRgb argb, QRect rect = {}) {
    if (rect.isNull())
        rect = image.rect();
    int count = 0;
    for (int y = rect.top(); y <= rect.bottom(); ++y)
        for (int x = rect.left(); x <= rect.right(); ++x)
            count += image.pixel(x, y) == argb;
    return count;
}

}  // namespace

class TestNonFinite : public QObject {
    Q_OBJECT

private slots:
    // Every ramp colour of every group (and the neutral map), dimmed or not, stays far from the
    // three non-finite colours, and they from each other.
    void nonFiniteColoursAreOffEveryRamp() {
        const QRgb colours[] = {nonFiniteColor(kNaN), nonFiniteColor(kInf), nonFiniteColor(-kInf)};
        QCOMPARE(colours[0], QRgb(0xFFFF00FF));
        QCOMPARE(colours[1], QRgb(0xFFFFE600));
        QCOMPARE(colours[2], QRgb(0xFF000000));
        for (const QRgb c : colours) {
            double nearest = 1e9;
            QString where;
            for (int group = -1; group < kGroupPaletteSize; ++group)
                for (const bool dimmed : {false, true})
                    for (int step = -255; step <= 255; ++step) {
                        const QRgb ramp = heatmapColor(float(step) / 255.f, 1.f, group, dimmed);
                        if (rgbDistance(ramp, c) < nearest) {
                            nearest = rgbDistance(ramp, c);
                            where = QString("%1 is %2 from group %3 step %4%5")
                                        .arg(c, 0, 16)
                                        .arg(nearest)
                                        .arg(group)
                                        .arg(step)
                                        .arg(dimmed ? " dimmed" : "");
                        }
                    }
            qInfo("%s", qPrintable(where));
            QVERIFY2(nearest > 30, qPrintable(where));
        }
        QVERIFY(rgbDistance(colours[0], colours[1]) > 100);
        QVERIFY(rgbDistance(colours[0], colours[2]) > 100);
        QVERIFY(rgbDistance(colours[1], colours[2]) > 100);
    }

    void kindsAndScaleIgnoreNonFinite() {
        const auto m = edgeRow();
        const MatrixData data = MatrixData::of(m, *m);
        QCOMPARE(maxAbs(data), 0.5f);
        QVERIFY((nonFiniteKinds(data) == NonFiniteKinds{true, true, true}));
        auto onlyInf = std::make_shared<Matrix>(Matrix{{1.f, -kInf, 2.f}});
        QCOMPARE(maxAbs(MatrixData::of(onlyInf, *onlyInf)), 2.f);
        QVERIFY((nonFiniteKinds(MatrixData::of(onlyInf, *onlyInf)) ==
                 NonFiniteKinds{false, false, true}));
        auto finite = std::make_shared<Matrix>(Matrix{{1.f, -3.f}});
        QVERIFY(!nonFiniteKinds(MatrixData::of(finite, *finite)).any());
    }

    // One pixel per element, automatic scale: the non-finite cells take their colours, and 0.5
    // (the largest finite value) is the group colour itself, so the scale still shows the rest.
    void heatmapDrawsEachKindInItsColour() {
        const auto m = edgeRow();
        HeatmapStyle style;
        style.groups = {{0, 5}};
        const QImage image = renderHeatmap(MatrixData::of(m, *m), style, QSize(5, 1));
        QCOMPARE(image.pixel(0, 0), nonFiniteColor(kNaN));
        QCOMPARE(image.pixel(1, 0), nonFiniteColor(kInf));
        QCOMPARE(image.pixel(2, 0), nonFiniteColor(-kInf));
        QCOMPARE(image.pixel(3, 0), groupColor(0).rgb());
        QCOMPARE(image.pixel(4, 0), heatmapColor(-0.25f, 0.5f, 0));
    }

    // Four elements on two pixels: the NaN among them is what MaxAbs shows, and infinities win
    // over finite values.
    void downsampledPixelsKeepNonFinite() {
        auto m = std::make_shared<Matrix>(Matrix{{0.1f, kNaN, 0.2f, -kInf}});
        const QImage image = renderHeatmap(MatrixData::of(m, *m), HeatmapStyle{}, QSize(2, 1));
        QCOMPARE(image.pixel(0, 0), nonFiniteColor(kNaN));
        QCOMPARE(image.pixel(1, 0), nonFiniteColor(-kInf));
    }

    // With numbers shown each non-finite cell keeps its colour and prints its text ("nan", "inf",
    // "-inf") in the contrasting colour: pixels that are neither the fill nor missing.
    void cellsPrintTheirTextOverTheirColour() {
        const auto m = edgeRow();
        const MatrixData data = MatrixData::of(m, *m);
        HeatmapStyle style;
        style.groups = {{0, 5}};
        const QImage plain = renderBlock(data, style, QSize(400, 60), CellDecoration{});
        const QImage numbers = renderBlock(
            data, style, QSize(400, 60),
            CellDecoration{.grid = false, .numbers = true, .font = {}, .numberPixelSize = 0});
        for (int cell = 0; cell < 3; ++cell) {
            const QRect inner(cell * 80 + 4, 4, 72, 52);
            const QRgb fill = nonFiniteColor((*m)(0, cell));
            const int area = inner.width() * inner.height();
            QCOMPARE(pixelsOf(plain, fill, inner), area);
            const int text = area - pixelsOf(numbers, fill, inner);
            QVERIFY2(text > 20, qPrintable(QString("cell %1: %2").arg(cell).arg(text)));
            QVERIFY(pixelsOf(numbers, fill, inner) > area / 2);
        }
    }

    void legendEntriesOnlyForKindsPresent() {
        QCOMPARE(nonFiniteLegendEntries({}).size(), std::size_t(0));
        const auto entries =
            nonFiniteLegendEntries({.nan = true, .plusInf = false, .minusInf = true});
        QCOMPARE(entries.size(), std::size_t(2));
        QCOMPARE(entries[0].first, QString("NaN"));
        QCOMPARE(entries[1].first, QString("-inf"));
        QVERIFY(std::isnan(entries[0].second));
        QCOMPARE(entries[1].second, -kInf);
        const auto all = nonFiniteLegendEntries({true, true, true});
        QCOMPARE(all.size(), std::size_t(3));
        QCOMPARE(all[1].first, QString("+inf"));
    }

    // The legend draws a swatch of each kind present and none of the others, with a caption and
    // without room for one.
    void legendDrawsSwatchesOfKindsPresent_data() {
        QTest::addColumn<int>("height");
        QTest::newRow("with caption") << 60;
        QTest::newRow("without caption") << 34;
    }
    void legendDrawsSwatchesOfKindsPresent() {
        QFETCH(int, height);
        LegendStyle style;
        style.groups = {0, 1};
        const QSize size(420, height);
        const QImage plain = renderLegend(style, size);
        for (const float v : {kNaN, kInf, -kInf})
            QCOMPARE(pixelsOf(plain, nonFiniteColor(v)), 0);
        style.nonFinite = {.nan = true, .plusInf = true, .minusInf = false};
        const QImage marked = renderLegend(style, size);
        QVERIFY(pixelsOf(marked, nonFiniteColor(kNaN)) >= 9);
        QVERIFY(pixelsOf(marked, nonFiniteColor(kInf)) >= 9);
        QCOMPARE(pixelsOf(marked, nonFiniteColor(-kInf)), 0);
    }

    // The legend widget shows the swatches it is given, and is asked for room for them.
    void legendWidgetShowsTheKindsItIsGiven() {
        HeatmapLegend legend;
        legend.resize(420, 60);
        const QSize plainHint = legend.sizeHint();
        QCOMPARE(pixelsOf(legend.grab().toImage(), nonFiniteColor(kNaN)), 0);
        legend.setNonFinite({.nan = true, .plusInf = false, .minusInf = false});
        QVERIFY(legend.sizeHint().width() > plainHint.width());
        const QImage shown = legend.grab().toImage();
        QVERIFY(pixelsOf(shown, nonFiniteColor(kNaN)) >= 9);
        QCOMPARE(pixelsOf(shown, nonFiniteColor(kInf)), 0);
    }

    void hoverTextPrintsNanAndInf() {
        QCOMPARE(hoverText("x", 0, 1, kNaN, -1), QString("x[0, 1] = nan"));
        QCOMPARE(hoverText("kernel", 2, 3, kInf, 1),
                 QString("kernel[2, 3] = inf  \u00b7  group 1"));
        QCOMPARE(hoverText("bias", -1, 4, -kInf, 0), QString("bias[4] = -inf  \u00b7  group 0"));
    }
};

QTEST_MAIN(TestNonFinite)
#include "tst_non_finite.moc"
