#include "verification_view.h"

#include "layer/float_format.h"

#include <QLabel>
#include <QPushButton>
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
    m_numbers->setTextFormat(Qt::RichText);  // entities such as &gamma; even without a tag
    m_numbers->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("verificationNote"));
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_note->hide();
    m_biasOffer = new QPushButton;
    m_biasOffer->setObjectName(QStringLiteral("biasOfferButton"));
    m_biasOffer->hide();
    connect(m_biasOffer, &QPushButton::clicked, this, [this] {
        if (m_offeredBias)
            emit biasChosen(*m_offeredBias);
    });
    layout->addWidget(m_verdict);
    layout->addWidget(m_numbers);
    layout->addWidget(m_note);
    layout->addWidget(m_biasOffer, 0, Qt::AlignLeft);
    layout->addStretch(1);
}

QString VerificationView::verdictText() const {
    return m_verdict->text();
}

QString VerificationView::numbersText() const {
    return m_numbers->text();
}

QString VerificationView::detailText() const {
    return m_numbers->text();
}

void VerificationView::setNote(const QString& note) {
    m_note->setText(note.isEmpty() ? QString()
                                   : QStringLiteral("<i>%1</i>").arg(note.toHtmlEscaped()));
    m_note->setVisible(!note.isEmpty());
}

void VerificationView::setBiasOffer(std::optional<BiasInit> bias) {
    m_offeredBias = bias;
    if (bias)
        m_biasOffer->setText(tr("Use bias normal, stddev %1")
                                 .arg(QString::fromStdString(formatFloatShort(bias->stddev, 3))));
    m_biasOffer->setToolTip(
        tr("Sets the Bias input: NNX's default bias is zeros, which hides this mistake"));
    m_biasOffer->setVisible(bias.has_value());
}

QString VerificationView::noteText() const {
    return m_note->text();
}

void VerificationView::setExplanationShown(bool shown) {
    m_explanation = shown;
    showNumbers();
}

void VerificationView::showNumbers() {
    m_numbers->setVisible(m_state != State::Waiting || m_explanation);
}

VerificationView::Subject VerificationView::linearOutput() {
    return {.array = tr("the output"),
            .reference = tr("x @ kernel + bias"),
            .referenceLong = tr("x @ kernel + bias (one full product)"),
            .figures = tr("Output vs reference (one full product)"),
            .bound = tr("Rounding bound of element (i, j): 2 &middot; &gamma;~(K+1) &middot; (|x| "
                        "@ |kernel| + |bias|)[i, j], K = in_dim, &gamma;~(n) = exp(%1&radic;n u + "
                        "n u&sup2;/(1-u)) - 1, the probabilistic bound of Higham and Mary (a "
                        "correct split exceeds it with a chance below 1e-9)")
                         .arg(kRoundingLambda)};
}

void VerificationView::setSubject(const Subject& subject) {
    m_subject = subject;
}

void VerificationView::setVerification(const Verification& v, bool complete,
                                       const QString& waitingText) {
    m_state = !complete                            ? State::Waiting
              : v.verdict == Verdict::Passed       ? State::Passed
              : v.verdict == Verdict::Inconclusive ? State::Inconclusive
                                                   : State::Failed;
    const bool byAllclose = v.rule == CheckRule::Allclose;
    const QString allclose =
        tr("allclose(rtol=%1, atol=%2)").arg(v.tolerance.rtol).arg(v.tolerance.atol);
    QString background, text;
    switch (m_state) {
        case State::Waiting:
            background = QStringLiteral("#eeeeee");
            text = waitingText;
            break;
        case State::Passed:
            background = QStringLiteral("#c8e6c9");
            text =
                byAllclose
                    ? tr("✔ %1: %2 matches %3").arg(allclose, m_subject.array, m_subject.reference)
                    : tr("✔ passed: %1 matches %2 within float32 rounding")
                          .arg(m_subject.array, m_subject.reference);
            break;
        case State::Inconclusive:
            background = QStringLiteral("#ffe0b2");
            text = tr("? inconclusive: float32 cannot tell here whether %1 is %2")
                       .arg(m_subject.array, m_subject.reference);
            break;
        case State::Failed:
            background = QStringLiteral("#ffcdd2");
            if (!v.shapeMismatch.empty())
                text = tr("✘ failed: the shape of %1 is not that of %2")
                           .arg(m_subject.array, m_subject.reference);
            else if (v.nanElements > 0)
                text = tr("✘ failed: %1 of %2 elements of %3 are NaN or infinite, and such an "
                          "element never passes")
                           .arg(v.nanElements)
                           .arg(v.elements)
                           .arg(m_subject.array);
            else if (byAllclose)
                text = tr("✘ not %1: %2 differs from %3")
                           .arg(allclose, m_subject.array, m_subject.reference);
            else
                text = tr("✘ failed: %1 differs from %2 by more than rounding can explain")
                           .arg(m_subject.array, m_subject.reference);
            break;
    }
    // Dark text on the light verdict colours, whatever the theme's text colour is.
    setStyleSheet(QStringLiteral("QFrame#verificationView { background: %1; border: 1px solid "
                                 "#aaa; border-radius: 4px; } QFrame#verificationView QLabel { "
                                 "color: #1a1a1a; }")
                      .arg(background));
    m_verdict->setText(text);
    showNumbers();
    if (m_state == State::Waiting) {
        // Nothing to judge yet: say what will be compared, not figures of an output not shown.
        m_numbers->setText(
            byAllclose
                ? tr("Once %1 is complete, every element is compared with the reference %3 by "
                     "%2: |y - ref| &lt;= atol + rtol &middot; |ref|.")
                      .arg(m_subject.array, allclose, m_subject.referenceLong)
                : tr("Once %1 is complete, each element is checked against %2 within float32 "
                     "rounding.")
                      .arg(m_subject.array, m_subject.reference));
        // The bound's formula in full, for a window too short to show more lines.
        m_numbers->setToolTip(tr("%1; %2 is shown beside it").arg(m_subject.bound, allclose));
        return;
    }
    if (!v.shapeMismatch.empty()) {
        m_numbers->setText(
            tr("<b>%1</b> (%2): no element can be compared.")
                .arg(QString::fromStdString(v.shapeMismatch).toHtmlEscaped(), m_subject.figures));
        return;
    }
    const QString bound =
        std::isnan(v.maxErrorOverBound) ? tr("n/a") : QString::number(v.maxErrorOverBound, 'g', 3);
    // Why it could not tell comes first: it is the verdict's reason.
    const QString reason =
        m_state == State::Inconclusive
            ? tr("<b>Why:</b> %1.<br>")
                  .arg(QString::fromStdString(inconclusiveReason(v)).toHtmlEscaped())
            : QString();
    m_numbers->setText(
        reason +
        tr("%9:<br>bit-identical <b>%1</b> of %2 &nbsp; largest error <b>%3</b> of its rounding "
           "bound<br>max abs error <b>%4</b> &nbsp; max rel error <b>%5</b><br>%6: <b>%7</b>%8")
            .arg(v.bitIdentical)
            .arg(v.elements)
            .arg(bound, number(v.maxAbsError), number(v.maxRelError), allclose,
                 v.allclose ? tr("True") : tr("False"),
                 v.overBound > 0 ? tr("<br>over their rounding bound: <b>%1</b> of %2 elements")
                                       .arg(v.overBound)
                                       .arg(v.elements)
                                 : QString(),
                 m_subject.figures));
}

}  // namespace tp
