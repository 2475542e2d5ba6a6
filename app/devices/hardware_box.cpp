#include "hardware_box.h"

#include "io/hardware_file.h"
#include "mpi_launch.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTime>
#include <QVBoxLayout>

namespace tp {
namespace {

QString text(const std::string& s) {
    return QString::fromStdString(s);
}

// The reader's problems, each without the "path: " it starts with (the message names the file).
QString problemsText(const std::vector<std::string>& problems, const QString& path) {
    const std::string where = path.toStdString() + ": ";
    QStringList words;
    for (const std::string& problem : problems)
        words << text(problem.starts_with(where) ? problem.substr(where.size()) : problem);
    return words.join(QStringLiteral("; "));
}

}  // namespace

HardwareBox::HardwareBox(QWidget* parent) : QWidget(parent), m_launcher(new MpiLauncher(this)) {
    m_combo = new QComboBox;
    m_combo->setObjectName(QStringLiteral("hardwareBox"));
    for (const HardwarePreset& preset : hardwarePresets()) {
        m_combo->addItem(text(preset.name));
        m_combo->setItemData(m_combo->count() - 1, text(preset.description), Qt::ToolTipRole);
    }
    m_combo->insertSeparator(m_combo->count());
    m_combo->addItem(tr("calibrate this machine…"));
    m_combo->setItemData(m_combo->count() - 1,
                         tr("Measures this machine's collectives and products with tpviz-mpi "
                            "--calibrate on 2 MPI ranks, in the background, and adds the preset"),
                         Qt::ToolTipRole);
    m_combo->addItem(tr("preset from a file…"));
    m_combo->setItemData(m_combo->count() - 1,
                         tr("Reads a preset's figures from a JSON file, as --hardware FILE.json "
                            "does (tpviz-mpi --calibrate --output FILE writes one)"),
                         Qt::ToolTipRole);
    m_message = new QLabel;
    m_message->setObjectName(QStringLiteral("hardwareMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();
    m_busy = new QProgressBar;
    m_busy->setObjectName(QStringLiteral("calibrationBusy"));
    m_busy->setRange(0, 0);  // busy: no end is known
    m_busy->setMaximumHeight(12);
    m_busy->setTextVisible(false);
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName(QStringLiteral("calibrationCancel"));
    auto* busyRow = new QHBoxLayout;
    busyRow->setContentsMargins(0, 0, 0, 0);
    busyRow->addWidget(m_busy, 1);
    busyRow->addWidget(m_cancel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_combo);
    layout->addLayout(busyRow);
    layout->addWidget(m_message);
    setBusy(false);
    connect(m_combo, &QComboBox::currentIndexChanged, this, &HardwareBox::onChosen);
    connect(m_cancel, &QPushButton::clicked, m_launcher, &MpiLauncher::cancel);
    connect(m_launcher, &MpiLauncher::finished, this, &HardwareBox::onCalibrated);
}

int HardwareBox::calibrateRow() const {
    return m_combo->count() - 2;
}

int HardwareBox::fileRow() const {
    return m_combo->count() - 1;
}

const HardwarePreset& HardwareBox::hardware() const {
    const std::size_t builtIn = hardwarePresets().size();
    const std::size_t row = std::size_t(m_selectedRow);
    return row < builtIn ? hardwarePresets()[row] : m_added[row - builtIn];
}

bool HardwareBox::selectHardware(const QString& name) {
    const int row = m_combo->findText(name);
    if (row < 0 || row >= calibrateRow() - 1)
        return false;
    m_combo->setCurrentIndex(row);
    return true;
}

void HardwareBox::onChosen(int row) {
    if (row < 0)
        return;
    if (row < calibrateRow() - 1) {  // a preset (the separator cannot be chosen)
        m_selectedRow = row;
        emit hardwareChanged();
        return;
    }
    {
        // The entries are actions, not presets: the combo stays on the preset it was on.
        const QSignalBlocker blocker(m_combo);
        m_combo->setCurrentIndex(m_selectedRow);
    }
    if (row == calibrateRow()) {
        calibrate();
    } else {
        const QString path = QFileDialog::getOpenFileName(this, tr("Hardware preset"), QString(),
                                                          tr("Hardware presets (*.json)"));
        if (!path.isEmpty())
            addPresetFile(path);
    }
}

bool HardwareBox::addPresetFile(const QString& path) {
    const HardwareFileRead read = readHardwareFile(path.toStdString());
    if (!read.preset) {
        showMessage(tr("%1 was not added: %2").arg(path, problemsText(read.problems, path)), true);
        return false;
    }
    HardwarePreset preset = *read.preset;
    // A name the combo has already (this-machine's own file) is told apart by the file's.
    if (m_combo->findText(text(preset.name)) >= 0)
        preset.name += " (" + QFileInfo(path).fileName().toStdString() + ")";
    showMessage(tr("%1 read from %2").arg(text(preset.name), path), false);
    addPreset(std::move(preset));
    return true;
}

void HardwareBox::calibrate() {
    if (m_launcher->isRunning()) {
        showMessage(tr("A calibration is under way: wait for it, or Cancel it."), false);
        return;
    }
    if (const QString missing = m_launcher->programsRefusal(); !missing.isEmpty()) {
        showMessage(tr("This machine cannot be calibrated from here: %1").arg(missing), true);
        return;
    }
    m_launcher->startCalibration();
    setBusy(true);
    showMessage(tr("Calibrating this machine on %1 ranks: mpirun %2")
                    .arg(MpiLauncher::kCalibrationRanks)
                    .arg(m_launcher->calibrationArguments().join(QLatin1Char(' '))),
                false);
}

void HardwareBox::onCalibrated() {
    setBusy(false);
    const std::optional<HardwarePreset>& calibrated = m_launcher->calibration();
    if (!calibrated) {
        showMessage(tr("The calibration gave no preset: %1").arg(m_launcher->result().error), true);
        return;
    }
    HardwarePreset preset = *calibrated;
    preset.name += tr(" (calibrated %1)")
                       .arg(QTime::currentTime().toString(QStringLiteral("HH:mm")))
                       .toStdString();
    showMessage(tr("%1: calibrated in %2 s")
                    .arg(text(preset.name))
                    .arg(m_launcher->result().wallSeconds, 0, 'f', 1),
                false);
    addPreset(std::move(preset));
}

void HardwareBox::addPreset(HardwarePreset preset) {
    const int row = calibrateRow() - 1;  // before the separator
    m_combo->insertItem(row, text(preset.name));
    m_combo->setItemData(row, text(preset.description), Qt::ToolTipRole);
    m_added.push_back(std::move(preset));
    m_combo->setCurrentIndex(row);
}

void HardwareBox::showMessage(const QString& message, bool problem) {
    m_message->setText(message);
    m_message->setStyleSheet(problem ? QStringLiteral("color: #b00020") : QString());
    m_message->setVisible(!message.isEmpty());
}

void HardwareBox::setBusy(bool busy) {
    m_busy->setVisible(busy);
    m_cancel->setVisible(busy);
}

}  // namespace tp
