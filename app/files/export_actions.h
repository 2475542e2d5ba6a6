#pragma once

// File > Export (the picture as PNG or SVG, the arrays as .npy files, the report as JSON) and
// Edit > Copy command line, for the scene on screen.

#include <QObject>
#include <QStringList>

#include <string>
#include <vector>

class QAction;
class QMainWindow;
class QMenu;

namespace tp {

class SceneSession;

/// The export actions of one window's scene session. Each action that asks for a path only asks for
/// it (a file dialog) and hands it to the export function of the same name, which takes the path
/// and does the work; each returns "" or the reason in words, naming the file.
class ExportActions : public QObject {
    Q_OBJECT

public:
    /// The export actions of `session` (a child of it).
    explicit ExportActions(SceneSession* session);

    /// Adds Picture as PNG…, Picture as SVG…, Arrays as .npy…, Report as JSON… to `menu`.
    void addTo(QMenu* menu);
    /// Edit > Copy command line (Ctrl+Shift+C).
    QAction* copyCommandLineAction() const { return m_copyCommandLine; }

    /// The session's window as a picture (tp::writePicture): PNG, or SVG when `path` ends .svg.
    QString exportPicture(const QString& path);
    /// The scene's arrays as .npy files into the folder `dir` (tp::saveSceneArrays, as tpviz-cli
    /// --save-npy writes them; the names are tp::sceneArrayFileNames).
    QString exportArrays(const QString& dir);
    /// The scene's report as JSON (tp::jsonReport, as tpviz-cli --json prints it).
    QString exportReport(const QString& path);

    /// The tpviz-cli arguments that rebuild the scene on screen (tp::sceneArguments).
    std::vector<std::string> commandLineArguments() const;
    /// "tpviz-cli" and those arguments, each quoted for a POSIX shell where it needs it.
    QString commandLine() const;
    /// Puts commandLine() on the clipboard.
    void copyCommandLine();

private:
    void exportPictureWithDialog(const QString& suffix);
    void exportArraysWithDialog();
    void exportReportWithDialog();
    void report(const QString& title, const QString& path, const QString& error);
    QString suggestedPath(const QString& suffix) const;

    SceneSession* m_session;
    QMainWindow* m_window;  ///< the session's: what a picture shows, dialogs' parent
    QAction* m_copyCommandLine;
};

}  // namespace tp
