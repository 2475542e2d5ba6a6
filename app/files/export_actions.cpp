#include "export_actions.h"

#include "io/binary_file.h"
#include "picture_export.h"
#include "scene/report.h"
#include "scene/scene_arguments.h"
#include "scene/scene_arrays.h"
#include "scene/scene_options.h"
#include "scene_session.h"

#include <QAction>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QStatusBar>

namespace tp {
namespace {

// A word a POSIX shell reads as itself, or the word in single quotes (a quote inside as '\'').
QString shellWord(const QString& word) {
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./:=+,@%-]+$"));
    if (plain.match(word).hasMatch())
        return word;
    QString quoted = word;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

}  // namespace

ExportActions::ExportActions(SceneSession* session)
    : QObject(session), m_session(session), m_window(session->window()) {
    setObjectName(QStringLiteral("exportActions"));
    m_copyCommandLine = new QAction(tr("Copy &command line"), this);
    m_copyCommandLine->setObjectName(QStringLiteral("copyCommandLineAction"));
    m_copyCommandLine->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    m_copyCommandLine->setToolTip(tr("Copy the tpviz-cli command that computes this scene"));
    connect(m_copyCommandLine, &QAction::triggered, this, &ExportActions::copyCommandLine);
}

void ExportActions::addTo(QMenu* menu) {
    menu->addAction(tr("Picture as &PNG…"), this,
                    [this] { exportPictureWithDialog(QStringLiteral("png")); })
        ->setObjectName(QStringLiteral("exportPngAction"));
    menu->addAction(tr("Picture as &SVG…"), this,
                    [this] { exportPictureWithDialog(QStringLiteral("svg")); })
        ->setObjectName(QStringLiteral("exportSvgAction"));
    menu->addAction(tr("&Arrays as .npy…"), this, &ExportActions::exportArraysWithDialog)
        ->setObjectName(QStringLiteral("exportNpyAction"));
    menu->addAction(tr("&Report as JSON…"), this, &ExportActions::exportReportWithDialog)
        ->setObjectName(QStringLiteral("exportJsonAction"));
}

QString ExportActions::exportPicture(const QString& path) {
    QString error;
    if (writePicture(m_window, path, &error))
        return {};
    return tr("Could not write %1: %2").arg(path, error);
}

QString ExportActions::exportArrays(const QString& dir) {
    const ScenePtr scene = m_session->scene();
    if (!scene)
        return tr("%1: no scene has been computed yet").arg(dir);
    return QString::fromStdString(
        saveSceneArrays(*scene, dir.toStdString(), scene->backward.get()));
}

QString ExportActions::exportReport(const QString& path) {
    const ScenePtr scene = m_session->scene();
    if (!scene)
        return tr("%1: no scene has been computed yet").arg(path);
    return QString::fromStdString(writeWholeFile(path.toStdString(), {jsonReport(*scene)}));
}

std::vector<std::string> ExportActions::commandLineArguments() const {
    const SceneRequest shown = m_session->request();
    SceneOptions options;
    options.config = shown.config;
    options.source = shown.source;
    options.mistake = shown.run.mistake;
    options.backward = shown.run.backward;
    options.files = shown.files;
    return sceneArguments(options);
}

QString ExportActions::commandLine() const {
    QStringList words{QStringLiteral("tpviz-cli")};
    for (const std::string& arg : commandLineArguments())
        words << shellWord(QString::fromStdString(arg));
    return words.join(QLatin1Char(' '));
}

void ExportActions::copyCommandLine() {
    const QString text = commandLine();
    QGuiApplication::clipboard()->setText(text);
    m_window->statusBar()->showMessage(tr("Copied: %1").arg(text), 6000);
}

QString ExportActions::suggestedPath(const QString& suffix) const {
    const QString base = QFileInfo(m_session->pictureName()).completeBaseName();
    return QDir::current().filePath(suffix.isEmpty() ? base : base + QLatin1Char('.') + suffix);
}

void ExportActions::report(const QString& title, const QString& path, const QString& error) {
    if (error.isEmpty())
        m_window->statusBar()->showMessage(tr("Exported %1").arg(path), 4000);
    else
        QMessageBox::warning(m_window, title, error);
}

void ExportActions::exportPictureWithDialog(const QString& suffix) {
    const bool svg = suffix == QLatin1String("svg");
    const QString title = svg ? tr("Export picture as SVG") : tr("Export picture as PNG");
    QString path =
        QFileDialog::getSaveFileName(m_window, title, suggestedPath(suffix),
                                     svg ? tr("SVG drawings (*.svg)") : tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QLatin1Char('.') + suffix;
    report(title, path, exportPicture(path));
}

void ExportActions::exportArraysWithDialog() {
    const QString title = tr("Export arrays as .npy");
    const QString dir = QFileDialog::getExistingDirectory(m_window, title, QDir::currentPath());
    if (!dir.isEmpty())
        report(title, dir, exportArrays(dir));
}

void ExportActions::exportReportWithDialog() {
    const QString title = tr("Export report as JSON");
    QString path = QFileDialog::getSaveFileName(
        m_window, title, suggestedPath(QStringLiteral("json")), tr("JSON (*.json)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".json");
    report(title, path, exportReport(path));
}

}  // namespace tp
