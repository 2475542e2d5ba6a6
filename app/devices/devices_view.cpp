#include "devices_view.h"

#include "costs_panel.h"
#include "device_card.h"
#include "devices/layout_costs.h"
#include "mpi_run_panel.h"
#include "ring_arrows.h"
#include "scene/collective_pairs.h"
#include "scene/mlp_scene.h"
#include "scene/scene_backward.h"

#include <QAction>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace tp {
namespace {

// Keeps the arrow overlay over the whole grid as the grid resizes.
class OverlayFollower : public QObject {
public:
    OverlayFollower(QWidget* grid, QWidget* overlay) : QObject(grid), m_overlay(overlay) {
        grid->installEventFilter(this);
    }
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Resize) {
            m_overlay->setGeometry(static_cast<QWidget*>(watched)->rect());
            m_overlay->raise();
        }
        return false;
    }

private:
    QWidget* m_overlay;
};

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// The line of each mode (collectivePairLines) as a table, the scene's mode in bold.
QString pairsTable(const LayerConfig& config) {
    QString rows;
    for (const CollectivePairLine& line : collectivePairLines(config)) {
        const bool shown = line.mode == config.mode;
        const std::string label = line.axis == MeshAxis::Data ? std::string("both, over \"data\"")
                                                              : std::string(toString(line.mode));
        const auto cell = [shown](const std::string& text) {
            const QString escaped = q(text).toHtmlEscaped();
            return QStringLiteral("<td style='padding-right:12px'>%1</td>")
                .arg(shown ? QStringLiteral("<b>%1</b>").arg(escaped) : escaped);
        };
        rows += QStringLiteral("<tr>%1%2%3%4</tr>")
                    .arg(cell(label), cell(line.forward), cell(line.backward), cell(line.pair));
    }
    return DevicesView::tr(
               "<table cellspacing='0'><tr><th align='left'>mode</th>"
               "<th align='left'>forward</th><th align='left'>backward</th>"
               "<th align='left'>each is the other's conjugate</th></tr>%1</table>")
        .arg(rows);
}

// "6 of 8 elements bit-identical, passed".
QString ringVerdict(const CollectiveCheck& check) {
    const QString verdict =
        check.verdict == Verdict::Passed ? DevicesView::tr("passed")
        : check.verdict == Verdict::Failed
            ? DevicesView::tr("FAILED")
            : DevicesView::tr("inconclusive: %1").arg(q(inconclusiveReason(check.verification)));
    return DevicesView::tr("%1 of %2 elements bit-identical, %3")
        .arg(check.bitIdentical)
        .arg(check.elements)
        .arg(verdict);
}

// The fsdp or sequence layout: what each device keeps at rest, then each of the layout's own
// collectives' runs against the split pass (the tensor layout's are in the lines above).
QString layoutHeader(const LayerConfig& c, bool backward, const std::vector<RingRun>& rings) {
    const LayoutMemory memory = layoutMemory(c, backward);
    const std::vector<LayoutCollective> program = layoutCollectives(c, backward);
    QString header = DevicesView::tr(
                         "<br><b>Layout %1</b>: %2 per device at rest, %3 at its "
                         "peak; the cards show each array as the product uses it.")
                         .arg(q(std::string(toString(c.layout))), q(formatBytes(memory.atRest)),
                              q(formatBytes(memory.peak)));
    QStringList runs;
    for (std::size_t i = 0; i < rings.size() && i < program.size(); ++i)
        if (rings[i].simulated || rings[i].note.find("tensor layout") == std::string::npos)
            runs << DevicesView::tr("%1 %2 of %3 over '%4': %5")
                        .arg(q(std::string(toString(program[i].phase))),
                             q(std::string(toString(program[i].cost.kind))), q(program[i].of),
                             q(std::string(toString(program[i].axis))),
                             rings[i].simulated ? ringVerdict(rings[i].check)
                                                : q(rings[i].note).toHtmlEscaped());
    if (!runs.isEmpty())
        header += DevicesView::tr(" Its own rings: %1.").arg(runs.join(QStringLiteral("; ")));
    return header;
}

// The MLP block's mesh and each array's layout, then each collective's run against the split.
QString mlpHeader(const Scene& scene, const std::vector<RingRun>& rings) {
    const LayerConfig& c = scene.config;
    const MlpScene& s = *scene.mlp;
    const bool megatron = s.split.plan.linear1.mode == ParallelMode::Column &&
                          s.split.plan.linear2.mode == ParallelMode::Row;
    QString header =
        DevicesView::tr("<b>Mesh ('model',) = (%1): the MLP block on %2</b>, all %3 each. ")
            .arg(c.tpSize)
            .arg(countText(c.tpSize, DevicesView::tr("device")),
                 countText(c.batch, DevicesView::tr("batch row")));
    header += megatron ? DevicesView::tr(
                             "kernel1 P(None, 'model') · bias1 P('model') · h, a "
                             "P(None, 'model') · kernel2 P('model', None) · bias2 "
                             "P(None) · x and y P(None, None)")
                       : DevicesView::tr("Mistake %1: %2")
                             .arg(q(std::string(toString(s.mistake))),
                                  q(mistakeDescription(s.mistake)).toHtmlEscaped());
    QStringList runs;
    for (std::size_t i = 0; i < rings.size() && i < s.costs.collectives.size(); ++i) {
        const MlpCollective& collective = s.costs.collectives[i];
        runs << DevicesView::tr("%1 of %2: %3")
                    .arg(q(std::string(toString(collective.cost.kind))), q(collective.of),
                         rings[i].simulated ? ringVerdict(rings[i].check)
                                            : q(rings[i].note).toHtmlEscaped());
    }
    header += runs.isEmpty()
                  ? DevicesView::tr("<br>Nothing moves: one device holds the whole block.")
                  : DevicesView::tr(
                        "<br>Grey: not held yet. Each ring against the split pass: "
                        "%1.")
                        .arg(runs.join(QStringLiteral("; ")));
    return header;
}

}  // namespace

DevicesView::DevicesView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("devicesView"));
    m_header = new QLabel;
    m_header->setObjectName(QStringLiteral("devicesHeader"));
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_pairs = new QLabel;
    m_pairs->setObjectName(QStringLiteral("collectivePairs"));
    m_pairs->setWordWrap(true);
    m_pairs->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_pairs->hide();
    m_grid = new QWidget;
    m_grid->setObjectName(QStringLiteral("deviceGrid"));
    m_gridLayout = new QGridLayout(m_grid);
    m_gridLayout->setContentsMargins(4, 4, 4, 28);
    m_gridLayout->setHorizontalSpacing(44);
    m_gridLayout->setVerticalSpacing(30);
    m_arrows = new RingArrows(m_grid);
    new OverlayFollower(m_grid, m_arrows);
    m_costs = new CostsPanel;

    m_mpiRun = new QAction(tr("Run on MPI ranks…"), this);
    m_mpiRun->setObjectName(QStringLiteral("mpiRunAction"));
    m_mpiRun->setToolTip(
        tr("Run this scene on real processes, one Open MPI rank per device, and "
           "set what each rank held and spent beside the cost model"));
    connect(m_mpiRun, &QAction::triggered, this, &DevicesView::runOnMpiRanks);
    auto* mpiButton = new QToolButton;
    mpiButton->setObjectName(QStringLiteral("mpiRunButton"));
    mpiButton->setDefaultAction(m_mpiRun);
    auto* top = new QHBoxLayout;
    top->addWidget(m_header, 1);
    top->addWidget(mpiButton, 0, Qt::AlignTop);

    auto* left = new QVBoxLayout;
    left->addLayout(top);
    left->addWidget(m_pairs);
    // The cards scroll sideways when their least width does not fit: 8 model columns of cards
    // and the arrows' gaps between them need about 1430 px, and without the scroll area they
    // widened the window past a 1600 px screen and pushed the costs panel off it.
    auto* gridScroll = new QScrollArea;
    gridScroll->setObjectName(QStringLiteral("deviceGridScroll"));
    gridScroll->setWidget(m_grid);
    gridScroll->setWidgetResizable(true);
    gridScroll->setFrameShape(QFrame::NoFrame);
    left->addWidget(gridScroll, 1);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(left, 1);
    layout->addWidget(m_costs);
}

void DevicesView::setScene(ScenePtr scene) {
    m_scene = std::move(scene);
    if (isVisible())
        rebuild();
}

void DevicesView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_scene && m_deviceScene.scene != m_scene)
        rebuild();
}

void DevicesView::setStep(int step) {
    m_step = step;
    if (m_deviceScene.scene)
        showStep();
}

DeviceCard* DevicesView::card(int d, int m) const {
    if (d < 0 || d >= m_shownRows || m < 0 || m >= m_shownColumns)
        return nullptr;
    return m_cards[std::size_t(d * m_shownColumns + m)];
}

void DevicesView::rebuild() {
    m_deviceScene = makeDeviceScene(m_scene, m_costs->hardware());
    const LayerConfig& c = m_scene->config;
    const MeshCosts& mesh = m_deviceScene.costs->mesh;
    const bool mlp = m_scene->mlp != nullptr;  // one row of tp_size devices
    const int rows = mlp ? 1 : int(std::min<std::int64_t>(mesh.data, kMaxCardRows));
    const int columns = int(std::min<std::int64_t>(mlp ? c.tpSize : mesh.model, kMaxCardColumns));
    if (rows != m_shownRows || columns != m_shownColumns) {
        for (DeviceCard* card : m_cards)
            delete card;
        m_cards.clear();
        for (int d = 0; d < rows; ++d)
            for (int m = 0; m < columns; ++m) {
                auto* card = new DeviceCard;
                m_gridLayout->addWidget(card, d, m);
                m_cards.push_back(card);
            }
        m_shownRows = rows;
        m_shownColumns = columns;
        // Wide meshes give the cards the room; the gap keeps space for the chunk badges. A ring
        // over "data" wraps from the last row back to the first at the right of each column.
        m_gridLayout->setHorizontalSpacing(columns > 4 ? 28 : 44);
        m_gridLayout->setContentsMargins(4, 4, rows > 1 ? 28 : 4, 28);
        m_arrows->raise();
    }
    m_mpiRun->setEnabled(!mlp);
    m_mpiRun->setToolTip(
        mlp ? tr("This panel runs one Linear on MPI ranks; run the MLP block on them "
                 "with tpviz-mpi --block mlp")
            : tr("Run this scene on real processes, one Open MPI rank per "
                 "device, and set what each rank held and spent beside the "
                 "cost model"));
    m_pairs->setVisible(false);
    if (mlp) {
        QString header = mlpHeader(*m_scene, m_deviceScene.costs->blockRings);
        if (columns < c.tpSize)
            header += tr("<br>Showing the first %1 devices.").arg(columns);
        m_header->setText(header);
        m_costs->setDeviceScene(m_deviceScene);
        showStep();
        return;
    }
    const PartitionSpecs specs = partitionSpecs(c);
    QString header = tr("<b>Mesh ('data', 'model') = (%1, %2): %3 devices</b>, %4 each. "
                        "kernel %5 · bias %6 · x %7 · output %8")
                         .arg(mesh.data)
                         .arg(mesh.model)
                         .arg(mesh.devices)
                         .arg(countText(mesh.rowsPerDevice, tr("batch row")))
                         .arg(q(specs.kernel).toHtmlEscaped(), q(specs.bias).toHtmlEscaped(),
                              q(specs.x).toHtmlEscaped(), q(specs.output).toHtmlEscaped());
    if (!specs.partial.empty())
        header += tr(" · partial %1").arg(q(specs.partial).toHtmlEscaped());
    if (rows < mesh.data || columns < mesh.model)
        header += tr("<br>Showing the first %1 x %2 devices.").arg(rows).arg(columns);
    const RingRun& ring = m_deviceScene.costs->ring;
    if (!ring.note.empty())
        header += QStringLiteral("<br>") + q(ring.note).toHtmlEscaped();
    if (ring.simulated)
        header += tr("<br>Grey: not held yet. The ring's result against the single-process "
                     "output: %1.")
                      .arg(ringVerdict(ring.check));
    if (const SceneBackward* backward = m_scene->backward.get()) {
        QStringList runs;
        for (std::size_t i = 0; i < backward->rings.size(); ++i) {
            const RingRun& run = backward->rings[i];
            const BackwardCollective& collective = backward->collectives.at(i);
            runs << tr("%1 of %2 over '%3': %4")
                        .arg(q(std::string(toString(collective.cost.kind))), q(collective.of),
                             q(std::string(toString(collective.axis))),
                             run.simulated ? ringVerdict(run.check) : q(run.note).toHtmlEscaped());
        }
        header += runs.isEmpty() ? tr("<br>The backward needs no collective on this mesh.")
                                 : tr("<br>The backward's rings against the split pass: %1.")
                                       .arg(runs.join(QStringLiteral("; ")));
    }
    if (c.layout != ShardingLayout::Tensor)
        header += layoutHeader(c, m_scene->backward != nullptr, m_deviceScene.costs->layoutRings);
    m_header->setText(header);
    // The pairs are the tensor layout's; another layout's collectives are in the header above.
    const bool pairs = m_scene->backward != nullptr && c.layout == ShardingLayout::Tensor;
    m_pairs->setVisible(pairs);
    if (pairs)
        m_pairs->setText(pairsTable(c));
    m_costs->setDeviceScene(m_deviceScene);
    showStep();
}

void DevicesView::runOnMpiRanks() {
    if (!m_mpiPanel)
        m_mpiPanel = new MpiRunPanel(this);
    m_mpiPanel->show();
    m_mpiPanel->raise();
    // The costs as shown; a hidden view has not computed them for this scene yet.
    const bool shown = m_deviceScene.scene == m_scene;
    m_mpiPanel->run(
        shown || !m_scene ? m_deviceScene : makeDeviceScene(m_scene, m_costs->hardware()),
        m_costs->hardware());
}

std::vector<DeviceArrow> DevicesView::arrows() const {
    return m_arrows->arrows();
}

void DevicesView::showStep() {
    for (int d = 0; d < m_shownRows; ++d)
        for (int m = 0; m < m_shownColumns; ++m)
            card(d, m)->setHoldings(deviceHoldings(m_deviceScene, d, m, m_step));
    // Everything from the scene shown and its own program: a step of another scene's program
    // reads as the nearest step of this one.
    std::vector<DeviceArrow> arrows;
    const TimelineStep& state = m_deviceScene.program.at(m_step);
    if (state.ringStep >= 0 && state.ring.phase != RingPhase::AddBias) {
        const StepCollective& collective = state.collective;
        const RingRun* run = &m_deviceScene.costs->ring;
        const RingRun* layoutRun = nullptr;
        if (collective.layoutIndex >= 0) {
            const std::vector<RingRun>& rings = m_deviceScene.costs->layoutRings;
            const auto index = std::size_t(collective.layoutIndex);
            if (index < rings.size() && rings[index].simulated)
                layoutRun = &rings[index];
        }
        const bool output = collective.of == "y" || collective.of == "the partial sums";
        if (layoutRun) {
            run = layoutRun;
        } else if (collective.blockIndex >= 0) {
            const std::vector<RingRun>& rings = m_deviceScene.costs->blockRings;
            const auto index = std::size_t(collective.blockIndex);
            run = index < rings.size() ? &rings[index] : nullptr;
        } else if (collective.backwardIndex >= 0) {
            const SceneBackward* backward = m_deviceScene.scene->backward.get();
            const auto index = std::size_t(collective.backwardIndex);
            run = backward && index < backward->rings.size() ? &backward->rings[index] : nullptr;
        } else if (collective.layoutIndex >= 0 && !output) {
            run = nullptr;  // the layout's own collective, left unsimulated
        }
        std::vector<ChunkTransfer> transfers;
        if (run && run->simulated) {
            transfers = run->steps.at(std::size_t(state.ringStep)).transfers;
        } else {  // not simulated (too big): the same pattern from the ring's rule
            const int p = collective.devices;
            for (int m = 0; m < p; ++m)
                transfers.push_back(
                    {m, (m + 1) % p,
                     ringChunkSent(state.ring.phase, state.ring.indexInPhase, m, p)});
        }
        const bool data = collective.axis == MeshAxis::Data;
        const int lines = data ? m_shownColumns : m_shownRows;
        const int along = data ? m_shownRows : m_shownColumns;
        for (int line = 0; line < lines; ++line)
            for (const ChunkTransfer& t : transfers)
                if (t.from < along && t.to < along)
                    arrows.push_back({collective.axis, line, t.from, t.to, t.chunk});
    }
    m_arrows->setArrows(std::move(arrows), m_cards, m_shownColumns);
}

}  // namespace tp
