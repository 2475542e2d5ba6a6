#include "array_file_inputs.h"

#include "io/safetensors.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

namespace tp {
namespace {

bool isSafetensors(const QString& file) {
    return file.endsWith(QStringLiteral(".safetensors"), Qt::CaseInsensitive);
}

}  // namespace

ArrayFileInputs::ArrayFileInputs(QWidget* parent) : QWidget(parent) {
    m_form = new QFormLayout(this);
    m_form->setContentsMargins(0, 0, 0, 0);
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_kernel = addFileRow(m_form, tr("Kernel file"), QStringLiteral("kernel"),
                          tr("The kernel (in_dim, features): an .npy file, or a .safetensors file "
                             "and one of its 2-D tensors. Its shape sets in_dim and features"));
    m_tensor = new QComboBox;
    m_tensor->setObjectName(QStringLiteral("kernelTensorBox"));
    m_tensor->setToolTip(tr("The .safetensors file's 2-D tensors, from its header"));
    m_form->insertRow(1, tr("Tensor"), m_tensor);
    m_form->setRowVisible(m_tensor, false);
    // Short words on the checkbox (wrapped labels lose their height in the narrow dock); the
    // tooltip says the rest.
    m_transpose = new QCheckBox(tr("(features, in_dim)"));
    m_transpose->setObjectName(QStringLiteral("transposeBox"));
    m_transpose->setToolTip(
        tr("PyTorch's Linear.weight is stored (features, in_dim). Unchecked, the kernel file holds "
           "(in_dim, features) as nnx.Linear's kernel; checked, (features, in_dim), transposed on "
           "reading"));
    m_form->insertRow(2, tr("Transpose"), m_transpose);
    m_bias = addFileRow(m_form, tr("Bias file"), QStringLiteral("bias"),
                        tr("Optional: the bias (features,). Empty: drawn as the Bias input says"));
    m_x = addFileRow(m_form, tr("x file"), QStringLiteral("x"),
                     tr("Optional: x (batch, in_dim); its shape sets the batch. Empty: drawn "
                        "from the seed"));
    m_shapes = new QLabel;
    m_shapes->setObjectName(QStringLiteral("arrayShapes"));
    // One short line per array, not wrapped, and never squeezed: the form gives a label no less
    // than its height only when the label asks for exactly that.
    m_shapes->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    m_form->addRow(QString(), m_shapes);
    // Paths can be long: these lines wrap, where the shapes' do not.
    m_notices = new QLabel;
    m_notices->setObjectName(QStringLiteral("arrayNotices"));
    m_notices->setWordWrap(true);
    m_notices->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_form->addRow(QString(), m_notices);
    m_form->setRowVisible(m_notices, false);

    connect(m_kernel, &QLineEdit::textChanged, this, [this] {
        readKernelHeader();
        if (!m_filling)
            emit edited();
    });
    for (QLineEdit* edit : {m_bias, m_x})
        connect(edit, &QLineEdit::textChanged, this, [this] {
            if (!m_filling)
                emit edited();
        });
    connect(m_tensor, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_filling)
            emit edited();
    });
    connect(m_transpose, &QCheckBox::toggled, this, [this] {
        if (!m_filling)
            emit edited();
    });
}

QLineEdit* ArrayFileInputs::addFileRow(QFormLayout* form, const QString& label, const QString& name,
                                       const QString& tip) {
    auto* row = new QWidget;
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* edit = new QLineEdit;
    edit->setObjectName(name + QStringLiteral("FileEdit"));
    edit->setToolTip(tip);
    edit->setPlaceholderText(name == QStringLiteral("kernel") ? tr("FILE.npy or FILE.safetensors")
                                                              : tr("none"));
    auto* choose = new QPushButton(tr("Choose…"));
    choose->setObjectName(name + QStringLiteral("ChooseButton"));
    layout->addWidget(edit, 1);
    layout->addWidget(choose);
    form->addRow(label, row);
    auto* problem = new QLabel;
    problem->setObjectName(name + QStringLiteral("FileProblem"));
    problem->setWordWrap(true);
    problem->setTextInteractionFlags(Qt::TextSelectableByMouse);
    problem->setStyleSheet(QStringLiteral("color: #c62828;"));
    form->addRow(QString(), problem);
    form->setRowVisible(problem, false);
    m_problems[name] = problem;
    connect(choose, &QPushButton::clicked, this, [this, edit, label] {
        const QString file = QFileDialog::getOpenFileName(
            this, label, splitArraySpec(edit->text().toStdString()).file.c_str(),
            tr("Arrays (*.npy *.safetensors);;All files (*)"));
        if (!file.isEmpty())
            edit->setText(file);
    });
    return edit;
}

void ArrayFileInputs::readKernelHeader() {
    const ArraySpec spec = splitArraySpec(m_kernel->text().trimmed().toStdString());
    const QString file = QString::fromStdString(spec.file);
    const bool safetensors = isSafetensors(file);
    m_headerProblem.clear();
    const QString chosen =
        spec.tensor ? QString::fromStdString(*spec.tensor) : m_tensor->currentText();
    const bool wasFilling = m_filling;
    m_filling = true;
    m_tensor->clear();
    if (safetensors) {
        // The header only: the tensors' names and shapes, checked against the file's length.
        const SafetensorsIndexRead read = readSafetensorsIndex(spec.file);
        if (!read.index) {
            m_headerProblem = QString::fromStdString(read.error);
        } else {
            for (const std::string& name : read.index->twoDimensionalNames()) {
                const SafetensorsTensor* tensor = read.index->find(name);
                m_tensor->addItem(QStringLiteral("%1  %2 %3")
                                      .arg(QString::fromStdString(name),
                                           QString::fromStdString(shapeText(tensor->shape)),
                                           QString::fromStdString(tensor->dtype)),
                                  QString::fromStdString(name));
            }
            if (m_tensor->count() == 0)
                m_headerProblem =
                    tr("%1 holds no 2-D tensor; a kernel is (in_dim, features)").arg(file);
            const int index = m_tensor->findData(chosen);
            m_tensor->setCurrentIndex(index >= 0 ? index : 0);
        }
    }
    m_form->setRowVisible(m_tensor, safetensors && m_headerProblem.isEmpty());
    m_filling = wasFilling;
}

ArrayFiles ArrayFileInputs::files() const {
    ArrayFiles files;
    ArraySpec kernel = splitArraySpec(m_kernel->text().trimmed().toStdString());
    if (isSafetensors(QString::fromStdString(kernel.file)) && m_tensor->currentIndex() >= 0)
        kernel.tensor = m_tensor->currentData().toString().toStdString();
    files.kernel = kernel.file.empty() ? std::string() : joinArraySpec(kernel);
    files.transpose = m_transpose->isChecked();
    files.bias = m_bias->text().trimmed().toStdString();
    files.x = m_x->text().trimmed().toStdString();
    return files;
}

void ArrayFileInputs::setFiles(const ArrayFiles& files) {
    m_filling = true;
    m_kernel->setText(QString::fromStdString(files.kernel));
    m_transpose->setChecked(files.transpose);
    m_bias->setText(QString::fromStdString(files.bias));
    m_x->setText(QString::fromStdString(files.x));
    m_filling = false;
}

QStringList ArrayFileInputs::inputProblems() const {
    if (m_kernel->text().trimmed().isEmpty())
        return {
            tr("kernel: choose a kernel file, an .npy file or a .safetensors file and one of "
               "its 2-D tensors")};
    if (!m_headerProblem.isEmpty())
        return {QStringLiteral("kernel: ") + m_headerProblem};
    return {};
}

void ArrayFileInputs::showProblems(const QStringList& problems) {
    std::map<QString, QStringList> placed;
    for (const QString& problem : problems) {
        // Under the input its tag names; a problem of the sizes together (no tag) beside the
        // kernel, whose shape sets them.
        const QString tag = problem.section(QStringLiteral(": "), 0, 0);
        placed[m_problems.contains(tag) ? tag : QStringLiteral("kernel")] << problem;
    }
    for (const auto& [name, label] : m_problems) {
        const QStringList& messages = placed[name];
        label->setText(messages.join(QLatin1Char('\n')));
        m_form->setRowVisible(label, !messages.isEmpty());
    }
}

QString ArrayFileInputs::problemText(const QString& input) const {
    const auto it = m_problems.find(input);
    return it == m_problems.end() ? QString() : it->second->text();
}

void ArrayFileInputs::showShapes(const LayerConfig& config,
                                 const std::vector<std::string>& notices) {
    const ArrayFiles given = files();
    QStringList lines;
    lines << tr("kernel (in_dim, features) = (%1, %2)").arg(config.inDim).arg(config.features);
    lines << (given.bias.empty() ? tr("bias (%1,) drawn").arg(config.features)
                                 : tr("bias (%1,) from the file").arg(config.features));
    lines << (given.x.empty()
                  ? tr("x (%1, %2) drawn from the seed").arg(config.batch).arg(config.inDim)
                  : tr("x (%1, %2) from the file").arg(config.batch).arg(config.inDim));
    m_shapes->setText(lines.join(QLatin1Char('\n')));
    QStringList noted;  // what reading changed in the values
    for (const std::string& notice : notices)
        noted << tr("note: %1").arg(QString::fromStdString(notice));
    m_notices->setText(noted.join(QLatin1Char('\n')));
    m_form->setRowVisible(m_notices, !noted.isEmpty());
}

}  // namespace tp
