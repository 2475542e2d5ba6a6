#include "step_actions.h"

#include "step_controller.h"
#include "step_keys.h"

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProxyStyle>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QToolBar>
#include <QWidget>

namespace tp {
namespace {

// An action whose tooltip names its shortcut, so the keyboard is discoverable.
QAction* makeAction(QWidget* parent, QStyle::StandardPixmap icon, const QString& text,
                    const QKeySequence& key, const QString& help) {
    auto* action = new QAction(parent->style()->standardIcon(icon), text, parent);
    action->setShortcut(key);
    action->setShortcutContext(Qt::WindowShortcut);
    const QString tip = QStringLiteral("%1 (%2)").arg(help, key.toString(QKeySequence::NativeText));
    action->setToolTip(tip);
    action->setStatusTip(tip + QStringLiteral(" · ") + StepKeys::hint());
    parent->addAction(action);
    return action;
}

// A step slider's style: a left click in the groove sets the step under it (Qt's absolute-set
// button), as a user expects, instead of paging towards it; the handle then follows a drag.
class StepSliderStyle : public QProxyStyle {
public:
    int styleHint(StyleHint hint, const QStyleOption* option, const QWidget* widget,
                  QStyleHintReturn* returned) const override {
        if (hint == SH_Slider_AbsoluteSetButtons)
            return Qt::LeftButton;
        return QProxyStyle::styleHint(hint, option, widget, returned);
    }
};

}  // namespace

StepActions::StepActions(StepController* controller, QWidget* parent) : QObject(parent) {
    m_reset = makeAction(parent, QStyle::SP_MediaSkipBackward, tr("&Reset"),
                         QKeySequence(Qt::Key_Home), tr("Back to the start, before any group"));
    m_previous = makeAction(parent, QStyle::SP_MediaSeekBackward, tr("&Previous group"),
                            QKeySequence(Qt::Key_Left), tr("Previous step"));
    m_play = makeAction(parent, QStyle::SP_MediaPlay, tr("&Play"), QKeySequence(Qt::Key_Space),
                        tr("Play or pause the steps"));
    m_next = makeAction(parent, QStyle::SP_MediaSeekForward, tr("&Next group"),
                        QKeySequence(Qt::Key_Right), tr("Next step"));
    m_end = makeAction(parent, QStyle::SP_MediaSkipForward, tr("&Last step"),
                       QKeySequence(Qt::Key_End), tr("Jump to the last step: the full output"));
    m_reset->setObjectName(QStringLiteral("resetAction"));
    m_previous->setObjectName(QStringLiteral("previousAction"));
    m_play->setObjectName(QStringLiteral("playAction"));
    m_next->setObjectName(QStringLiteral("nextAction"));
    m_end->setObjectName(QStringLiteral("endAction"));

    connect(m_reset, &QAction::triggered, this, [this] { m_controller->reset(); });
    connect(m_previous, &QAction::triggered, this, [this] {
        m_controller->pause();
        m_controller->previous();
    });
    connect(m_play, &QAction::triggered, this, [this] { m_controller->togglePlay(); });
    connect(m_next, &QAction::triggered, this, [this] {
        m_controller->pause();
        m_controller->next();
    });
    connect(m_end, &QAction::triggered, this, [this] { m_controller->goToEnd(); });

    m_slider = new QSlider(Qt::Horizontal);
    auto* sliderStyle = new StepSliderStyle;
    sliderStyle->setParent(m_slider);
    m_slider->setStyle(sliderStyle);
    m_slider->setObjectName(QStringLiteral("stepSlider"));
    m_slider->setPageStep(1);
    m_slider->setTickPosition(QSlider::TicksBelow);
    m_slider->setMinimumWidth(160);
    m_slider->setMaximumWidth(360);
    m_slider->setToolTip(
        tr("Step through the groups: drag, or click a step (Left / Right, Home "
           "/ End)"));
    connect(m_slider, &QSlider::valueChanged, this,
            [this](int step) { m_controller->setStep(step); });

    m_label = new QLabel;
    m_label->setObjectName(QStringLiteral("stepLabel"));
    m_label->setMinimumWidth(
        m_label->fontMetrics().horizontalAdvance(QStringLiteral("step 000 / 000")));

    m_speed = new QSpinBox;
    m_speed->setObjectName(QStringLiteral("speedBox"));
    m_speed->setRange(50, 5000);
    m_speed->setSingleStep(100);
    m_speed->setSuffix(tr(" ms/step"));
    m_speed->setToolTip(tr("Play speed: time per step"));
    m_speed->setValue(controller->intervalMs());
    connect(m_speed, &QSpinBox::valueChanged, this,
            [this](int ms) { m_controller->setIntervalMs(ms); });
    // A number out of range is only a start of one to the box, which puts its last value back
    // when editing ends: say so rather than revert in silence.
    connect(m_speed->findChild<QLineEdit*>(), &QLineEdit::textEdited, this,
            [this](const QString& text) { m_typedSpeed = text; });
    connect(m_speed, &QSpinBox::editingFinished, this, [this] {
        const QString typed = m_typedSpeed;
        m_typedSpeed.clear();
        QString number = typed;
        number.remove(m_speed->suffix()).remove(QLatin1Char(' '));
        bool ok = false;
        const int value = number.toInt(&ok);
        if (typed.isEmpty() || (ok && value == m_speed->value()))
            return;
        emit speedRefused(tr("Speed %1 ms/step refused: a step lasts %2 to %3 ms; kept %4 ms")
                              .arg(number.isEmpty() ? tr("(empty)") : number)
                              .arg(m_speed->minimum())
                              .arg(m_speed->maximum())
                              .arg(m_speed->value()));
    });

    setController(controller);
}

void StepActions::setController(StepController* controller) {
    if (controller == m_controller)
        return;
    if (m_controller)
        disconnect(m_controller, nullptr, this, nullptr);
    m_controller = controller;
    connect(controller, &StepController::intervalChanged, this, [this](int ms) {
        const QSignalBlocker block(m_speed);  // the speed of the controller shown, not an edit
        m_speed->setValue(ms);
    });
    connect(controller, &StepController::stepChanged, this, &StepActions::updateFromController);
    connect(controller, &StepController::stepCountChanged, this,
            &StepActions::updateFromController);
    connect(controller, &StepController::playingChanged, this, &StepActions::updateFromController);
    m_speed->setValue(controller->intervalMs());
    updateFromController();
}

void StepActions::addTo(QToolBar* toolBar) {
    toolBar->addAction(m_reset);
    toolBar->addAction(m_previous);
    toolBar->addAction(m_play);
    toolBar->addAction(m_next);
    toolBar->addAction(m_end);
    toolBar->addSeparator();
    toolBar->addWidget(m_slider);
    toolBar->addWidget(m_label);
    toolBar->addSeparator();
    toolBar->addWidget(m_speed);
}

void StepActions::addTo(QMenu* menu) {
    menu->addAction(m_play);
    menu->addSeparator();
    menu->addAction(m_previous);
    menu->addAction(m_next);
    menu->addSeparator();
    menu->addAction(m_reset);
    menu->addAction(m_end);
}

void StepActions::setEnabled(bool enabled) {
    for (QAction* action : {m_reset, m_previous, m_play, m_next, m_end})
        action->setEnabled(enabled);
    m_slider->setEnabled(enabled);
    if (enabled)
        updateFromController();
}

void StepActions::updateFromController() {
    const int step = m_controller->step();
    const int last = m_controller->lastStep();
    {
        const QSignalBlocker block(m_slider);
        m_slider->setRange(0, last);
        m_slider->setValue(step);
    }
    m_label->setText(tr("step %1 / %2").arg(step).arg(last));
    const bool playing = m_controller->isPlaying();
    auto* window = qobject_cast<QWidget*>(parent());
    m_play->setText(playing ? tr("&Pause") : tr("&Play"));
    m_play->setIcon(
        window->style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    if (!m_slider->isEnabled())
        return;
    m_previous->setEnabled(step > 0);
    m_reset->setEnabled(step > 0 || playing);
    m_next->setEnabled(step < last);
    m_end->setEnabled(step < last);
}

}  // namespace tp
