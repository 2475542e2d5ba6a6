#include "window_controls.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDockWidget>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QTabBar>
#include <QTest>
#include <QToolBar>
#include <QWidgetAction>

#include <algorithm>
#include <set>

namespace tp::test {
namespace {

int pick(std::mt19937_64& rng, int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
}

bool chance(std::mt19937_64& rng, double p) {
    return std::bernoulli_distribution(p)(rng);
}

QString kindWord(const QObject* control, int index) {
    if (qobject_cast<const QAction*>(control))
        return QStringLiteral("action");
    if (qobject_cast<const QCheckBox*>(control))
        return QStringLiteral("check box");
    if (qobject_cast<const QAbstractButton*>(control))
        return QStringLiteral("button");
    if (qobject_cast<const QComboBox*>(control))
        return index >= 0 ? QStringLiteral("combo item") : QStringLiteral("combo");
    if (qobject_cast<const QAbstractSpinBox*>(control))
        return QStringLiteral("spin box");
    if (qobject_cast<const QLineEdit*>(control))
        return QStringLiteral("line edit");
    if (qobject_cast<const QTabBar*>(control))
        return QStringLiteral("tab");
    return QStringLiteral("slider");
}

// Its object name, or its class and text when it has none.
QString ownName(const QObject* control) {
    if (!control->objectName().isEmpty())
        return control->objectName();
    QString text;
    if (const auto* button = qobject_cast<const QAbstractButton*>(control))
        text = button->text();
    else if (const auto* action = qobject_cast<const QAction*>(control))
        text = action->text();
    text.remove(QLatin1Char('&'));
    const QString type = QString::fromLatin1(control->metaObject()->className());
    return text.isEmpty() ? type : QStringLiteral("%1 '%2'").arg(type, text);
}

// A spin box's line edit and a tab bar's scroll buttons are parts of those controls; scroll bars
// move views, which the tests drive on their own.
bool partOfAnother(const QWidget* widget) {
    const QObject* parent = widget->parent();
    return qobject_cast<const QAbstractSpinBox*>(parent) || qobject_cast<const QTabBar*>(parent) ||
           qobject_cast<const QScrollBar*>(widget);
}

// The window's own widgets, its dialogs' and its floating docks', not a menu's or a popup's.
bool inReach(const QWidget* widget, const QWidget* window) {
    const QWidget* top = widget->window();
    return top == window || qobject_cast<const QDialog*>(top) ||
           qobject_cast<const QDockWidget*>(top);
}

void addAction(QAction* action, std::set<QAction*>& seen, QList<Control>& found) {
    if (action->isSeparator() || !action->isVisible() || !action->isEnabled() ||
        qobject_cast<QWidgetAction*>(action) || action->menuRole() == QAction::QuitRole)
        return;
    if (QMenu* menu = action->menu()) {
        for (QAction* item : menu->actions())
            addAction(item, seen, found);
        return;
    }
    if (seen.insert(action).second)
        found << Control{controlKey(action), ControlKind::Action, action};
}

QString typedNumber(std::mt19937_64& rng, const QSpinBox* box) {
    const int low = box->minimum();
    const int high = box->maximum();
    if (std::int64_t(high) - low <= 2000 || chance(rng, 0.1))
        return QString::number(std::uniform_int_distribution<int>(low, high)(rng));
    // Wide ranges (sizes up to 2^24): mostly small values, which the window computes quickly.
    return QString::number(low + pick(rng, chance(rng, 0.8) ? 48 : 512));
}

QString typeInto(QWidget* edit, const QString& text, std::mt19937_64& rng) {
    if (auto* line = qobject_cast<QLineEdit*>(edit))
        line->selectAll();
    else if (auto* box = qobject_cast<QAbstractSpinBox*>(edit))
        box->selectAll();
    QTest::keyClicks(edit, text);
    if (chance(rng, 0.3))
        QTest::keyClick(edit, Qt::Key_Return);
    return QStringLiteral("\"%1\"").arg(text);
}

}  // namespace

QString controlKey(const QObject* control, int index) {
    QString where;
    // Qt's own names ("qt_scrollarea_viewport") say nothing of where a control is.
    for (const QObject* up = control->parent(); up && where.isEmpty(); up = up->parent())
        if (!up->objectName().startsWith(QLatin1String("qt_")))
            where = up->objectName();
    QString key = kindWord(control, index) + QLatin1Char(' ');
    if (!where.isEmpty())
        key += where + QLatin1Char('/');
    key += ownName(control);
    if (index >= 0)
        key += QStringLiteral(" #%1").arg(index);
    return key;
}

QList<Control> reachableControls(QWidget* window) {
    QList<Control> found;
    for (QWidget* widget : window->findChildren<QWidget*>()) {
        if (!widget->isVisible() || !widget->isEnabled() || !inReach(widget, window) ||
            partOfAnother(widget))
            continue;
        if (auto* button = qobject_cast<QAbstractButton*>(widget)) {
            const bool check = qobject_cast<QCheckBox*>(button);
            found << Control{controlKey(button),
                             check ? ControlKind::CheckBox : ControlKind::Button, button};
        } else if (auto* box = qobject_cast<QComboBox*>(widget)) {
            // An editable combo's items are suggestions for its line edit, which change with
            // other inputs (tp_size's divisors): one control, used at one of its items.
            const QString one = controlKey(box, 0).section(QLatin1Char(' '), 0, -2);
            for (int i = 0; i < box->count(); ++i)
                if (box->model()->flags(box->model()->index(i, box->modelColumn())) &
                    Qt::ItemIsEnabled)
                    found << Control{box->isEditable() ? one : controlKey(box, i),
                                     ControlKind::ComboItem, box, i};
        } else if (auto* spin = qobject_cast<QAbstractSpinBox*>(widget)) {
            if (!spin->isReadOnly())
                found << Control{controlKey(spin), ControlKind::SpinBox, spin};
        } else if (auto* edit = qobject_cast<QLineEdit*>(widget)) {
            if (!edit->isReadOnly())
                found << Control{controlKey(edit), ControlKind::LineEdit, edit};
        } else if (auto* tabs = qobject_cast<QTabBar*>(widget)) {
            for (int i = 0; i < tabs->count(); ++i)
                if (tabs->isTabEnabled(i) && tabs->isTabVisible(i))
                    found << Control{controlKey(tabs, i), ControlKind::Tab, tabs, i};
        } else if (auto* slider = qobject_cast<QAbstractSlider*>(widget)) {
            found << Control{controlKey(slider), ControlKind::Slider, slider};
        }
    }
    std::set<QAction*> seen;
    if (auto* main = qobject_cast<QMainWindow*>(window))
        for (QAction* menu : main->menuBar()->actions())
            addAction(menu, seen, found);
    for (QToolBar* bar : window->findChildren<QToolBar*>())
        if (bar->isVisible())
            for (QAction* action : bar->actions())
                addAction(action, seen, found);
    return found;
}

QString useControl(const Control& control, std::mt19937_64& rng) {
    QObject* object = control.object;
    if (!object)
        return QStringLiteral("%1 (gone)").arg(control.key);
    const QString what = QStringLiteral("use %1").arg(control.key);
    switch (control.kind) {
        case ControlKind::Button:
        case ControlKind::CheckBox:
            QTest::mouseClick(static_cast<QAbstractButton*>(object), Qt::LeftButton);
            return what;
        case ControlKind::ComboItem: {
            auto* box = static_cast<QComboBox*>(object);
            if (control.index >= box->count())
                return what + QStringLiteral(" (no longer there)");
            // What choosing the item in the popup does: the index, then the user's signals.
            box->setCurrentIndex(control.index);
            emit box->activated(control.index);
            emit box->textActivated(box->itemText(control.index));
            return what + QStringLiteral(" '%1'").arg(box->itemText(control.index));
        }
        case ControlKind::SpinBox: {
            auto* box = qobject_cast<QSpinBox*>(object);
            if (!box) {
                QTest::keyClick(static_cast<QWidget*>(object),
                                chance(rng, 0.5) ? Qt::Key_Up : Qt::Key_Down);
                return what + QStringLiteral(" up or down");
            }
            if (chance(rng, 0.4)) {
                box->setValue(typedNumber(rng, box).toInt());
                return what + QStringLiteral(" set %1").arg(box->value());
            }
            const QString text =
                chance(rng, 0.6)
                    ? typedNumber(rng, box)
                    : QStringList{"0", "-3", "abc", "", "1e3", "99999999999"}[pick(rng, 6)];
            return what + QStringLiteral(" typed ") + typeInto(box, text, rng);
        }
        case ControlKind::LineEdit: {
            const QString text =
                chance(rng, 0.2)
                    ? QString::number(qint64(rng()))
                    : QStringList{"0",   "1",    "2",   "-1",  "0.5", "1e-3",       "0.02",
                                  "nan", "inf",  "abc", "",    " 42", "4294967296", "1.5",
                                  "3",   "1e-5", "-0",  "1e9", "2 ",  "0x10"}[pick(rng, 20)];
            return what + QStringLiteral(" typed ") +
                   typeInto(static_cast<QWidget*>(object), text, rng);
        }
        case ControlKind::Tab: {
            auto* tabs = static_cast<QTabBar*>(object);
            if (control.index >= tabs->count())
                return what + QStringLiteral(" (no longer there)");
            QTest::mouseClick(tabs, Qt::LeftButton, {}, tabs->tabRect(control.index).center());
            return what + QStringLiteral(" '%1'").arg(tabs->tabText(control.index));
        }
        case ControlKind::Slider: {
            auto* slider = static_cast<QAbstractSlider*>(object);
            if (chance(rng, 0.5)) {
                const int span = slider->maximum() - slider->minimum();
                slider->setValue(slider->minimum() - 1 + pick(rng, span + 3));
                return what + QStringLiteral(" set %1").arg(slider->value());
            }
            const QPoint at(pick(rng, std::max(1, slider->width())),
                            pick(rng, std::max(1, slider->height())));
            QTest::mouseClick(slider, Qt::LeftButton, {}, at);
            return what + QStringLiteral(" clicked at %1, %2").arg(at.x()).arg(at.y());
        }
        case ControlKind::Action:
            static_cast<QAction*>(object)->trigger();
            return what;
    }
    return what;
}

}  // namespace tp::test
