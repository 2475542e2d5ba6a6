#include "main_window.h"

#include "app_settings.h"
#include "devices/devices_view.h"
#include "files/picture_export.h"
#include "layer/range_text.h"
#include "matrix_view.h"
#include "panels/group_table_model.h"
#include "panels/parameter_panel.h"
#include "picture/backward_panel.h"
#include "picture/layer_panel.h"
#include "picture/layer_tab.h"
#include "picture/mlp_panel.h"
#include "picture/output_panel.h"
#include "picture/verification_view.h"
#include "scene_session.h"
#include "steps/step_actions.h"
#include "steps/step_controller.h"
#include "steps/step_keys.h"
#include "steps/tab_timelines.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QResizeEvent>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

namespace tp {

QSize MainWindow::openingSize(QSize available) {
    // Most of the screen, leaving room for the frame and a panel, but not a whole 4K monitor.
    return {std::min(available.width() - 24, 1800), std::min(available.height() - 48, 1060)};
}

void MainWindow::openOn(QSize available) {
    resize(openingSize(available));
    m_parameterWidth = parameterWidth(width());
    resizeDocks({findChild<QDockWidget*>(QStringLiteral("parameterDock"))}, {m_parameterWidth},
                Qt::Horizontal);
}

int MainWindow::parameterWidth(int windowWidth) {
    // The parameters need about 310 px; on a small screen they get no more.
    return std::clamp(windowWidth / 5, 310, 340);
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    auto* dock = findChild<QDockWidget*>(QStringLiteral("parameterDock"));
    const bool wider = event->size().width() > event->oldSize().width();
    if (wider && !dock->isFloating() && dock->isVisible() && dock->width() < m_parameterWidth)
        resizeDocks({dock}, {m_parameterWidth}, Qt::Horizontal);
}

MainWindow::MainWindow(Options options) : m_options(options) {
    setWindowTitle(tr("tpviz: tensor parallelism on one linear layer"));
    setObjectName(QStringLiteral("mainWindow"));

    m_computer = new SceneComputer(this);

    // Centre: the equation of the step over the layer (x, kernel, bias) and the outputs.
    auto* centre = new QWidget;
    auto* layout = new QVBoxLayout(centre);
    layout->setContentsMargins(6, 6, 6, 0);
    m_equation = new QLabel;
    m_equation->setObjectName(QStringLiteral("equationLabel"));
    m_equation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont equationFont(QStringLiteral("DejaVu Sans Mono"));
    equationFont.setStyleHint(QFont::Monospace);
    equationFont.setPointSizeF(font().pointSizeF() * 1.35);
    equationFont.setBold(true);
    m_equation->setFont(equationFont);
    m_equation->setToolTip(tr("What this step computes, with the shapes"));
    m_caption = new QLabel;
    m_caption->setObjectName(QStringLiteral("captionLabel"));
    m_caption->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_equation);
    layout->addWidget(m_caption);
    m_layerTab = new LayerTab;
    m_layer = m_layerTab->layerPanel();
    m_output = m_layerTab->outputPanel();
    m_backward = m_layerTab->backwardPanel();
    // A short window folds the caption with the explanations: the picture grows by its line, less
    // than the hysteresis gap.
    connect(m_layerTab, &LayerTab::explanationsShownChanged, m_caption, &QWidget::setVisible);
    m_devices = new DevicesView;
    m_views = new QTabWidget;
    m_views->setObjectName(QStringLiteral("viewTabs"));
    m_views->setDocumentMode(true);
    m_views->addTab(m_layerTab, tr("Layer"));
    m_views->addTab(m_devices, tr("Devices"));
    layout->addWidget(m_views, 1);
    setCentralWidget(centre);
    m_timelines = new TabTimelines(m_views, m_devices, this);
    m_stepActions = m_timelines->actions();
    m_stepActions->setEnabled(false);

    // Left: parameters, and the groups as a table.
    m_parameters = new ParameterPanel;
    m_session = new SceneSession(this, m_parameters, m_computer, m_timelines);
    connect(this, &MainWindow::sceneShown, m_session, &SceneSession::sceneShown);
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_parameters);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setFrameShape(QFrame::NoFrame);
    // The panel never scrolls sideways: held at the left, where its titles start (Tab into an
    // input scrolled it left by the vertical bar's width, cutting every title).
    connect(scroll->horizontalScrollBar(), &QScrollBar::valueChanged, scroll,
            [bar = scroll->horizontalScrollBar()] { bar->setValue(0); });
    auto* parameterDock = new QDockWidget(tr("Parameters"), this);
    parameterDock->setObjectName(QStringLiteral("parameterDock"));
    parameterDock->setWidget(scroll);
    // Closable, so that View > Parameters can hide and show it.
    parameterDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                               QDockWidget::DockWidgetClosable);
    addDockWidget(Qt::LeftDockWidgetArea, parameterDock);
    m_groups = new GroupTableModel(this);
    m_groupTable = new QTableView;
    m_groupTable->setObjectName(QStringLiteral("groupTable"));
    m_groupTable->setModel(m_groups);
    m_groupTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_groupTable->setSelectionMode(QAbstractItemView::SingleSelection);
    m_groupTable->verticalHeader()->hide();
    m_groupTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Every column as wide as its texts, the last one too: a stretched last column would keep
    // at least 100 px and push the table past the dock's width.
    m_groupTable->horizontalHeader()->setStretchLastSection(false);
    m_groupTable->setToolTip(tr("Click a group to step to it"));
    auto* groupDock = new QDockWidget(tr("Groups"), this);
    groupDock->setObjectName(QStringLiteral("groupDock"));
    groupDock->setWidget(m_groupTable);
    groupDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                           QDockWidget::DockWidgetClosable);
    addDockWidget(Qt::LeftDockWidgetArea, groupDock);
    resizeDocks({parameterDock, groupDock}, {620, 260}, Qt::Vertical);
    resizeDocks({parameterDock}, {300}, Qt::Horizontal);

    auto* toolBar = addToolBar(tr("Steps"));
    toolBar->setObjectName(QStringLiteral("stepToolBar"));
    toolBar->setMovable(false);
    toolBar->setToolButtonStyle(Qt::ToolButtonIconOnly);
    m_stepActions->addTo(toolBar);

    buildMenus();
    buildStatusBar();

    // Wiring: edits -> computer (debounced) -> scene on screen; steps -> every panel.
    connect(m_parameters, &ParameterPanel::configEdited, this,
            [this](const LayerConfig& config, SceneSource source, const SceneRun& run) {
                // A valid value: an earlier "Input refused" no longer describes the picture.
                statusBar()->clearMessage();
                m_computer->request(config, source, run, m_parameters->arrayFiles());
                // The settings keep seeded layers and the example; files are opened again.
                if (m_options.useSettings && source != SceneSource::Files) {
                    QSettings settings;
                    saveSceneSettings(settings, config, source);
                }
            });
    connect(m_parameters, &ParameterPanel::configRefused, this, [this] {
        m_computer->cancel();  // a pending edit must not replace the picture after a refusal
        statusBar()->showMessage(tr("Input refused: the picture shows the last valid parameters"),
                                 4000);
    });
    connect(m_computer, &SceneComputer::sceneReady, this, &MainWindow::onSceneReady);
    connect(m_computer, &SceneComputer::busyChanged, this, &MainWindow::onBusyChanged);
    connect(m_computer, &SceneComputer::progressChanged, this,
            [this](double fraction) { m_progress->setValue(int(fraction * 1000)); });
    connect(m_computer, &SceneComputer::cancelled, this, [this] {
        statusBar()->showMessage(
            tr("Cancelled: the fields are back to the scene on screen, the last one computed"),
            6000);
    });
    connect(m_computer, &SceneComputer::failed, this, [this](const QString& reason) {
        statusBar()->showMessage(tr("Refused: %1").arg(reason), 10000);
    });
    connect(m_computer, &SceneComputer::arraysRefused, this, [this](const QStringList& problems) {
        m_parameters->showArrayProblems(problems);
        statusBar()->showMessage(
            tr("The array files cannot be used: the picture shows the last valid scene"), 10000);
    });
    connect(m_timelines, &TabTimelines::loopStepChanged, this, [this](const TimelineStep& step) {
        if (m_session->scene())
            m_layerTab->setStep(step);
    });
    connect(m_timelines, &TabTimelines::programStepChanged, this,
            [this](const TimelineStep& step) { m_devices->setStep(step.step); });
    connect(m_timelines, &TabTimelines::shownStepChanged, this, &MainWindow::showStep);
    connect(m_stepActions, &StepActions::speedRefused, this,
            [this](const QString& reason) { statusBar()->showMessage(reason, 6000); });
    connect(m_groupTable, &QTableView::clicked, this, [this](const QModelIndex& index) {
        m_views->setCurrentIndex(m_views->indexOf(m_layerTab));  // a group's step is the loop's
        m_timelines->loopSteps()->setStep(index.row() + 1);
    });
    connect(m_layer, &LayerPanel::hoverText, m_hover, &QLabel::setText);
    connect(m_output, &OutputPanel::hoverText, m_hover, &QLabel::setText);
    connect(m_backward, &BackwardPanel::hoverText, m_hover, &QLabel::setText);
    connect(m_layerTab->mlpPanel(), &MlpPanel::hoverText, m_hover, &QLabel::setText);
    connect(m_output, &OutputPanel::outputCellHovered, m_layer, &LayerPanel::traceOutput);
    connect(m_output, &OutputPanel::outputCellLeft, m_layer, &LayerPanel::clearTrace);
    connect(m_output->verificationView(), &VerificationView::biasChosen, m_parameters,
            &ParameterPanel::chooseBias);

    LayerConfig config;
    SceneSource source = SceneSource::Nnx;
    bool restored = false;
    if (m_options.useSettings) {
        QSettings settings;
        std::tie(config, source) = loadSceneSettings(settings);
        restored = restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
        restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
        m_timelines->setIntervalMs(settings.value(QStringLiteral("steps/intervalMs"), 700).toInt());
    }
    if (!restored)
        openOn(screen()->availableGeometry().size());
    else  // the width a window of the saved size opens its Parameters with
        m_parameterWidth = parameterWidth(width());
    showConfig(config, source);
    // Start with the keyboard on the picture, so the step shortcuts work at once; an input done
    // with gives it back.
    m_stepKeys = new StepKeys(
        this,
        [this]() -> QWidget* {
            if (m_views->currentWidget() == m_devices)
                return m_devices;
            return m_layerTab->keyTarget();
        },
        this);
    m_layerTab->keyTarget()->setFocus();
}

MainWindow::~MainWindow() = default;

void MainWindow::showConfig(const LayerConfig& config, SceneSource source, const SceneRun& run,
                            const ArrayFiles& files, std::shared_ptr<LoadedArrays> loaded) {
    m_session->show({config, source, run, files}, std::move(loaded));
}

void MainWindow::cancelComputation() {
    m_computer->cancel();
    // The fields go back to the scene on screen, so that fields and picture agree.
    if (const ScenePtr shown = m_session->scene()) {
        const QSignalBlocker block(m_parameters);
        m_parameters->setConfig(shown->config, shown->source);
        m_parameters->setRun(runOf(*shown));
    }
}

void MainWindow::buildStatusBar() {
    m_hover = new QLabel;
    m_hover->setObjectName(QStringLiteral("hoverLabel"));
    m_timing = new QLabel;
    m_timing->setObjectName(QStringLiteral("timingLabel"));
    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("progressBar"));
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(220);
    m_progress->setFormat(tr("computing %p%"));
    m_progress->hide();
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName(QStringLiteral("cancelButton"));
    m_cancel->setToolTip(tr("Stop computing; the picture keeps the last scene (Esc)"));
    m_cancel->hide();
    connect(m_cancel, &QPushButton::clicked, this, &MainWindow::cancelComputation);
    // Not the button's own shortcut: that clicks 100 ms later, and would cancel an edit made in
    // between. Esc cancels at once, and only while Cancel is shown.
    auto* escape = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    connect(escape, &QShortcut::activated, this, [this] {
        if (m_cancel->isVisible())
            cancelComputation();
        m_stepKeys->returnToPicture();
    });
    statusBar()->addWidget(m_hover, 1);
    statusBar()->addPermanentWidget(m_timing);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);

    // Show the progress only for work that lasts, so quick edits do not flicker.
    m_progressDelay = new QTimer(this);
    m_progressDelay->setSingleShot(true);
    m_progressDelay->setInterval(120);
    connect(m_progressDelay, &QTimer::timeout, this, [this] {
        m_progress->show();
        m_cancel->show();
    });
}

void MainWindow::onBusyChanged(bool busy) {
    if (busy && !m_session->scene())
        m_equation->setText(tr("Computing the first scene…"));
    if (busy) {
        // The time on show belongs to the previous scene: say that a new one is on its way.
        m_timing->setText(tr("computing…"));
        m_progress->setValue(0);
        m_progressDelay->start();
        return;
    }
    m_progressDelay->stop();
    m_progress->hide();
    m_cancel->hide();
    if (m_session->scene() && m_timing->text() == tr("computing…"))
        m_timing->setText(m_sceneTiming);  // cancelled: the picture is still the last scene
}

void MainWindow::onSceneReady(ScenePtr scene, qint64 elapsedMs) {
    m_session->setScene(std::move(scene));
    const ScenePtr& shown = m_session->scene();
    const LayerConfig& config = shown->config;
    if (shown->source == SceneSource::Files)
        m_parameters->showArraySizes(config, shown->arrayNotices);
    m_layerTab->setScene(shown);
    // The devices run the correct split only (as tpviz-cli's --costs): a mistake keeps them on
    // the last correct scene, their tab disabled, and shows the layer. The MLP block's mistakes
    // run there too: gather-between's lesson is what it costs the devices.
    const bool correct = shown->mistake == Mistake::None || shown->mlp;
    if (correct)
        m_devices->setScene(shown);
    else if (m_views->currentWidget() == m_devices)
        m_views->setCurrentIndex(0);
    m_views->setTabEnabled(m_views->indexOf(m_devices), correct);
    m_views->setTabToolTip(m_views->indexOf(m_devices),
                           correct ? QString()
                                   : tr("The devices run the correct split: choose "
                                        "Mistake none to see them"));
    m_groups->setConfig(config, shown->mistake);
    m_stepActions->setEnabled(true);
    m_timelines->setScenes(*shown, m_devices->scene().get());
    m_sceneTiming =
        (shown->mlp
             ? tr("MLP block %1 -> %2 -> %3, %4: computed in %5 ms")
                   .arg(config.inDim)
                   .arg(config.hidden)
                   .arg(config.features)
             : tr("%1 x %2 kernel, %3: computed in %4 ms").arg(config.inDim).arg(config.features))
            .arg(QString::fromStdString(countText(config.tpSize, shown->mlp ? "device" : "group")))
            .arg(elapsedMs);
    m_timing->setText(m_sceneTiming);
    statusBar()->clearMessage();
    emit sceneShown();
}

void MainWindow::showStep(const TimelineStep& step) {
    if (!m_session->scene())
        return;
    m_equation->setText(QString::fromStdString(step.equation));
    m_caption->setText(QString::fromStdString(step.caption));
    m_groups->setStep(step);
    const int group = step.currentGroup;
    if (group >= 0)
        m_groupTable->selectRow(group);
    else
        m_groupTable->clearSelection();
}

ScenePtr MainWindow::scene() const {
    return m_session->scene();
}

StepController* MainWindow::stepController() const {
    return m_timelines->shownSteps();
}

QString MainWindow::screenshotName() const {
    return m_session->pictureName();
}

bool MainWindow::saveScreenshot(const QString& path) {
    return saveScreenshot(path, nullptr);
}

bool MainWindow::saveScreenshot(const QString& path, QString* error) {
    return writePicture(this, path, error);
}

void MainWindow::saveSettings() {
    if (!m_options.useSettings)
        return;
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("steps/intervalMs"), stepController()->intervalMs());
    if (m_parameters->problems().empty())
        saveSceneSettings(settings, m_parameters->config(), m_parameters->source());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    m_computer->cancel();  // a big scene in flight stops now rather than at its end
    saveSettings();
    QMainWindow::closeEvent(event);
}

}  // namespace tp
