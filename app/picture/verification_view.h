#pragma once

// The check of the split result against the reference, in plain sight.

#include "verification.h"

#include <QFrame>

class QLabel;

namespace tp {

/// Max abs error, max rel error and allclose with its tolerance. Green when the output is complete
/// and allclose, red when complete and not; before the last step grey, saying what is missing and
/// what will be compared, with no figures.
class VerificationView : public QFrame {
    Q_OBJECT

public:
    explicit VerificationView(QWidget* parent = nullptr);

    /// `complete`: the step shows the whole output; `waitingText` says what is still missing.
    void setVerification(const Verification& verification, bool complete,
                         const QString& waitingText);

    enum class State { Waiting, Passed, Failed };
    State state() const { return m_state; }
    QString verdictText() const;
    /// The figures under the verdict (or, while waiting, what will be compared).
    QString detailText() const;

private:
    State m_state = State::Waiting;
    QLabel* m_verdict;
    QLabel* m_numbers;
};

}  // namespace tp
