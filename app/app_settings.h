#pragma once

// The parameters and the window state that tpviz remembers between runs (QSettings).

#include "layer_config.h"
#include "scene.h"

class QSettings;

namespace tp {

/// Writes the scene's parameters under "scene/".
void saveSceneSettings(QSettings& settings, const LayerConfig& config, SceneSource source);

/// Reads the parameters saved by saveSceneSettings; the defaults for anything missing, and the
/// defaults in full if the saved config does not validate.
std::pair<LayerConfig, SceneSource> loadSceneSettings(const QSettings& settings);

}  // namespace tp
