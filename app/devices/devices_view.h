#pragma once

// The devices view: the scene's data x model mesh as a grid of device cards, the chunks moving
// between them at each ring step of the collective, and the costs panel.

#include "device_holdings.h"

#include <QWidget>

class QAction;
class QGridLayout;
class QLabel;

namespace tp {

class CostsPanel;
class DeviceCard;
class MpiRunPanel;
class RingArrows;

/// A chunk moving between two cards at the step shown: along "model", in data row `line` from
/// card (line, from) to card (line, to); along "data", in model column `line` from card
/// (from, line) to card (to, line).
struct DeviceArrow {
    MeshAxis axis = MeshAxis::Model;
    int line = 0;
    int from = 0;
    int to = 0;
    int chunk = 0;
    bool operator==(const DeviceArrow&) const = default;
};

/// Shows one card per device, laid out as the mesh (data rows x model columns, at most
/// kMaxCardRows x kMaxCardColumns of them), at the step of its mesh program given by setStep. The
/// devices' costs are computed when the view is visible (a hidden view only keeps the scene).
class DevicesView : public QWidget {
    Q_OBJECT

public:
    static constexpr int kMaxCardRows = 4;
    static constexpr int kMaxCardColumns = 8;

    explicit DevicesView(QWidget* parent = nullptr);

    void setScene(ScenePtr scene);
    /// The scene given last (shown once the view is visible).
    ScenePtr scene() const { return m_scene; }
    /// A step of the mesh program of the scene shown, clamped to it.
    void setStep(int step);
    int step() const { return m_step; }

    /// The scene with its costs as shown (empty before the view was first visible with a scene).
    const DeviceScene& deviceScene() const { return m_deviceScene; }
    /// The cards shown, row by row: card (d, m) at d * shown columns + m.
    const std::vector<DeviceCard*>& cards() const { return m_cards; }
    DeviceCard* card(int d, int m) const;
    /// The chunks moving at the step shown (between shown cards), the forward's or the
    /// backward's; empty outside ring steps.
    std::vector<DeviceArrow> arrows() const;
    CostsPanel* costsPanel() const { return m_costs; }
    QLabel* headerLabel() const { return m_header; }
    /// With the backward pass: a line per mode saying which collectives its forward and its
    /// backward run and how they pair (collective_pairs.h: Megatron's f and g); hidden without.
    QLabel* pairsLabel() const { return m_pairs; }

    /// "Run on MPI ranks…": runs the scene with tpviz-mpi in the MPI run panel (opened on first
    /// use), or says there what to install. Shown as the button beside the header.
    QAction* mpiRunAction() const { return m_mpiRun; }
    /// The MPI run panel, or null before the action was first triggered.
    MpiRunPanel* mpiRunPanel() const { return m_mpiPanel; }
    void runOnMpiRanks();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void rebuild();
    void showStep();

    ScenePtr m_scene;
    DeviceScene m_deviceScene;
    int m_step = 0;
    int m_shownRows = 0;
    int m_shownColumns = 0;
    QLabel* m_header;
    QLabel* m_pairs;
    QWidget* m_grid;
    QGridLayout* m_gridLayout;
    RingArrows* m_arrows;
    CostsPanel* m_costs;
    QAction* m_mpiRun;
    MpiRunPanel* m_mpiPanel = nullptr;
    std::vector<DeviceCard*> m_cards;
};

}  // namespace tp
