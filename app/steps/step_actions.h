#pragma once

// The on-screen step controls: actions with shortcuts (for the Go menu and the toolbar), a step
// slider and a speed box, all bound to one StepController at a time (the tab on screen's).

#include <QObject>

class QAction;
class QLabel;
class QSlider;
class QSpinBox;
class QToolBar;
class QMenu;

namespace tp {

class StepController;

class StepActions : public QObject {
    Q_OBJECT

public:
    /// Creates the actions (parented to `parent`, a window, so their shortcuts work anywhere in
    /// it).
    StepActions(StepController* controller, QWidget* parent);

    /// Binds every control to `controller` from now on (another tab's position); the speed box
    /// keeps its value, which `controller` takes.
    void setController(StepController* controller);
    StepController* controller() const { return m_controller; }

    QAction* previousAction() const { return m_previous; }
    QAction* nextAction() const { return m_next; }
    QAction* playAction() const { return m_play; }
    QAction* resetAction() const { return m_reset; }
    QAction* endAction() const { return m_end; }
    QSlider* slider() const { return m_slider; }
    QSpinBox* speedBox() const { return m_speed; }
    QLabel* stepLabel() const { return m_label; }

    /// Adds the actions, the slider, the step label and the speed box to a toolbar.
    void addTo(QToolBar* toolBar);
    /// Adds the actions to a menu.
    void addTo(QMenu* menu);

    /// Enables or disables every control (e.g. while there is no scene yet).
    void setEnabled(bool enabled);

signals:
    /// A speed typed into the speed box was out of its range and the box kept its value: why, in
    /// words ("Speed 1 ms/step refused: a step lasts 50 to 5000 ms; kept 700 ms").
    void speedRefused(const QString& reason);

private:
    void updateFromController();

    StepController* m_controller = nullptr;
    QAction* m_previous;
    QAction* m_next;
    QAction* m_play;
    QAction* m_reset;
    QAction* m_end;
    QSlider* m_slider;
    QSpinBox* m_speed;
    QString m_typedSpeed;  ///< the text typed into the speed box since it last took a value
    QLabel* m_label;
};

}  // namespace tp
