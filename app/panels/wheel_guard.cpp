#include "wheel_guard.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QWidget>

namespace tp {
namespace {

class WheelGuard : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        auto* input = qobject_cast<QWidget*>(watched);
        if (event->type() != QEvent::Wheel || !input || input->hasFocus())
            return false;
        // Not delivered to the input, and not accepted: QApplication offers it to the parents.
        event->ignore();
        return true;
    }
};

}  // namespace

void takeWheelOnlyWhenFocused(QWidget* panel) {
    auto* guard = new WheelGuard(panel);
    QList<QWidget*> inputs;
    for (QAbstractSpinBox* box : panel->findChildren<QAbstractSpinBox*>())
        inputs.append(box);
    for (QComboBox* box : panel->findChildren<QComboBox*>())
        inputs.append(box);
    for (QWidget* input : inputs) {
        input->setFocusPolicy(Qt::StrongFocus);
        input->installEventFilter(guard);
    }
}

}  // namespace tp
