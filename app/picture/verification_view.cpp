#include "verification_view.h"

#include "float_format.h"

#include <QLabel>
#include <QVBoxLayout>

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
    m_state = !complete ? State::Waiting : v.allclose ? State::Passed : State::Failed;
    QString background, text;
    switch (m_state) {
        case State::Waiting:
            background = QStringLiteral("#eeeeee");
            text = waitingText;
            break;
        case State::Passed:
            background = QStringLiteral("#c8e6c9");
            text = tr("✔ allclose: output matches x @ kernel + bias");
            break;
        case State::Failed:
            background = QStringLiteral("#ffcdd2");
            text = tr("✘ not allclose: output differs from x @ kernel + bias");
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
            tr("Once the output is complete it is compared with the reference x @ kernel + bias "
               "(one full product): max abs error, max rel error and allclose(rtol=%1, atol=%2).")
                .arg(v.tolerance.rtol)
                .arg(v.tolerance.atol));
        return;
    }
    m_numbers->setText(
        tr("Output vs reference (one full product):<br>max abs error <b>%1</b> &nbsp; max rel "
           "error <b>%2</b><br>allclose(rtol=%3, atol=%4): <b>%5</b>")
            .arg(number(v.maxAbsError), number(v.maxRelError))
            .arg(v.tolerance.rtol)
            .arg(v.tolerance.atol)
            .arg(v.allclose ? tr("True") : tr("False")));
}

}  // namespace tp
