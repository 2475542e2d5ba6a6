#pragma once

// File > Open scene, Open Recent, Save scene and Save scene as: the scene on screen as a .tpviz
// file (core/io/scene_file.h) and back.

#include "io/scene_file.h"

#include <QObject>
#include <QStringList>

class QMainWindow;
class QMenu;

namespace tp {

class SceneSession;

/// The scene-file actions of one window. Each action that asks for a path only asks for it (a
/// file dialog) and hands it to openScene or saveScene, which take the path and do the work.
class SceneFileActions : public QObject {
    Q_OBJECT

public:
    /// The scene-file actions of `session` (a child of it). The recent files are kept in QSettings
    /// ("files/recentScenes") when `useSettings`, else only for the life of the window.
    SceneFileActions(SceneSession* session, bool useSettings);

    /// Adds Open scene… (Ctrl+O), Open Recent, Save scene (Ctrl+S) and Save scene as…
    /// (Ctrl+Shift+S) to `file`.
    void addTo(QMenu* file);

    /// Reads the .tpviz file at `path` and shows its scene (config, source, and its step once
    /// computed). Returns "" or the problems in words, each naming the file (and the key), also
    /// shown in the status bar; then the scene on screen stays.
    QString openScene(const QString& path);
    /// Shows `scene` as read from `path` (which becomes the current file and the first recent
    /// one): its config and source now, its step when the scene has been computed. `loaded`: the
    /// scene's arrays read already (SceneSession::show).
    void showScene(const SceneFile& scene, const QString& path,
                   std::shared_ptr<LoadedArrays> loaded = {});
    /// Writes the scene on screen (config, source, the step shown) to `path`, which becomes the
    /// current file. Returns "" or the reason, naming the file.
    QString saveScene(const QString& path);

    /// The file the scene was last opened from or saved to ("" when none).
    QString currentFile() const { return m_current; }
    /// The most recent first, at most kMaxRecent.
    QStringList recentFiles() const { return m_recent; }
    static constexpr int kMaxRecent = 8;

    /// The problems that keep a read scene from being shown in the app (tp::sceneProblems of the
    /// request it makes), each naming `path`, and the key 'mistake' for the mistake's; empty when
    /// it can be shown.
    static QStringList openProblems(const SceneFile& scene, const QString& path);

private:
    void openWithDialog();
    void openAndReport(const QString& path);
    void save();
    void saveWithDialog();
    void remember(const QString& path);
    void fillRecentMenu();
    QString dialogFolder() const;

    SceneSession* m_session;
    QMainWindow* m_window;  ///< the session's: dialogs' parent, its status bar for messages
    bool m_useSettings;
    QString m_current;
    QStringList m_recent;
    QMenu* m_recentMenu = nullptr;
    /// The step of the scene last opened, applied when the next scene is shown (-1: none).
    std::int64_t m_pendingStep = -1;
};

}  // namespace tp
