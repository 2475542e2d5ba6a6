#pragma once

// The parameters and the window state that tpviz remembers between runs (QSettings).

#include "layer/layer_config.h"
#include "scene/scene.h"

#include <QString>

class QMenu;

class QSettings;

namespace tp {

/// Writes the scene's parameters under "scene/file", as the text of a .tpviz scene file (so every
/// setting a scene file holds, the mesh's data size and output layout among them, is kept).
void saveSceneSettings(QSettings& settings, const LayerConfig& config, SceneSource source);

/// Reads the parameters saved by saveSceneSettings; the defaults for anything the text leaves out,
/// and the defaults in full if nothing was saved, the text does not parse or the config does not
/// validate.
std::pair<LayerConfig, SceneSource> loadSceneSettings(const QSettings& settings);

/// The window's colours: the platform's own, or Fusion with a light or a dark palette.
enum class Theme { System, Light, Dark };

/// "system", "light", "dark" and back; anything else reads as System.
QString themeName(Theme theme);
Theme themeFromName(const QString& name);

/// Applies `theme` to the whole application: System restores the palette and style the app
/// started with; Light and Dark use the Fusion style with a light or dark QPalette (window
/// #2b2b2b, text #e6e6e6, secondary text #a8a8a8 in the dark one).
void applyTheme(Theme theme);

/// Fills `menu` with one checkable action per theme ("theme-system", "theme-light", "theme-dark")
/// that applies it, and, with `useSettings`, applies the saved one now and saves each choice
/// ("view/theme").
void addThemeMenu(QMenu* menu, bool useSettings);

}  // namespace tp
