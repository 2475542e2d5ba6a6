#pragma once

// The parameter inputs of a scene, each with its validation message right under it.

#include "io/array_source.h"
#include "layer/layer_config.h"
#include "scene/scene.h"

#include <QStringList>
#include <QWidget>

#include <map>
#include <optional>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;
class QVBoxLayout;

namespace tp {

class ArrayFileInputs;

/// Edits a LayerConfig and its SceneSource, and how the scene runs (SceneRun: a mistake made on
/// purpose and the check's rule). Every edit revalidates the request the inputs make
/// (sceneProblems); each problem is shown next to the input it belongs to (field by field), and
/// only a valid config is announced through configEdited. tp_size offers the divisors of the split
/// dimension and accepts any typed value, saying why a refused one is refused.
class ParameterPanel : public QWidget {
    Q_OBJECT

public:
    explicit ParameterPanel(QWidget* parent = nullptr);

    /// Shows a config in the inputs (without announcing it); the run's inputs stay as they are.
    void setConfig(const LayerConfig& config, SceneSource source);
    /// Shows a run (the mistake, the check's rule and tolerances) in the inputs (without
    /// announcing it).
    void setRun(const SceneRun& run);

    /// The config as the inputs read now; check problems() before using it.
    LayerConfig config() const { return m_config; }
    SceneSource source() const { return m_source; }
    /// The array files the inputs name (used when source() is SceneSource::Files).
    ArrayFiles arrayFiles() const;
    /// Shows array files in the inputs (without announcing them); setConfig with
    /// SceneSource::Files then uses them.
    void setArrayFiles(const ArrayFiles& files);
    /// Shows the problems met reading the array files (each tagged "kernel: ", "bias: " or
    /// "x: ") under their inputs; the picture stays the last good one.
    void showArrayProblems(const QStringList& problems);
    /// Shows the sizes the array files gave (a scene computed from them) in the size inputs, and
    /// its tp_size (the nearest divisor when the files' sizes moved it), with what reading the
    /// files did to their values (`notices`, Scene::arrayNotices).
    void showArraySizes(const LayerConfig& config, const std::vector<std::string>& notices = {});
    /// The message under an array file's input, "kernel", "bias" or "x" ("" when none).
    QString arrayProblemText(const QString& input) const;
    ArrayFileInputs* arrayFileInputs() const { return m_files; }
    /// The run as the inputs read now (the mistake and the check); check problems() before use.
    const SceneRun& run() const { return m_run; }
    /// Every problem with the inputs now (parsing and validation); empty when valid. With
    /// SceneSource::Files the sizes are the files', checked by the scene computer once it has read
    /// them (SceneComputer::arraysRefused); the file inputs' own problems are arrayProblems().
    const std::vector<ConfigProblem>& problems() const { return m_problems; }
    /// With SceneSource::Files, the file inputs' problems before any file is read (no kernel file,
    /// an unreadable .safetensors header), each tagged "kernel: "; empty otherwise. The inputs
    /// are announced only when both this and problems() are empty.
    const QStringList& arrayProblems() const { return m_arrayProblems; }
    /// The message shown next to a field's input ("" when none).
    QString problemText(ConfigField field) const;
    /// The note under tp_size after a mode switch moved it ("" when none).
    QString tpNoteText() const;
    /// Shows `note` under tp_size, as a mode switch does when it moves tp_size (moveTpToDivisor):
    /// the command line's --mode moves it too.
    void showTpNote(const QString& note);

    /// Puts `bias` in the Bias inputs and announces the inputs as any edit does.
    void chooseBias(const BiasInit& bias);

signals:
    /// The inputs changed and form a valid config, to be run as `run` says.
    void configEdited(const tp::LayerConfig& config, tp::SceneSource source,
                      const tp::SceneRun& run);
    /// The inputs changed and are invalid; the picture on screen is the last valid one.
    void configRefused();

private:
    void buildForm();
    void readInputs();
    void showProblems();
    /// Scrolls the scroll area the panel sits in (if any) to show `widget`, a refusal that just
    /// appeared, which may be below the visible part of the panel (the seed, the bias stddev).
    void scrollIntoView(QWidget* widget);
    void fillTpChoices();
    /// The Mistake combo lists the mistakes of `block` (blockMistakes), keeping the one chosen when
    /// it is among them.
    void fillMistakes(Block block);
    void addMistakeItem(Mistake mistake);
    /// The inputs that mean something for the block on: the Mode is one Linear's, hidden the
    /// block's; the first box's title gives the block's formula.
    void showBlockInputs(Block block);
    void updateEnabled();
    QLabel* addProblemRow(QFormLayout* form, ConfigField field);

    // The device mesh: data D, the output layout and the sharding layout (their own box, after
    // the split).
    void buildMeshBox(QVBoxLayout* layout);
    void showMeshInputs(const LayerConfig& config);
    void readMeshInputs(LayerConfig& config) const;

    // How the scene runs: the mistake and the check's rule (scene_run_inputs.cpp).
    void buildRunBox(QVBoxLayout* layout);
    void showRunInputs(const SceneRun& run);
    /// The run the inputs say, with the problems of their text (the tolerances) appended to
    /// `problems`; whether the mistake fits the scene is sceneProblems'.
    SceneRun readRunInputs(std::vector<ConfigProblem>& problems) const;

    LayerConfig m_config;
    SceneSource m_source = SceneSource::Nnx;
    SceneRun m_run;
    std::vector<ConfigProblem> m_problems;
    bool m_filling = false;

    QComboBox* m_sourceBox = nullptr;
    QComboBox* m_block = nullptr;  ///< one Linear, or the MLP block (LayerConfig::block)
    QSpinBox* m_hidden = nullptr;  ///< the MLP block's hidden width
    QFormLayout* m_layerForm = nullptr;
    ArrayFileInputs* m_files = nullptr;
    QStringList m_arrayProblems;  ///< ArrayFileInputs::inputProblems while the files are used
    QSpinBox* m_batch = nullptr;
    QSpinBox* m_inDim = nullptr;
    QSpinBox* m_features = nullptr;
    QComboBox* m_mode = nullptr;
    QComboBox* m_tp = nullptr;
    QLineEdit* m_seed = nullptr;
    QComboBox* m_prng = nullptr;
    QCheckBox* m_x64 = nullptr;
    QComboBox* m_biasKind = nullptr;
    QLineEdit* m_biasStddev = nullptr;
    QLabel* m_memory = nullptr;
    QSpinBox* m_data = nullptr;
    QComboBox* m_output = nullptr;
    QComboBox* m_layout = nullptr;  ///< tensor, fsdp or sequence (LayerConfig::layout)
    QComboBox* m_pass = nullptr;    ///< Forward, or Forward + backward (SceneRun::backward)
    QComboBox* m_mistake = nullptr;
    QComboBox* m_rule = nullptr;
    QLineEdit* m_rtol = nullptr;
    QLineEdit* m_atol = nullptr;
    QLabel* m_tpNote = nullptr;  ///< says when a mode switch moved tp_size
    QFormLayout* m_tpForm = nullptr;
    std::optional<LayerConfig> m_seededConfig;  ///< the seeded settings while the example shows
    std::map<ConfigField, std::pair<QFormLayout*, QLabel*>> m_problemLabels;
};

}  // namespace tp
