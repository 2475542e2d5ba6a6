#include "trace_panel.h"

#include "cell_text.h"
#include "layer/float_format.h"

#include <QLabel>
#include <QVBoxLayout>

#include <cmath>

namespace tp {
namespace {

QString num(double value) {
    return cellText(float(value));
}

}  // namespace

QString traceHtml(const OutputTrace& t, ParallelMode mode) {
    const QString i = QString::number(t.row);
    const QString j = QString::number(t.col);
    QString html =
        QStringLiteral("<b>y[%1, %2] = sum_k x[%1, k] * kernel[k, %2] + bias[%2]</b>").arg(i, j);
    if (t.ownerGroup >= 0)
        html += QStringLiteral("<br>column %1 belongs to group %2").arg(j).arg(t.ownerGroup);
    html += QStringLiteral("<br>");
    for (const TraceTerm& term : t.terms) {
        html += QStringLiteral("&nbsp; x[%1, %2] * kernel[%2, %3] = %4 × %5 = %6")
                    .arg(i)
                    .arg(term.k)
                    .arg(j)
                    .arg(cellText(term.x), cellText(term.kernel), num(term.product));
        if (term.group >= 0)
            html += QStringLiteral(" &nbsp;(group %1)").arg(term.group);
        html += QStringLiteral("<br>");
    }
    if (t.omittedCount > 0)
        html += QObject::tr("&nbsp; + %1 smaller terms, summed: %2<br>")
                    .arg(t.omittedCount)
                    .arg(num(t.omittedSum));
    if (mode == ParallelMode::Row) {
        for (const GroupContribution& g : t.contributions)
            html += QObject::tr("&nbsp; group %1 (kernel rows [%2:%3)) adds its partial %4<br>")
                        .arg(g.group)
                        .arg(g.kernelRows.start)
                        .arg(g.kernelRows.stop)
                        .arg(cellText(g.partial));
        html += QObject::tr("&nbsp; + bias[%1] = %2, added once to the sum<br>")
                    .arg(j, cellText(t.bias));
    } else {
        html += QObject::tr("&nbsp; + bias[%1] = %2<br>").arg(j, cellText(t.bias));
    }
    html += QObject::tr("= %1 (sum of the terms in double)<br>float32 result: <b>%2</b>")
                .arg(QString::fromStdString(formatDouble(t.exact)),
                     QString::fromStdString(formatFloat(t.result)));
    if (t.reference != t.result)
        html += QObject::tr(" &nbsp;(reference %1)")
                    .arg(QString::fromStdString(formatFloat(t.reference)));
    return html;
}

TracePanel::TracePanel(QWidget* parent) : QFrame(parent) {
    setObjectName(QStringLiteral("tracePanel"));
    setFrameShape(QFrame::StyledPanel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    m_text = new QLabel;
    m_text->setObjectName(QStringLiteral("traceText"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    layout->addWidget(m_text, 1);
    clear();
}

void TracePanel::showTrace(const OutputTrace& trace, ParallelMode mode) {
    m_text->setText(traceHtml(trace, mode));
    m_tracing = true;
}

void TracePanel::clear() {
    m_tracing = false;
    m_text->setText(m_backward
                        ? tr("<i>Hover over a gradient's cell (dkernel, dbias, dx): the status bar "
                             "says the sum it is. An output cell y[i, j] still shows the forward's "
                             "sum here.</i>")
                        : tr("<i>Hover over an output cell y[i, j] to see its sum: row i of x "
                             "times column j of the kernel, plus bias[j].</i>"));
}

void TracePanel::setBackwardStep(bool backward) {
    if (backward == m_backward)
        return;
    m_backward = backward;
    if (!m_tracing)
        clear();
}

QString TracePanel::text() const {
    return m_text->text();
}

}  // namespace tp
