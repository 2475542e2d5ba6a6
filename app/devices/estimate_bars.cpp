#include "estimate_bars.h"

#include "costs_panel.h"

#include <QPainter>

#include <algorithm>

namespace tp {
namespace {

constexpr int kGap = 4;

// Each phase takes a title line ("forward 65.4 µs"), its bar, and its legend's entries flowing
// over as many lines as `width` needs.
struct PhaseLayout {
    int legendLines = 1;
    std::vector<QPoint> entries;  ///< each term's legend entry, relative to the legend's top left
};

PhaseLayout layoutLegend(const std::vector<EstimateTerm>& terms, const QFontMetrics& metrics,
                         int width) {
    PhaseLayout layout;
    const int line = metrics.height();
    int x = 0, y = 0;
    for (const EstimateTerm& term : terms) {
        const int w =
            line +
            metrics.horizontalAdvance(term.name + QLatin1Char(' ') + durationLabel(term.seconds)) +
            2 * kGap;
        if (x > 0 && x + w > width) {
            x = 0;
            y += line;
            ++layout.legendLines;
        }
        layout.entries.emplace_back(x, y);
        x += w;
    }
    return layout;
}

// The terms worth drawing: those above zero.
std::vector<EstimateTerm> shownTerms(const TimeEstimate& e) {
    std::vector<EstimateTerm> terms = estimateTerms(e);
    std::erase_if(terms, [](const EstimateTerm& t) { return !(t.seconds > 0); });
    return terms;
}

}  // namespace

std::vector<EstimateTerm> estimateTerms(const TimeEstimate& e) {
    const ProductTime& p = e.product;
    return {
        {p.memoryBound() ? EstimateBars::tr("memory") : EstimateBars::tr("math"),
         std::max(p.mathSeconds, p.memorySeconds),
         p.memoryBound() ? QColor(0x4e, 0x79, 0xa7) : QColor(0x59, 0xa1, 0x4f)},
        {EstimateBars::tr("launch"), p.launchSeconds, QColor(0xba, 0xb0, 0xac)},
        {EstimateBars::tr("latency"), e.collective.latencySeconds, QColor(0xe1, 0x57, 0x59)},
        {EstimateBars::tr("bandwidth"), e.collective.bandwidthSeconds, QColor(0xf2, 0x8e, 0x2b)},
        {EstimateBars::tr("sums"), e.collective.sumSeconds, QColor(0xed, 0xc9, 0x48)},
    };
}

EstimateBars::EstimateBars(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("estimateBars"));
    QSizePolicy policy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

void EstimateBars::setPhases(std::vector<std::pair<QString, TimeEstimate>> phases) {
    m_phases = std::move(phases);
    updateGeometry();
    update();
}

bool EstimateBars::hasHeightForWidth() const {
    return true;
}

int EstimateBars::heightForWidth(int width) const {
    const int line = fontMetrics().height();
    int height = 0;
    for (const auto& [name, e] : m_phases)
        height += 2 * line + layoutLegend(shownTerms(e), fontMetrics(), width).legendLines * line +
                  2 * kGap;
    return height;
}

QSize EstimateBars::sizeHint() const {
    return {240, heightForWidth(240)};
}

void EstimateBars::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const int line = fontMetrics().height();
    double longest = 0;
    for (const auto& [name, e] : m_phases)
        longest = std::max(longest, e.totalSeconds);
    const QColor text = palette().color(QPalette::WindowText);
    int y = 0;
    for (const auto& [name, e] : m_phases) {
        painter.setPen(text);
        painter.drawText(QRect(0, y, width(), line), Qt::AlignLeft | Qt::AlignVCenter,
                         name + QLatin1Char(' ') + durationLabel(e.totalSeconds));
        y += line;
        // The bar: every phase on one scale, the longest phase the whole width.
        const std::vector<EstimateTerm> terms = shownTerms(e);
        double x = 0;
        for (const EstimateTerm& term : terms) {
            const double w = longest > 0 ? term.seconds / longest * (width() - 1) : 0;
            painter.fillRect(QRectF(x, y + 2, w, line - 4), term.colour);
            x += w;
        }
        y += line;
        const PhaseLayout layout = layoutLegend(terms, fontMetrics(), width());
        for (std::size_t i = 0; i < terms.size(); ++i) {
            const QPoint at = layout.entries[i] + QPoint(0, y);
            painter.fillRect(QRect(at.x(), at.y() + 3, line - 6, line - 6), terms[i].colour);
            painter.setPen(text);
            painter.drawText(QRect(at.x() + line - 2, at.y(), width(), line),
                             Qt::AlignLeft | Qt::AlignVCenter,
                             terms[i].name + QLatin1Char(' ') + durationLabel(terms[i].seconds));
        }
        y += layout.legendLines * line + 2 * kGap;
    }
}

}  // namespace tp
