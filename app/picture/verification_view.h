#pragma once

// The check of the split result against the reference, in plain sight.

#include "layer/layer_config.h"
#include "layer/verification.h"

#include <QFrame>

#include <optional>

class QLabel;
class QPushButton;

namespace tp {

/// The verdict in words and its figures: bit-identical elements, the largest error over its
/// rounding bound, max abs and rel error, allclose with its tolerance. Green when the output is
/// complete and the check passed (by its rule: the rounding bound, or allclose), red when complete
/// and not; before the last step grey, saying what is missing and what will be compared, with no
/// figures. An output whose shape is not the reference's fails with the sentence saying so
/// ("shapes differ: 2x4 vs 2x12") instead of figures. A note under the figures says, when a
/// mistake changes nothing, why.
class VerificationView : public QFrame {
    Q_OBJECT

public:
    explicit VerificationView(QWidget* parent = nullptr);

    /// `complete`: the step shows the whole output; `waitingText` says what is still missing.
    void setVerification(const Verification& verification, bool complete,
                         const QString& waitingText);

    /// What the box judges and against what, in its sentences.
    struct Subject {
        QString array;          ///< "the output": "✔ passed: the output matches ..."
        QString reference;      ///< "x @ kernel + bias": "... matches x @ kernel + bias"
        QString referenceLong;  ///< the reference as the allclose rule's sentence names it
        QString figures;        ///< the figures' heading: "Output vs reference (one full product)"
        QString bound;  ///< the bound's formula (rich text), the tooltip while the check waits
    };
    /// One Linear's output against x @ kernel + bias, the box's subject until set.
    static Subject linearOutput();
    /// Takes effect at the next setVerification.
    void setSubject(const Subject& subject);
    const Subject& subject() const { return m_subject; }

    /// The sentence under the figures (Scene::mistakeWithoutEffect); empty hides it.
    void setNote(const QString& note);
    QString noteText() const;
    /// Offers, under the note, a button that asks for `bias` (Scene::biasShowingMistake: a bias
    /// that shows the mistake a zero bias hides); nullopt hides it.
    void setBiasOffer(std::optional<BiasInit> bias);
    QPushButton* biasOfferButton() const { return m_biasOffer; }

    /// Whether the sentence saying what will be compared shows while the check waits (a short
    /// window folds it away). The verdict and, once complete, the figures always show.
    void setExplanationShown(bool shown);

    enum class State { Waiting, Passed, Failed, Inconclusive };

signals:
    /// The bias offer was clicked: the scene should be drawn with `bias`.
    void biasChosen(const tp::BiasInit& bias);

public:
    State state() const { return m_state; }
    QString verdictText() const;
    /// The figures under the verdict (rich text), headed by the reason when inconclusive.
    QString numbersText() const;
    /// The figures under the verdict (or, while waiting, what will be compared).
    QString detailText() const;

private:
    void showNumbers();

    State m_state = State::Waiting;
    bool m_explanation = true;
    QLabel* m_verdict;
    QLabel* m_numbers;
    QLabel* m_note;
    QPushButton* m_biasOffer;
    std::optional<BiasInit> m_offeredBias;
    Subject m_subject = linearOutput();
};

}  // namespace tp
