#pragma once

// A runnable JAX/Flax script of the scene on screen, to copy and run.

#include "layer/layer_config.h"
#include "scene/scene.h"

#include <QDialog>

class QPlainTextEdit;

namespace tp {

/// Shows tp::pythonSnippet(config, run.mistake, run.check) in a read-only editor with a Copy
/// button: with a mistake, the wrong code marked and the check that exposes it.
class PythonDialog : public QDialog {
    Q_OBJECT

public:
    PythonDialog(const LayerConfig& config, SceneSource source, const SceneRun& run = {},
                 QWidget* parent = nullptr);

    QString script() const;

private:
    QPlainTextEdit* m_text;
};

}  // namespace tp
