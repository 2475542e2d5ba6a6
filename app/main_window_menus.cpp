// The window's menus (File, Edit, View, Go, Help) and the actions of theirs that the window
// carries out itself: Reset to defaults, the Python snippet and About tpviz.

#include "main_window.h"

#include "app_settings.h"
#include "devices/devices_view.h"
#include "files/export_actions.h"
#include "files/scene_file_actions.h"
#include "layer/simd_path.h"
#include "panels/parameter_panel.h"
#include "panels/python_dialog.h"
#include "picture/layer_panel.h"
#include "scene_session.h"
#include "steps/step_actions.h"
#include "steps/step_controller.h"
#include "steps/tab_timelines.h"

#include <QApplication>
#include <QDockWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

namespace tp {

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    (new SceneFileActions(m_session, m_options.useSettings))->addTo(file);
    file->addSeparator();
    auto* exports = new ExportActions(m_session);
    exports->addTo(file->addMenu(tr("&Export")));
    file->addAction(m_devices->mpiRunAction());
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* reset = edit->addAction(tr("&Reset to defaults"), this, &MainWindow::resetToDefaults);
    reset->setObjectName(QStringLiteral("resetToDefaultsAction"));
    reset->setToolTip(tr("The default scene (8 x 12, tp 3, seed 0) at step 0"));
    edit->addAction(exports->copyCommandLineAction());

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* zoomIn = view->addAction(tr("Zoom &in"), m_layer, &LayerPanel::zoomIn);
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    QAction* zoomOut = view->addAction(tr("Zoom &out"), m_layer, &LayerPanel::zoomOut);
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    QAction* fit = view->addAction(tr("&Fit to view"), m_layer, &LayerPanel::fitToView);
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    for (QAction* action : {zoomIn, zoomOut, fit})
        action->setToolTip(
            QStringLiteral("%1 (%2)").arg(action->text().remove(QLatin1Char('&')),
                                          action->shortcut().toString(QKeySequence::NativeText)));
    addThemeMenu(view->addMenu(tr("&Theme")), m_options.useSettings);
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());

    QMenu* go = menuBar()->addMenu(tr("&Go"));
    m_stepActions->addTo(go);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* python = help->addAction(tr("&Python snippet…"), this, &MainWindow::showPythonSnippet);
    python->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    help->addSeparator();
    help->addAction(tr("&About tpviz"), this, &MainWindow::showAbout);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::resetToDefaults() {
    m_timelines->loopSteps()->reset();
    m_timelines->programSteps()->reset();
    LayerConfig defaults;
    // The memory budget is the machine's, not the scene's (as opening a scene file keeps it).
    defaults.memoryBudgetBytes = m_parameters->config().memoryBudgetBytes;
    showConfig(defaults, SceneSource::Nnx);
    statusBar()->showMessage(tr("Back to the default scene"), 4000);
}

void MainWindow::showAbout() {
    QMessageBox about(this);
    about.setWindowTitle(tr("About tpviz"));
    about.setIconPixmap(windowIcon().pixmap(96, 96));
    about.setText(
        tr("<h3>tpviz %1</h3><p>%2</p><p>Shows how tensor parallelism splits "
           "one linear layer "
           "<code>y = x @ kernel + bias</code>: column-parallel groups compute different "
           "output columns that are concatenated; row-parallel groups compute partial "
           "sums of the same outputs that are added, with the bias added once.</p>"
           "<p>The parameters are those of <code>nnx.Linear(in_dim, features, "
           "rngs=nnx.Rngs(seed))</code>, bit for bit. The groups are simulated by a loop "
           "over array slices: no devices, no communication.</p>")
            .arg(QApplication::applicationVersion(), QString::fromStdString(simdPathLine())));
    about.exec();
}

PythonDialog* MainWindow::showPythonSnippet() {
    const SceneRequest shown = m_session->request();
    auto* dialog = new PythonDialog(shown.config, shown.source, shown.run, this);
    dialog->setObjectName(QStringLiteral("pythonDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

}  // namespace tp
