#include "costs_panel.h"

#include "devices/backward_costs.h"
#include "devices/duration_text.h"
#include "devices/layout_costs.h"
#include "estimate_bars.h"
#include "hardware_box.h"
#include "layer/range_text.h"
#include "layout_sweep_plot.h"
#include "scene/costs_report.h"
#include "scene/mlp_scene.h"
#include "scene/scene_backward.h"
#include "tp_sweep_plot.h"

#include <QFormLayout>
#include <QLabel>
#include <QScrollArea>
#include <QTabWidget>
#include <QVBoxLayout>

#include <cmath>
#include <cstdlib>

namespace tp {
namespace {

// The plots' least height: their axes, ticks and both curves still read.
constexpr int kPlotsMinimumHeight = 220;
// The panel's width: it asks for the widest, beside the cards, and narrows to the least on a
// small window, where its words wrap onto more lines and the whole panel scrolls.
constexpr int kWidth = 380;
constexpr int kMinimumWidth = 300;

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

// The block's collectives of one pass: "768 B for the all-reduce of the partial sums in 6 ring
// steps"; their sum in `total`.
QStringList blockSent(const MlpCosts& costs, bool backward, std::int64_t& total) {
    QStringList sent;
    total = 0;
    for (const MlpCollective& c : costs.collectives) {
        if (c.backward != backward)
            continue;
        total += c.cost.bytesSentPerDevice;
        sent << CostsPanel::tr("%1 for the %2 of %3 in %4")
                    .arg(bytes(c.cost.bytesSentPerDevice), text(toString(c.cost.kind)),
                         QString::fromStdString(c.of))
                    .arg(countText(c.cost.ringSteps, CostsPanel::tr("ring step")));
    }
    return sent;
}

// What each device of the MLP block holds against the block on one device, and, with a mistake
// that costs more than Megatron's split, by how much.
// What a mistake's block costs beside Megatron's split, in `sentence`'s words (%1 the
// difference in bytes, %2 "more" or "less", %3 Megatron's bytes); empty when they are equal.
QString besideMegatron(std::int64_t bytesOfMistake, std::int64_t megatron,
                       const QString& sentence) {
    if (bytesOfMistake == megatron)
        return {};
    return sentence.arg(bytes(std::abs(bytesOfMistake - megatron)),
                        bytesOfMistake > megatron ? CostsPanel::tr("more") : CostsPanel::tr("less"),
                        bytes(megatron));
}

QString blockMemoryText(const LayerConfig& config, const MlpScene& s) {
    const MlpCosts& k = s.costs;
    const std::int64_t perDevice = k.perDevice.total();
    QString text =
        CostsPanel::tr(
            "%1 per device against %2 for the unsharded block on one device (%3%); "
            "%4 along 'model'")
            .arg(bytes(perDevice), bytes(k.unshardedBytes))
            .arg(100.0 * double(perDevice) / double(std::max<std::int64_t>(1, k.unshardedBytes)), 0,
                 'f', 1)
            .arg(countText(k.devices, CostsPanel::tr("device")));
    if (s.mistake != Mistake::None)
        text += besideMegatron(perDevice, mlpCosts(config).perDevice.total(),
                               CostsPanel::tr("; %1 %2 per device than Megatron's split (%3)"));
    return text;
}

QString blockWireText(const LayerConfig& config, const MlpScene& s) {
    std::int64_t total = 0;
    const QStringList sent = blockSent(s.costs, false, total);
    if (sent.isEmpty())
        return CostsPanel::tr("nothing: one device holds the whole block");
    QString text = CostsPanel::tr("sent by each device: %1").arg(sent.join(QStringLiteral(", ")));
    if (sent.size() > 1)
        text += CostsPanel::tr("; %1 in all").arg(bytes(total));
    if (s.mistake != Mistake::None) {
        std::int64_t megatron = 0;
        blockSent(mlpCosts(config), false, megatron);
        text += besideMegatron(total, megatron,
                               CostsPanel::tr("; %1 %2 than Megatron's one all-reduce (%3)"));
    }
    return text;
}

QString blockBackwardText(const MlpCosts& k) {
    const MlpBackwardHoldings& h = k.backward;
    std::int64_t total = 0;
    const QStringList sent = blockSent(k, true, total);
    return CostsPanel::tr(
               "dy %1 · da, dh %2 · dkernel1 %3 · dbias1 %4 · dkernel2 %5 · dbias2 %6 · "
               "dx %7 = %8 more per device, %L9 FLOPs; ")
               .arg(bytes(h.dyBytes), bytes(h.daBytes + h.dhBytes), bytes(h.dkernel1Bytes),
                    bytes(h.dbias1Bytes), bytes(h.dkernel2Bytes), bytes(h.dbias2Bytes),
                    bytes(h.dxBytes), bytes(h.total()))
               .arg(h.flops) +
           (sent.isEmpty()
                ? CostsPanel::tr("nothing sent: one device")
                : CostsPanel::tr("sent by each device: %1").arg(sent.join(QStringLiteral(", "))));
}

// The three layouts of `config` side by side, the one it runs in bold; a layout the config cannot
// take says why.
// "472 B", "1.0 KiB": a table's bytes, narrower than formatBytes' "472 bytes".
QString shortBytes(std::int64_t b) {
    QString text = bytes(b);
    if (text.endsWith(QStringLiteral(" bytes")))
        text.replace(QStringLiteral(" bytes"), QStringLiteral(" B"));
    return text;
}

QString layoutsTable(const LayerConfig& config, bool backward, const HardwarePreset& hardware) {
    QString rows;
    for (const LayoutSummary& s : compareLayouts(config, backward, hardware)) {
        const bool shown = s.layout == config.layout;
        // A figure stays on its lines ("4.1 MiB"): the table wraps its refusals to the panel's
        // width, never a number. The layout as run has its name in bold, its figures not: bold
        // figures would not fit the narrowest panel.
        const auto cell = [](const QString& value) {
            return QStringLiteral("<td style='padding-right:4px; white-space:nowrap'>%1</td>")
                .arg(value);
        };
        const QString name = text(toString(s.layout));
        QString row = cell(shown ? QStringLiteral("<b>%1</b>").arg(name) : name);
        if (!s.refusal.empty()) {
            row += QStringLiteral("<td colspan='4' style='color:#8a5a00'>%1</td>")
                       .arg(text(s.refusal).toHtmlEscaped());
        } else {
            // The backward's figures under the forward's: the table fits a narrow panel.
            const auto passes = [backward](const QString& forward, const QString& back) {
                return backward ? QStringLiteral("%1<br>+ %2").arg(forward, back) : forward;
            };
            const QString sent = passes(shortBytes(s.forwardSent), shortBytes(s.backwardSent));
            const QString time = passes(durationLabel(s.forward.totalSeconds),
                                        durationLabel(s.backward.totalSeconds));
            row += cell(shortBytes(s.bytesAtRest)) + cell(shortBytes(s.bytesPeak)) + cell(sent) +
                   cell(time);
        }
        rows += QStringLiteral("<tr>%1</tr>").arg(row);
    }
    const QString pass =
        backward ? CostsPanel::tr("; sent and time: forward + backward") : QString();
    return CostsPanel::tr(
               "<table cellspacing='0'><tr><th align='left' style='padding-right:4px'>layout</th>"
               "<th align='left' style='padding-right:4px'>at rest</th><th align='left' "
               "style='padding-right:4px'>peak</th>"
               "<th align='left' style='padding-right:4px'>sent</th><th align='left' "
               "style='padding-right:4px'>time</th></tr>%1</table>"
               "<small>per device, on %2%3</small>")
        .arg(rows, text(hardware.name), pass);
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
    setMinimumWidth(kMinimumWidth);
    setMaximumWidth(kWidth);
    // The words and the table take the height their width needs; the plots what is left, down
    // to a readable height, below which the whole panel scrolls.
    auto* content = new QWidget;
    content->setObjectName(QStringLiteral("costsContent"));
    // Sideways only when the window leaves the panel less than the table's widest row.
    auto* scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("costsScroll"));
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(4, 4, 4, 4);
    m_memory = wrappingLabel("memoryLabel");
    m_wire = wrappingLabel("wireLabel");
    m_backward = wrappingLabel("backwardLabel");
    m_backwardTitle = new QLabel(tr("Backward"));
    m_hardware = new HardwareBox;
    selectHardware(text(defaultHardware().name));
    m_estimate = wrappingLabel("estimateLabel");
    m_layouts = new QLabel;
    m_layouts->setObjectName(QStringLiteral("layoutsLabel"));
    m_layouts->setTextFormat(Qt::RichText);
    m_layouts->setWordWrap(true);
    m_layouts->setToolTip(
        tr("The scene's layer in each layout, per device: tensor parallelism alone, FSDP "
           "(parameters split again over 'data') and sequence parallelism (activations split "
           "over 'model' along the batch rows); the times from the cost model on the preset"));
    m_layoutsTitle = new QLabel(tr("The three layouts:"));
    m_bars = new EstimateBars;
    m_plot = new TpSweepPlot;
    m_layoutsOverTp = new LayoutSweepPlot(MeshSize::Tp);
    m_layoutsOverData = new LayoutSweepPlot(MeshSize::Data);
    m_plots = new QTabWidget;
    m_plots->setObjectName(QStringLiteral("plotTabs"));
    m_plots->setDocumentMode(true);
    m_plots->setMinimumHeight(kPlotsMinimumHeight);
    m_plots->addTab(m_plot, tr("over tp"));
    m_plots->addTab(m_layoutsOverTp, tr("layouts over tp"));
    m_plots->addTab(m_layoutsOverData, tr("layouts over D"));
    auto* form = new QFormLayout;
    form->addRow(tr("Memory"), m_memory);
    form->addRow(tr("On the wire"), m_wire);
    form->addRow(m_backwardTitle, m_backward);
    form->addRow(tr("Hardware"), m_hardware);
    form->addRow(tr("Estimate"), m_estimate);
    form->addRow(QString(), m_bars);
    // The table spans the panel: five columns do not fit beside a label.
    form->addRow(m_layoutsTitle);
    form->addRow(m_layouts);
    layout->addLayout(form);
    layout->addWidget(m_plots, 1);
    scroll->setWidget(content);
    connect(m_hardware, &HardwareBox::hardwareChanged, this, [this] {
        showEstimate();
        emit hardwareChanged();
    });
}

QSize CostsPanel::sizeHint() const {
    return {kWidth, QWidget::sizeHint().height()};
}

const HardwarePreset& CostsPanel::hardware() const {
    return m_hardware->hardware();
}

bool CostsPanel::selectHardware(const QString& name) {
    return m_hardware->selectHardware(name);
}

QComboBox* CostsPanel::hardwareBox() const {
    return m_hardware->combo();
}

void CostsPanel::setDeviceScene(const DeviceScene& scene) {
    m_costs = scene.costs;
    const LayerConfig& config = scene.scene->config;
    if (const MlpScene* mlp = scene.scene->mlp.get()) {
        m_memory->setText(blockMemoryText(config, *mlp));
        m_wire->setText(blockWireText(config, *mlp));
        const MlpCosts block = mlp->costs;
        const bool backward = mlp->backward.has_value();
        m_forwardEstimate = [block](const HardwarePreset& h) {
            return mlpEstimate(block, false, h);
        };
        m_backwardEstimate = nullptr;
        if (backward)
            m_backwardEstimate = [block](const HardwarePreset& h) {
                return mlpEstimate(block, true, h);
            };
        m_backward->setVisible(backward);
        m_backwardTitle->setVisible(backward);
        if (backward)
            m_backward->setText(blockBackwardText(mlp->costs));
        m_plot->setSweep(tpSweep(config, mlp->mistake), config.tpSize);
        m_plots->setCurrentIndex(0);
        m_plots->setTabVisible(1, false);
        m_plots->setTabVisible(2, false);
        m_linear.reset();
        showEstimate();
        return;
    }
    const MeshCosts& mesh = m_costs->mesh;
    m_forwardEstimate = [config](const HardwarePreset& h) {
        return layoutEstimate(config, PassPhase::Forward, h);
    };
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
    const SceneBackward* backward = scene.scene->backward.get();
    if (config.layout != ShardingLayout::Tensor) {
        const auto program = layoutCollectives(config, backward != nullptr);
        m_wire->setText(
            tr("%1 sent by each device in the %2 layout's forward collectives%3 (the header "
               "lists them)")
                .arg(bytes(bytesSent(program, PassPhase::Forward)), text(toString(config.layout)),
                     backward ? tr(", %1 in its backward's")
                                    .arg(bytes(bytesSent(program, PassPhase::Backward)))
                              : QString()));
    }
    m_backward->setVisible(backward != nullptr);
    m_backwardTitle->setVisible(backward != nullptr);
    if (backward)
        m_backward->setText(backwardText(config, *backward));
    m_backwardEstimate = nullptr;
    if (backward)
        m_backwardEstimate = [config](const HardwarePreset& h) {
            return layoutEstimate(config, PassPhase::Backward, h);
        };
    m_plot->setSweep(tpSweep(config), config.tpSize);
    const bool withBackward = backward != nullptr;
    m_layoutsOverTp->setSweep(layoutSweep(config, MeshSize::Tp, withBackward, hardware()),
                              withBackward, config.tpSize);
    m_layoutsOverData->setSweep(layoutSweep(config, MeshSize::Data, withBackward, hardware()),
                                withBackward, config.dataSize);
    m_plots->setTabVisible(1, true);
    m_plots->setTabVisible(2, true);
    m_linear = config;
    showEstimate();
}

void CostsPanel::showEstimate() {
    if (!m_costs)
        return;
    const TimeEstimate e = m_forwardEstimate(hardware());
    QString line = tr("compute %1 + communication %2 = %3, %4-bound")
                       .arg(durationLabel(e.computeSeconds), durationLabel(e.communicationSeconds),
                            durationLabel(e.totalSeconds), text(boundWord(e)));
    line += QStringLiteral("\n") + text(productWords(e.product));
    for (const std::string& collective : collectiveLines(e))
        line += QStringLiteral("\n") + text(collective);
    m_estimate->setText(line);
    std::vector<std::pair<QString, TimeEstimate>> phases{{tr("forward"), e}};
    if (m_backwardEstimate)
        phases.emplace_back(tr("backward"), m_backwardEstimate(hardware()));
    m_bars->setPhases(std::move(phases));
    m_layouts->setVisible(m_linear.has_value());
    m_layoutsTitle->setVisible(m_linear.has_value());
    if (m_linear)
        m_layouts->setText(layoutsTable(*m_linear, m_backwardEstimate != nullptr, hardware()));
}

}  // namespace tp
