#include "scene_file_actions.h"

#include "scene_session.h"
#include "steps/step_controller.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

namespace tp {
namespace {

const QString kRecentKey = QStringLiteral("files/recentScenes");

}  // namespace

SceneFileActions::SceneFileActions(SceneSession* session, bool useSettings)
    : QObject(session),
      m_session(session),
      m_window(session->window()),
      m_useSettings(useSettings) {
    setObjectName(QStringLiteral("sceneFileActions"));
    if (m_useSettings)
        m_recent = QSettings().value(kRecentKey).toStringList().mid(0, kMaxRecent);
    connect(m_session, &SceneSession::sceneShown, this, [this] {
        if (m_pendingStep < 0)
            return;
        StepController* steps = m_session->steps();
        steps->setStep(int(std::min<std::int64_t>(m_pendingStep, steps->lastStep())));
        m_pendingStep = -1;
    });
}

void SceneFileActions::addTo(QMenu* file) {
    QAction* open = file->addAction(tr("&Open scene…"), this, &SceneFileActions::openWithDialog);
    open->setObjectName(QStringLiteral("openSceneAction"));
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(QStringLiteral("recentScenesMenu"));
    fillRecentMenu();
    QAction* save = file->addAction(tr("&Save scene"), this, &SceneFileActions::save);
    save->setObjectName(QStringLiteral("saveSceneAction"));
    save->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_S));
    save->setToolTip(tr("Save the scene to its file, or ask for one"));
    QAction* saveAs =
        file->addAction(tr("Save scene &as…"), this, &SceneFileActions::saveWithDialog);
    saveAs->setObjectName(QStringLiteral("saveSceneAsAction"));
    saveAs->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
}

QStringList SceneFileActions::openProblems(const SceneFile& scene, const QString& path) {
    QStringList problems;
    // The file's keys for the mistake and the backward; the other problems belong to the config
    // it gives.
    const SceneRun run{scene.mistake, {}, scene.backward};
    for (const ConfigProblem& problem :
         tp::sceneProblems({scene.config, scene.source, run, scene.arrays}))
        problems << QStringLiteral("%1: %2%3")
                        .arg(path,
                             problem.field == ConfigField::Mistake ? QStringLiteral("'mistake' ")
                             : problem.field == ConfigField::Backward
                                 ? QStringLiteral("'backward' ")
                                 : QString(),
                             QString::fromStdString(problem.message));
    return problems;
}

QString SceneFileActions::openScene(const QString& path) {
    const SceneFileRead read = readSceneFile(path.toStdString());
    QStringList problems;
    for (const std::string& error : read.errors)
        problems << QString::fromStdString(error);
    if (read.scene) {
        SceneFile scene = *read.scene;
        // The window's budget, not the default one: a scene file does not carry it.
        scene.config.memoryBudgetBytes = m_session->inputs().config.memoryBudgetBytes;
        problems << openProblems(scene, path);
        if (problems.isEmpty()) {
            showScene(scene, path);
            m_window->statusBar()->showMessage(tr("Opened %1").arg(path), 4000);
            return {};
        }
    }
    const QString message = problems.join(QLatin1Char('\n'));
    m_window->statusBar()->showMessage(
        tr("Could not open %1; the scene on screen stays").arg(QFileInfo(path).fileName()), 10000);
    return message;
}

void SceneFileActions::showScene(const SceneFile& scene, const QString& path,
                                 std::shared_ptr<LoadedArrays> loaded) {
    m_pendingStep = scene.step;
    // The file names the mistake and the pass; the check's rule stays the one chosen in the window.
    SceneRun run = m_session->inputs().run;
    run.mistake = scene.mistake;
    run.backward = scene.backward;
    m_session->show({scene.config, scene.source, run, scene.arrays}, std::move(loaded));
    m_current = path;
    remember(path);
}

QString SceneFileActions::saveScene(const QString& path) {
    const SceneRequest shown = m_session->request();
    SceneFile scene;
    scene.config = shown.config;
    scene.source = shown.source;
    scene.mistake = shown.run.mistake;
    scene.backward = shown.run.backward;
    scene.arrays = shown.files;
    scene.step = m_session->steps()->step();
    if (const std::string error = writeSceneFile(path.toStdString(), scene); !error.empty())
        return QString::fromStdString(error);
    m_current = path;
    remember(path);
    m_window->statusBar()->showMessage(tr("Saved the scene to %1").arg(path), 4000);
    return {};
}

void SceneFileActions::openAndReport(const QString& path) {
    const QString error = openScene(path);
    if (error.isEmpty())
        return;
    if (!QFileInfo::exists(path)) {  // a recent file that is gone leaves the list
        m_recent.removeAll(path);
        remember({});
    }
    QMessageBox::warning(
        m_window, tr("Open scene"),
        tr("Could not open the scene; the scene on screen stays.\n\n%1").arg(error));
}

void SceneFileActions::openWithDialog() {
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Open scene"), dialogFolder(),
                                                      tr("tpviz scenes (*.tpviz);;All files (*)"));
    if (!path.isEmpty())
        openAndReport(path);
}

void SceneFileActions::save() {
    if (m_current.isEmpty()) {
        saveWithDialog();
        return;
    }
    if (const QString error = saveScene(m_current); !error.isEmpty())
        QMessageBox::warning(m_window, tr("Save scene"), error);
}

void SceneFileActions::saveWithDialog() {
    const QString name =
        QFileInfo(m_session->pictureName()).completeBaseName() + QStringLiteral(".tpviz");
    QString path = QFileDialog::getSaveFileName(m_window, tr("Save scene"),
                                                QDir(dialogFolder()).filePath(name),
                                                tr("tpviz scenes (*.tpviz)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".tpviz");
    if (const QString error = saveScene(path); !error.isEmpty())
        QMessageBox::warning(m_window, tr("Save scene"), error);
}

QString SceneFileActions::dialogFolder() const {
    const QString last = m_current.isEmpty() && !m_recent.isEmpty() ? m_recent.first() : m_current;
    return last.isEmpty() ? QDir::currentPath() : QFileInfo(last).absolutePath();
}

void SceneFileActions::remember(const QString& path) {
    if (!path.isEmpty()) {
        const QString absolute = QFileInfo(path).absoluteFilePath();
        m_recent.removeAll(absolute);
        m_recent.prepend(absolute);
        m_recent = m_recent.mid(0, kMaxRecent);
    }
    if (m_useSettings)
        QSettings().setValue(kRecentKey, m_recent);
    fillRecentMenu();
}

void SceneFileActions::fillRecentMenu() {
    if (!m_recentMenu)
        return;
    // Not clear(): the list changes while one of its items is being triggered.
    for (QAction* old : m_recentMenu->actions()) {
        m_recentMenu->removeAction(old);
        old->deleteLater();
    }
    for (int i = 0; i < m_recent.size(); ++i) {
        const QString path = m_recent[i];
        QAction* item = m_recentMenu->addAction(
            QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()), this,
            [this, path] { openAndReport(path); });
        item->setToolTip(path);
        item->setStatusTip(path);
    }
    if (m_recent.isEmpty()) {
        m_recentMenu->addAction(tr("No recent scenes"))->setEnabled(false);
        return;
    }
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(tr("&Clear the list"), this, [this] {
        m_recent.clear();
        remember({});
    });
}

}  // namespace tp
