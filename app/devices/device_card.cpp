#include "device_card.h"

#include "palette.h"

#include <QPainter>

#include <algorithm>
#include <iterator>

namespace tp {
namespace {

constexpr int kMargin = 6;
constexpr int kHeader = 20;

// Share of the card's array area each array takes: kernel, bias, x, output.
constexpr double kShares[] = {0.36, 0.10, 0.24, 0.30};

bool sameArray(const HeldArray& a, const HeldArray& b) {
    return a.data.data() == b.data.data() && a.data.rows() == b.data.rows() &&
           a.data.cols() == b.data.cols() && a.style == b.style;
}

}  // namespace

DeviceCard::DeviceCard(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void DeviceCard::setHoldings(DeviceHoldingsView holdings) {
    std::swap(m_holdings, holdings);
    m_previous = std::move(holdings.arrays);
    setObjectName(QStringLiteral("deviceCard_%1_%2").arg(m_holdings.d).arg(m_holdings.m));
    layoutArrays();
    update();
}

QRect DeviceCard::arrayRect(int index) const {
    return index >= 0 && index < int(m_rects.size()) ? m_rects[std::size_t(index)] : QRect();
}

QImage DeviceCard::arrayImage(int index) const {
    return index >= 0 && index < int(m_images.size()) ? m_images[std::size_t(index)] : QImage();
}

QFont DeviceCard::smallFont() const {
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    return f;
}

QString DeviceCard::footerText() const {
    return m_holdings.bytesText + QLatin1Char('\n') + m_holdings.flopsText;
}

void DeviceCard::resizeEvent(QResizeEvent*) {
    layoutArrays();
}

void DeviceCard::layoutArrays() {
    const QFontMetrics small(smallFont());
    const int lineHeight = small.height();
    const int textWidth = std::max(1, width() - 2 * kMargin);
    const int footer =
        small.boundingRect(QRect(0, 0, textWidth, 1000), Qt::TextWordWrap, footerText()).height() +
        2;
    const QRect area = rect().adjusted(kMargin, kHeader + kMargin, -kMargin, -kMargin - footer);
    const std::size_t count = m_holdings.arrays.size();
    m_rects.assign(count, QRect());
    m_labelRects.assign(count, QRect());
    std::vector<QImage> previousImages = std::move(m_images);
    m_images.assign(count, QImage());
    const int free = area.height() - int(count) * lineHeight;
    int y = area.top();
    for (std::size_t i = 0; i < count; ++i) {
        const std::vector<double>& shares = m_holdings.shares;
        const double share = !shares.empty()          ? shares.at(i)
                             : i < std::size(kShares) ? kShares[i]
                                                      : 0.2;
        const int h = std::max(8, int(free * share));
        m_labelRects[i] = QRect(area.left(), y, area.width(), lineHeight);
        y += lineHeight;
        m_rects[i] = QRect(area.left(), y, area.width(), h - 2);
        y += h;
        const HeldArray& a = m_holdings.arrays[i];
        // A step changes the output side only: keep the images whose inputs did not change.
        if (i < m_previous.size() && i < previousImages.size() && !previousImages[i].isNull() &&
            sameArray(m_previous[i], a) &&
            previousImages[i].size() == m_rects[i].size() * devicePixelRatioF()) {
            m_images[i] = previousImages[i];
            continue;
        }
        if (!a.data.isEmpty() && area.width() > 0) {
            const qreal dpr = devicePixelRatioF();
            HeatmapStyle style = a.style;
            style.devicePixelRatio = dpr;
            m_images[i] = renderHeatmap(a.data, style, (m_rects[i].size() * dpr));
        }
    }
    m_footer = QRect(area.left(), area.bottom() + 4, area.width(), footer);
    m_previous = m_holdings.arrays;
}

void DeviceCard::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QColor colour = groupColor(m_holdings.m);
    p.setPen(QPen(colour, 2));
    p.drawRect(rect().adjusted(1, 1, -1, -1));
    p.fillRect(QRect(0, 0, width(), kHeader), colour);
    p.setPen(Qt::white);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    QString header = m_holdings.title;
    if (m_holdings.sendsChunk >= 0)
        header = QStringLiteral("(%1, %2) sends %3, gets %4")
                     .arg(m_holdings.d)
                     .arg(m_holdings.m)
                     .arg(m_holdings.sendsChunk)
                     .arg(m_holdings.receivesChunk);
    p.drawText(QRect(kMargin, 0, width() - 2 * kMargin, kHeader), Qt::AlignVCenter | Qt::AlignLeft,
               p.fontMetrics().elidedText(header, Qt::ElideRight, width() - 2 * kMargin));
    p.setFont(smallFont());
    const QFontMetrics small(p.font());
    for (std::size_t i = 0; i < m_holdings.arrays.size(); ++i) {
        const HeldArray& a = m_holdings.arrays[i];
        // The name on the left, the spec on the right; the name gives way when they do not fit.
        const QRect r = m_labelRects[i];
        const int specWidth = std::min(small.horizontalAdvance(a.spec), r.width());
        p.setPen(QColor(0x44, 0x44, 0x99));
        p.drawText(r, Qt::AlignRight | Qt::AlignVCenter,
                   small.elidedText(a.spec, Qt::ElideRight, r.width()));
        p.setPen(palette().text().color());
        p.drawText(r.adjusted(0, 0, -specWidth - 4, 0), Qt::AlignLeft | Qt::AlignVCenter,
                   small.elidedText(a.name, Qt::ElideRight, r.width() - specWidth - 4));
        if (m_images[i].isNull()) {
            p.setPen(QPen(QColor(0xbb, 0xbb, 0xbb), 1, Qt::DashLine));
            p.drawRect(m_rects[i].adjusted(0, 0, -1, -1));
            p.setPen(QColor(0x99, 0x99, 0x99));
            p.drawText(m_rects[i], Qt::AlignCenter, tr("not yet"));
        } else {
            p.drawImage(m_rects[i], m_images[i]);
        }
    }
    p.setPen(palette().text().color());
    p.drawText(m_footer, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, footerText());
}

}  // namespace tp
