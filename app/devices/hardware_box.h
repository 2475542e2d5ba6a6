#pragma once

// The costs panel's hardware combo: the built-in presets, those added this session, then
// "calibrate this machine…" (tpviz-mpi --calibrate under mpirun, in the background, with a busy
// bar and Cancel) and "preset from a file…" (a JSON preset, read by the core's readHardwareFile).
// Choosing either entry leaves the combo on the preset it was on until a new preset is added;
// what goes wrong is said in words under the combo.

#include "devices/hardware.h"

#include <QWidget>

#include <deque>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;

namespace tp {

class MpiLauncher;

class HardwareBox : public QWidget {
    Q_OBJECT

public:
    explicit HardwareBox(QWidget* parent = nullptr);

    /// The selected preset, built-in or added.
    const HardwarePreset& hardware() const;
    /// Selects a preset by name; false when there is none of that name.
    bool selectHardware(const QString& name);

    /// What "preset from a file…" does with the file chosen: reads the preset at `path`, adds and
    /// selects it; false, with the problems under the combo and the selection kept, when the file
    /// does not read.
    bool addPresetFile(const QString& path);
    /// What "calibrate this machine…" does: starts the calibration, or says under the combo why
    /// it cannot start. The preset it gives is added and selected when it finishes.
    void calibrate();

    QComboBox* combo() const { return m_combo; }
    /// Why the last calibration or file failed, or what is under way; empty when nothing is.
    QLabel* messageLabel() const { return m_message; }
    QProgressBar* busyBar() const { return m_busy; }
    QPushButton* cancelButton() const { return m_cancel; }
    MpiLauncher* launcher() const { return m_launcher; }

    /// The combo's rows of the two entries (after every preset).
    int calibrateRow() const;
    int fileRow() const;

signals:
    /// The selected preset changed (chosen, or added and selected).
    void hardwareChanged();

private:
    void onChosen(int row);
    void onCalibrated();
    /// Adds `preset` after the presets and selects it.
    void addPreset(HardwarePreset preset);
    void showMessage(const QString& text, bool problem);
    void setBusy(bool busy);

    /// The presets added this session, in the combo's order after the built-in ones (a deque:
    /// references to them stay valid as more are added).
    std::deque<HardwarePreset> m_added;
    int m_selectedRow = 0;  ///< the row of the selected preset
    QComboBox* m_combo;
    QLabel* m_message;
    QProgressBar* m_busy;
    QPushButton* m_cancel;
    MpiLauncher* m_launcher;
};

}  // namespace tp
