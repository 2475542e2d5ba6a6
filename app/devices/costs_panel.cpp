#include "costs_panel.h"

#include "devices/backward_costs.h"
#include "devices/duration_text.h"
#include "estimate_bars.h"
#include "layer/range_text.h"
#include "scene/costs_report.h"
#include "scene/scene_backward.h"
#include "tp_sweep_plot.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <cmath>

namespace tp {
namespace {

QString bytes(std::int64_t b) {
    return QString::fromStdString(formatBytes(b));
}

QString text(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QLabel* wrappingLabel(const char* name) {
    auto* label = new QLabel;
    label->setObjectName(QLatin1String(name));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

// The gradients each device holds and what the backward's collectives send.
QString backwardText(const LayerConfig& config, const SceneBackward& backward) {
    const BackwardHoldings h = backwardHoldings(config);
    const QString held = CostsPanel::tr(
                             "dy %1 · dx %2 · dkernel %3 · dbias %4 = %5 more per device, "
                             "%L6 FLOPs; ")
                             .arg(bytes(h.dyBytes), bytes(h.dxBytes), bytes(h.dkernelBytes),
                                  bytes(h.dbiasBytes), bytes(h.totalBytes()))
                             .arg(h.flops);
    if (backward.collectives.empty())
        return held + CostsPanel::tr("nothing sent: no collective on this mesh");
    QStringList sent;
    std::int64_t total = 0;
    for (const BackwardCollective& c : backward.collectives) {
        total += c.cost.bytesSentPerDevice;
        sent << CostsPanel::tr("%1 for the %2 of %3 over '%4' in %5")
                    .arg(bytes(c.cost.bytesSentPerDevice), text(toString(c.cost.kind)),
                         QString::fromStdString(c.of), text(toString(c.axis)))
                    .arg(countText(c.cost.ringSteps, CostsPanel::tr("ring step")));
    }
    return held + CostsPanel::tr("sent by each device: %1; %2 in all")
                      .arg(sent.join(QStringLiteral(", ")), bytes(total));
}

}  // namespace

QString durationLabel(double seconds) {
    return QString::fromStdString(durationText(seconds));
}

QString countText(std::int64_t n, const QString& noun) {
    return QString::fromStdString(tp::countText(n, noun.toStdString()));
}

CostsPanel::CostsPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("costsPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_memory = wrappingLabel("memoryLabel");
    m_wire = wrappingLabel("wireLabel");
    m_backward = wrappingLabel("backwardLabel");
    m_backwardTitle = new QLabel(tr("Backward"));
    m_hardware = new QComboBox;
    m_hardware->setObjectName(QStringLiteral("hardwareBox"));
    for (const HardwarePreset& preset : hardwarePresets()) {
        m_hardware->addItem(text(preset.name));
        m_hardware->setItemData(m_hardware->count() - 1, text(preset.description), Qt::ToolTipRole);
    }
    selectHardware(text(defaultHardware().name));
    m_estimate = wrappingLabel("estimateLabel");
    m_bars = new EstimateBars;
    m_plot = new TpSweepPlot;
    auto* form = new QFormLayout;
    form->addRow(tr("Memory"), m_memory);
    form->addRow(tr("On the wire"), m_wire);
    form->addRow(m_backwardTitle, m_backward);
    form->addRow(tr("Hardware"), m_hardware);
    form->addRow(tr("Estimate"), m_estimate);
    form->addRow(QString(), m_bars);
    layout->addLayout(form);
    layout->addWidget(m_plot, 1);
    connect(m_hardware, &QComboBox::currentIndexChanged, this, [this] {
        showEstimate();
        emit hardwareChanged();
    });
}

const HardwarePreset& CostsPanel::hardware() const {
    const int index = m_hardware->currentIndex();
    return index >= 0 ? hardwarePresets()[std::size_t(index)] : defaultHardware();
}

bool CostsPanel::selectHardware(const QString& name) {
    const int index = m_hardware->findText(name);
    if (index < 0)
        return false;
    m_hardware->setCurrentIndex(index);
    return true;
}

void CostsPanel::setDeviceScene(const DeviceScene& scene) {
    m_costs = scene.costs;
    const MeshCosts& mesh = m_costs->mesh;
    const std::int64_t perDevice = totalBytes(mesh.perDevice);
    m_memory->setText(
        tr("%1 per device against %2 for the unsharded layer on one device (%3%); "
           "%4 devices (data %5 x model %6)")
            .arg(bytes(perDevice), bytes(mesh.unshardedBytes))
            .arg(100.0 * double(perDevice) / double(std::max<std::int64_t>(1, mesh.unshardedBytes)),
                 0, 'f', 1)
            .arg(mesh.devices)
            .arg(mesh.data)
            .arg(mesh.model));
    const CollectiveCost& c = mesh.collective;
    if (c.kind == CollectiveKind::None)
        m_wire->setText(tr("nothing: no collective, the output stays where it was computed"));
    else
        m_wire->setText(tr("%1 sent by each device in %2 (%3 over 'model')")
                            .arg(bytes(c.bytesSentPerDevice))
                            .arg(countText(c.ringSteps, tr("ring step")))
                            .arg(text(toString(c.kind))));
    const LayerConfig& config = scene.scene->config;
    const SceneBackward* backward = scene.scene->backward.get();
    m_backward->setVisible(backward != nullptr);
    m_backwardTitle->setVisible(backward != nullptr);
    if (backward)
        m_backward->setText(backwardText(config, *backward));
    m_backwardConfig = backward ? std::optional(config) : std::nullopt;
    m_plot->setSweep(tpSweep(config), config.tpSize);
    showEstimate();
}

void CostsPanel::showEstimate() {
    if (!m_costs)
        return;
    const TimeEstimate e = estimateTime(m_costs->mesh, hardware());
    QString line = tr("compute %1 + communication %2 = %3, %4-bound")
                       .arg(durationLabel(e.computeSeconds), durationLabel(e.communicationSeconds),
                            durationLabel(e.totalSeconds), text(boundWord(e)));
    line += QStringLiteral("\n") + text(productWords(e.product));
    if (e.collective.steps > 0)
        line += QStringLiteral("\n") + text(toString(e.collective.kind)) + QStringLiteral(": ") +
                text(collectiveWords(e.collective));
    m_estimate->setText(line);
    std::vector<std::pair<QString, TimeEstimate>> phases{{tr("forward"), e}};
    if (m_backwardConfig)
        phases.emplace_back(tr("backward"), estimateBackwardTime(*m_backwardConfig, hardware()));
    m_bars->setPhases(std::move(phases));
}

}  // namespace tp
