#include "verification_view.h"

#include "float_format.h"

#include <QLabel>
#include <QVBoxLayout>

#include <cmath>

namespace tp {
namespace {

QString number(double value) {
    return QString::fromStdString(formatFloatShort(float(value), 3));
}

}  // namespace

VerificationView::VerificationView(QWidget* parent) : QFrame(parent) {
    setObjectName(QStringLiteral("verificationView"));
    setFrameShape(QFrame::StyledPanel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    m_verdict = new QLabel;
    m_verdict->setObjectName(QStringLiteral("verdictLabel"));
    m_verdict->setWordWrap(true);
    QFont bold = m_verdict->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.1);
    m_verdict->setFont(bold);
    m_numbers = new QLabel;
    m_numbers->setObjectName(QStringLiteral("verificationNumbers"));
    m_numbers->setWordWrap(true);
    m_numbers->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_verdict);
    layout->addWidget(m_numbers);
    layout->addStretch(1);
}

QString VerificationView::verdictText() const {
    return m_verdict->text();
}

QString VerificationView::detailText() const {
    return m_numbers->text();
}

void VerificationView::setVerification(const Verification& v, bool complete,
                                       const QString& waitingText) {
    m_state = !complete ? State::Waiting : v.passed ? State::Passed : State::Failed;
    const bool byAllclose = v.rule == CheckRule::Allclose;
    QString background, text;
    switch (m_state) {
        case State::Waiting:
            background = QStringLiteral("#eeeeee");
            text = waitingText;
            break;
        case State::Passed:
            background = QStringLiteral("#c8e6c9");
            text = byAllclose ? tr("✔ allclose: output matches x @ kernel + bias")
                              : tr("✔ passed: output matches x @ kernel + bias within float32 "
                                   "rounding");
            break;
        case State::Failed:
            background = QStringLiteral("#ffcdd2");
            text = byAllclose ? tr("✘ not allclose: output differs from x @ kernel + bias")
                              : tr("✘ failed: output differs from x @ kernel + bias by more than "
                                   "rounding can explain");
            break;
    }
    // Dark text on the light verdict colours, whatever the theme's text colour is.
    setStyleSheet(QStringLiteral("QFrame#verificationView { background: %1; border: 1px solid "
                                 "#aaa; border-radius: 4px; } QFrame#verificationView QLabel { "
                                 "color: #1a1a1a; }")
                      .arg(background));
    m_verdict->setText(text);
    if (m_state == State::Waiting) {
        // Nothing to judge yet: say what will be compared, not figures of an output not shown.
        m_numbers->setText(
            tr("Once the output is complete, every element is compared with the reference x @ "
               "kernel + bias (one full product) against its float32 rounding bound 2 &middot; "
               "&gamma;(K+1) &middot; (|x| @ |kernel| + |bias|), K = in_dim; allclose(rtol=%1, "
               "atol=%2) is shown beside it.")
                .arg(v.tolerance.rtol)
                .arg(v.tolerance.atol));
        return;
    }
    const QString bound =
        std::isnan(v.maxErrorOverBound) ? tr("n/a") : QString::number(v.maxErrorOverBound, 'g', 3);
    m_numbers->setText(
        tr("Output vs reference (one full product):<br>bit-identical <b>%1</b> of %2 &nbsp; "
           "largest error <b>%3</b> of its rounding bound<br>max abs error <b>%4</b> &nbsp; max "
           "rel error <b>%5</b><br>allclose(rtol=%6, atol=%7): <b>%8</b>")
            .arg(v.bitIdentical)
            .arg(v.elements)
            .arg(bound, number(v.maxAbsError), number(v.maxRelError))
            .arg(v.tolerance.rtol)
            .arg(v.tolerance.atol)
            .arg(v.allclose ? tr("True") : tr("False")));
}

}  // namespace tp
