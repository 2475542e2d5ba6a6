#pragma once

// Inputs that take the mouse wheel only once focused: a wheel turned to scroll a panel passes
// over its spin boxes and lists to the panel, instead of changing whichever value comes under the
// pointer (scrolling the Parameters panel set Data D to 0).

class QWidget;

namespace tp {

/// Every spin box and combo box inside `panel` takes focus by click or Tab, not by the wheel, and
/// a wheel event over one without focus goes on to its parents.
void takeWheelOnlyWhenFocused(QWidget* panel);

}  // namespace tp
