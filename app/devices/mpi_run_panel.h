#pragma once

// "Run on MPI ranks": a window that runs the scene on screen with tpviz-mpi (MpiLauncher), shows
// the run under way (busy bar, elapsed time, Cancel), then each rank's bytes held and times beside
// the cost model's figures for the same device, and whether the assembled output matched.

#include "device_holdings.h"

#include <QDialog>

#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QTimer;

namespace tp {

class MpiLauncher;

class MpiRunPanel : public QDialog {
    Q_OBJECT

public:
    /// The table's columns. Byte cells hold the exact count as Qt::UserRole, ratio cells the
    /// ratio measured / model (none when the model says 0).
    enum Column {
        RankColumn,
        DeviceColumn,
        KernelColumn,
        KernelModelColumn,
        OthersColumn,       ///< bias · x · output held
        OthersModelColumn,  ///< the model's bias · x · output
        PeakRssColumn,
        ComputeColumn,
        ComputeModelColumn,
        ComputeRatioColumn,  ///< measured / model
        WaitColumn,          ///< the barrier before the collective: waiting for the slowest rank
        CommunicationColumn,
        CommunicationModelColumn,
        CommunicationRatioColumn,  ///< measured / model
        BackwardComputeColumn,     ///< with the backward pass only: its products
        BackwardComputeModelColumn,
        BackwardComputeRatioColumn,
        BackwardCommunicationColumn,  ///< and its collectives, summed
        BackwardCommunicationModelColumn,
        BackwardCommunicationRatioColumn,
        ColumnCount
    };

    explicit MpiRunPanel(QWidget* parent = nullptr);

    /// Runs `scene` (its costs as the Devices tab computed them) with `hardware` as the ranks'
    /// --hardware, beside the cost model's estimate on that hardware (layoutEstimate of the
    /// forward, and of the backward when the scene has it), or says why it cannot. Does nothing
    /// while a run is under way.
    void run(const DeviceScene& scene, const HardwarePreset& hardware);

    MpiLauncher* launcher() const { return m_launcher; }
    QLabel* commandLabel() const { return m_command; }
    QLabel* statusLabel() const { return m_status; }
    QLabel* modelLabel() const { return m_model; }
    QLabel* verdictLabel() const { return m_verdict; }
    QProgressBar* busyBar() const { return m_busy; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* runAgainButton() const { return m_again; }
    QTableWidget* table() const { return m_table; }

private:
    void showElapsed();
    void showResult();

    MpiLauncher* m_launcher;
    DeviceScene m_scene;
    const HardwarePreset* m_hardware = nullptr;
    TimeEstimate m_estimate;                         ///< the cost model's estimate on m_hardware
    std::optional<TimeEstimate> m_backwardEstimate;  ///< and its backward's, with the backward
    QLabel* m_command;
    QLabel* m_status;
    QLabel* m_model;
    QLabel* m_verdict;
    QProgressBar* m_busy;
    QPushButton* m_cancel;
    QPushButton* m_again;
    QTableWidget* m_table;
    QTimer* m_tick;
};

}  // namespace tp
