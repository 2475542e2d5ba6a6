#pragma once

// The controls a user can reach in a window, found at run time rather than listed by hand: every
// enabled, visible button, check box, combo item, spin box, line edit, tab and slider of the
// window and of its open dialogs, and every enabled menu and toolbar action. A control added to
// the app later is found, and used, without editing the test that uses them.

#include <QList>
#include <QPointer>
#include <QString>

#include <random>

class QWidget;

namespace tp::test {

enum class ControlKind { Button, CheckBox, ComboItem, SpinBox, LineEdit, Tab, Slider, Action };

struct Control {
    /// Names the control for the whole run: its kind, the nearest named ancestor and its own
    /// object name (or class and text), e.g. "combo item parameterDock/modeBox #1". The items of
    /// an editable combo share one key (they are suggestions that change with other inputs).
    QString key;
    ControlKind kind = ControlKind::Button;
    QPointer<QObject> object;  ///< the widget, or the QAction
    int index = -1;            ///< the combo item or the tab
};

/// Every control of `window` a user can use now (see the file comment). Left out: the action of
/// QAction::QuitRole (it ends the run), scroll bars, and the parts of a control that are controls
/// themselves (a spin box's line edit, a tab bar's scroll buttons). An editable combo's line edit
/// is a line edit of its own.
QList<Control> reachableControls(QWidget* window);

/// The key reachableControls gives the widget `widget` (its item or tab `index`, else -1).
QString controlKey(const QObject* control, int index = -1);

/// Uses `control` as a user would, with random values from `rng` (valid and invalid ones for the
/// inputs); returns what it did, for the log. Clicks that open a modal dialog return once it is
/// closed, so the caller keeps a closer running (see tst_monkey's ModalCloser).
QString useControl(const Control& control, std::mt19937_64& rng);

}  // namespace tp::test
