#pragma once

// The inputs of a layer whose arrays come from files: the kernel (an .npy file, or a 2-D tensor of
// a .safetensors file, optionally transposed), and optionally the bias and x, each with its
// problem shown right under it.

#include "io/array_source.h"
#include "layer/layer_config.h"

#include <QStringList>
#include <QWidget>

#include <map>
#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;

namespace tp {

/// Edits a tp::ArrayFiles. The file fields can be typed into or filled by "Choose…" (a file
/// dialog that only asks for the path). For a .safetensors kernel, a list offers the file's 2-D
/// tensors, read from its header (readSafetensorsIndex). Reading the arrays themselves is left to
/// the scene computer, off the UI thread; its problems come back through showProblems.
class ArrayFileInputs : public QWidget {
    Q_OBJECT

public:
    explicit ArrayFileInputs(QWidget* parent = nullptr);

    /// The files the inputs name now; the kernel as "FILE.npy" or "FILE.safetensors:TENSOR".
    ArrayFiles files() const;
    /// Shows `files` in the inputs (without announcing them).
    void setFiles(const ArrayFiles& files);

    /// The problems the inputs have before any array is read: no kernel file, a .safetensors
    /// header that cannot be read or holds no 2-D tensor. Each tagged "kernel: ".
    QStringList inputProblems() const;
    /// Shows each problem under the input its tag names ("kernel: ", "bias: ", "x: "), an
    /// untagged one beside the kernel (whose shape sets the sizes). An empty list clears them.
    void showProblems(const QStringList& problems);
    /// The message under an input, "kernel", "bias" or "x" ("" when none).
    QString problemText(const QString& input) const;
    /// Says the shapes the files gave: kernel (in_dim, features), bias and x; and under them, in
    /// lines that wrap, what reading did to the values ("note: kernel: w.npy: converted from
    /// float64 to float32 ...", Scene::arrayNotices), hidden when nothing was.
    void showShapes(const LayerConfig& config, const std::vector<std::string>& notices = {});

signals:
    /// A file, the tensor or the transpose changed.
    void edited();

private:
    QLineEdit* addFileRow(QFormLayout* form, const QString& label, const QString& name,
                          const QString& tip);
    void readKernelHeader();

    QLineEdit* m_kernel = nullptr;
    QComboBox* m_tensor = nullptr;
    QCheckBox* m_transpose = nullptr;
    QLineEdit* m_bias = nullptr;
    QLineEdit* m_x = nullptr;
    QLabel* m_shapes = nullptr;
    QLabel* m_notices = nullptr;  ///< what reading the files did to their values, or hidden
    QFormLayout* m_form = nullptr;
    QString m_headerProblem;  ///< the kernel's .safetensors header, when it cannot be used
    bool m_filling = false;
    std::map<QString, QLabel*> m_problems;  ///< "kernel", "bias", "x"
};

}  // namespace tp
