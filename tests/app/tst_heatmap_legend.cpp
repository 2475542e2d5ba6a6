// The heatmap legend widget through its public API: its settings, the ramps it draws (white at
// zero, dark to vivid per group, at most four), the scale in the ticks, and its size hints.

#include "heatmap_legend.h"

#include <QFontMetrics>
#include <QImage>
#include <QTest>

using namespace tp;

namespace {

// A legend at the height it asks for, so the caption is drawn, and wide enough that its bar has
// its full width whatever the tick labels.
struct Legend {
    HeatmapLegend widget;
    explicit Legend(std::vector<int> groups, float scale = 1.0f) {
        widget.setGroups(std::move(groups));
        widget.setScale(scale);
        widget.resize(600, widget.sizeHint().height());
    }
    QImage image() { return widget.grab().toImage(); }
};

QImage render(std::vector<int> groups, float scale = 1.0f) {
    return Legend(std::move(groups), scale).image();
}

// The bar's inner ends and centre on row y: the first and last pixels that differ from the
// background at the left edge, 3 pixels in (clear of the frame), and the middle between them.
struct RampSamples {
    QColor negative;
    QColor zero;
    QColor positive;
    int width = 0;  ///< pixels from the first to the last bar pixel
};

RampSamples sampleRamp(const QImage& image, int y) {
    const QRgb background = image.pixel(0, y);
    int left = -1, right = -1;
    for (int x = 0; x < image.width(); ++x) {
        if (image.pixel(x, y) == background)
            continue;
        if (left < 0)
            left = x;
        right = x;
    }
    if (left < 0)
        return {};
    return {QColor(image.pixel(left + 3, y)), QColor(image.pixel((left + right) / 2, y)),
            QColor(image.pixel(right - 3, y)), right - left + 1};
}

int hueDistance(const QColor& a, const QColor& b) {
    const int d = std::abs(a.hsvHue() - b.hsvHue());
    return std::min(d, 360 - d);
}

QString describe(const QColor& c) {
    return QString("%1 (hue %2, saturation %3, value %4)")
        .arg(c.name())
        .arg(c.hsvHue())
        .arg(c.hsvSaturation())
        .arg(c.value());
}

}  // namespace

class TestHeatmapLegend : public QObject {
    Q_OBJECT

private slots:
    void settingsReadBack() {
        HeatmapLegend legend;
        QCOMPARE(legend.scale(), 1.0f);
        QVERIFY(legend.groups().empty());
        legend.setScale(0.25f);
        legend.setGroups({2, 0});
        QCOMPARE(legend.scale(), 0.25f);
        QCOMPARE(legend.groups(), (std::vector<int>{2, 0}));
    }

    // One group's ramp: dark at -scale, white at 0, the group's vivid colour at +scale.
    void aGroupRampGoesFromDarkThroughWhiteToVivid() {
        Legend legend({0});
        const RampSamples ramp = sampleRamp(legend.image(), 6);
        QVERIFY2(ramp.width > 100, qPrintable(QString::number(ramp.width)));
        QVERIFY2(ramp.zero.red() > 235 && ramp.zero.green() > 235 && ramp.zero.blue() > 235,
                 qPrintable(describe(ramp.zero)));
        QVERIFY2(ramp.positive.hsvSaturation() > 100, qPrintable(describe(ramp.positive)));
        QVERIFY2(ramp.negative.value() + 40 < ramp.positive.value(),
                 qPrintable(describe(ramp.negative) + " vs " + describe(ramp.positive)));
        QVERIFY2(hueDistance(ramp.negative, ramp.positive) < 30,
                 qPrintable(describe(ramp.negative) + " vs " + describe(ramp.positive)));
    }

    // Each group has its own hue; with no group the legend shows the neutral map instead.
    void groupsHaveTheirOwnColours() {
        const QColor zero = sampleRamp(render({0}), 6).positive;
        const QColor one = sampleRamp(render({1}), 6).positive;
        QVERIFY2(hueDistance(zero, one) > 20, qPrintable(describe(zero) + " vs " + describe(one)));
        const RampSamples neutral = sampleRamp(render({}), 6);
        QVERIFY(neutral.width > 100);
        QVERIFY2(neutral.positive != zero && neutral.positive != one,
                 qPrintable(describe(neutral.positive)));
        QVERIFY2(neutral.zero.red() > 235 && neutral.zero.green() > 235,
                 qPrintable(describe(neutral.zero)));
    }

    // Four ramps stacked in group order; a fifth group is not drawn.
    void atMostFourRamps() {
        Legend four({0, 1, 2, 3});
        const QImage image = four.image();
        std::vector<QColor> ends;
        for (int i = 0; i < 4; ++i)
            ends.push_back(sampleRamp(image, 4 + 4 * i).positive);
        QCOMPARE(ends[0], sampleRamp(render({0}), 6).positive);
        for (int i = 0; i < 4; ++i)
            for (int j = i + 1; j < 4; ++j)
                QVERIFY2(hueDistance(ends[std::size_t(i)], ends[std::size_t(j)]) > 10,
                         qPrintable(QString("ramps %1 and %2: %3 vs %4")
                                        .arg(i)
                                        .arg(j)
                                        .arg(describe(ends[std::size_t(i)]),
                                             describe(ends[std::size_t(j)]))));
        QCOMPARE(render({0, 1, 2, 3, 4}), image);
    }

    // The scale changes the tick labels, not the colours: the ramp spans -scale..+scale.
    void scaleChangesTheTicksOnly() {
        const QImage one = render({0}, 1.0f);
        const QImage big = render({0}, 250.0f);
        QVERIFY(one != big);
        QCOMPARE(one.copy(0, 0, one.width(), 12), big.copy(0, 0, big.width(), 12));  // the bar
        // Setting the same values again changes nothing; a new value redraws.
        Legend legend({0}, 1.0f);
        legend.widget.setScale(1.0f);
        legend.widget.setGroups({0});
        QCOMPARE(legend.image(), one);
        legend.widget.setScale(250.0f);
        QCOMPARE(legend.image(), big);
    }

    void fontChangesRedraw() {
        Legend legend({0});
        const QImage before = legend.image();
        QFont font = legend.widget.font();
        font.setPointSizeF(font.pointSizeF() * 1.5);
        legend.widget.setFont(font);
        QVERIFY(legend.image() != before);
    }

    // It asks for room for the ticks and the caption, and fits its caption's width.
    void sizeHints() {
        HeatmapLegend legend;
        const QFontMetrics metrics(legend.font());
        QVERIFY(legend.sizeHint().height() >= 3 * metrics.height());
        QVERIFY(legend.minimumSizeHint().height() >= 2 * metrics.height());
        QVERIFY(legend.minimumSizeHint().height() < legend.sizeHint().height());
        QVERIFY(legend.sizeHint().width() >
                metrics.horizontalAdvance("negative = dark \u00b7 zero = white"));
        // Its height follows its width: a narrow legend wraps its caption, never cuts it.
        QCOMPARE(legend.sizePolicy().verticalPolicy(), QSizePolicy::Preferred);
        QVERIFY(legend.hasHeightForWidth());
        QCOMPARE(legend.heightForWidth(2000), legend.sizeHint().height());
        const QStringList lines = legend.captionLines(120);
        QVERIFY(lines.size() >= 2);
        QCOMPARE(legend.heightForWidth(120),
                 legend.sizeHint().height() + int(lines.size() - 1) * metrics.height());
        QCOMPARE(lines.join(" \u00b7 "), QString("negative = dark slate \u00b7 zero = white "
                                                 "\u00b7 positive = slate blue"));
        legend.setCaptionShown(false);
        QCOMPARE(legend.heightForWidth(120), legend.minimumSizeHint().height());
    }
};

QTEST_MAIN(TestHeatmapLegend)
#include "tst_heatmap_legend.moc"
