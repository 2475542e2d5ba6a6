#include "step_keys.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QWidget>

namespace tp {

StepKeys::StepKeys(QWidget* inputs, std::function<QWidget*()> picture, QObject* parent)
    : QObject(parent), m_picture(std::move(picture)) {
    const auto tell = [](QWidget* input) {
        const QString tip = input->statusTip();
        if (!tip.contains(hint()))
            input->setStatusTip(tip.isEmpty() ? hint() : tip + QStringLiteral(" · ") + hint());
    };
    // A choice made (with the mouse, or Enter in the open list) ends the combo's turn.
    for (QComboBox* combo : inputs->findChildren<QComboBox*>()) {
        connect(combo, &QComboBox::activated, this, &StepKeys::returnToPicture);
        combo->installEventFilter(this);
        tell(combo);
    }
    // Line edits, also those inside spin boxes and editable combos: Enter ends the edit.
    for (QLineEdit* edit : inputs->findChildren<QLineEdit*>()) {
        connect(edit, &QLineEdit::returnPressed, this, &StepKeys::returnToPicture);
        edit->installEventFilter(this);
        if (!qobject_cast<QAbstractSpinBox*>(edit->parentWidget()) &&
            !qobject_cast<QComboBox*>(edit->parentWidget()))
            tell(edit);
    }
    for (QAbstractSpinBox* box : inputs->findChildren<QAbstractSpinBox*>()) {
        box->installEventFilter(this);
        tell(box);
    }
}

QString StepKeys::hint() {
    return tr("Enter or Esc gives the arrow keys, Home and End back to the steps");
}

void StepKeys::returnToPicture() {
    if (QWidget* picture = m_picture(); picture && picture->isVisible())
        picture->setFocus(Qt::OtherFocusReason);
}

bool StepKeys::eventFilter(QObject* watched, QEvent* event) {
    // Esc, when no shortcut of the window takes it first; the field keeps its text.
    if (event->type() == QEvent::KeyPress &&
        static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape && watched->isWidgetType() &&
        static_cast<QWidget*>(watched)->hasFocus())
        returnToPicture();
    return QObject::eventFilter(watched, event);
}

}  // namespace tp
