#pragma once

// The stepping keys (Left, Right, Home, End) belong to the steps: an input keeps them only while
// it is being edited.

#include <QObject>

#include <functional>

class QWidget;

namespace tp {

/// Gives the keyboard back to the picture once an input of `inputs` is done with: a choice in a
/// combo box, Enter or Esc in a field (a line edit, a spin box, an editable combo). The stepping
/// keys then step again instead of changing a combo or moving a text cursor. `picture` names the
/// widget to focus (the tab on screen). Applies to the inputs `inputs` holds when called.
class StepKeys : public QObject {
    Q_OBJECT

public:
    StepKeys(QWidget* inputs, std::function<QWidget*()> picture, QObject* parent);

    /// Focuses the picture now (e.g. after Esc, which the window's shortcut takes).
    void returnToPicture();

    /// Said in the status tips of the inputs and the step actions.
    static QString hint();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    std::function<QWidget*()> m_picture;
};

}  // namespace tp
