#include "mpi_run_panel.h"

#include "costs_panel.h"
#include "devices/layout_costs.h"
#include "mpi_launch.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace tp {
namespace {

QString bytesText(std::int64_t bytes) {
    return QString::fromStdString(formatBytes(bytes));
}

QString threeBytes(std::int64_t bias, std::int64_t x, std::int64_t output) {
    return bytesText(bias) + QStringLiteral(" · ") + bytesText(x) + QStringLiteral(" · ") +
           bytesText(output);
}

QTableWidgetItem* cell(const QString& text, Qt::Alignment alignment = Qt::AlignRight) {
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(alignment | Qt::AlignVCenter);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    return item;
}

QTableWidgetItem* bytesCell(std::int64_t bytes) {
    QTableWidgetItem* item = cell(bytesText(bytes));
    item->setData(Qt::UserRole, qint64(bytes));
    item->setToolTip(QObject::tr("%1 bytes").arg(bytes));
    return item;
}

// measured / model, "2.1x" with the ratio as Qt::UserRole, or "-" when the model says 0 (nothing
// to compare).
QTableWidgetItem* ratioCell(double measured, double model) {
    if (!(model > 0))
        return cell(QStringLiteral("-"), Qt::AlignCenter);
    const double ratio = measured / model;
    auto* item = cell(QString::number(ratio, 'f', ratio < 10 ? 2 : 0) + QStringLiteral("×"));
    item->setData(Qt::UserRole, ratio);
    item->setToolTip(
        QObject::tr("measured %1 / model %2").arg(durationLabel(measured), durationLabel(model)));
    return item;
}

// What the model says a device keeps between passes: the tensor layout's holdings, or another
// layout's bytes at rest (layoutMemory), which is what its ranks report as held.
DeviceHoldings heldModel(const LayerConfig& config, const DeviceHoldings& holdings) {
    if (config.layout == ShardingLayout::Tensor)
        return holdings;
    DeviceHoldings rest = holdings;
    for (const ArrayMemory& array : layoutMemory(config, false).arrays) {
        if (array.name == "kernel")
            rest.kernelBytes = array.atRest;
        else if (array.name == "bias")
            rest.biasBytes = array.atRest;
        else if (array.name == "x")
            rest.xBytes = array.atRest;
        else if (array.name == "output")
            rest.outputBytes = array.atRest;
    }
    return rest;
}

}  // namespace

MpiRunPanel::MpiRunPanel(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("mpiRunPanel"));
    setWindowTitle(tr("Run on MPI ranks"));
    m_launcher = new MpiLauncher(this);
    m_command = new QLabel;
    m_command->setObjectName(QStringLiteral("mpiCommand"));
    m_command->setWordWrap(true);
    m_command->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_busy = new QProgressBar;
    m_busy->setRange(0, 0);  // busy: how long a run takes is not known in advance
    m_busy->setMaximumWidth(160);
    m_busy->setTextVisible(false);
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("mpiStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName(QStringLiteral("mpiCancel"));
    m_cancel->setToolTip(tr("End mpirun and its ranks"));
    auto* statusRow = new QHBoxLayout;
    statusRow->addWidget(m_busy);
    statusRow->addWidget(m_status, 1);
    statusRow->addWidget(m_cancel);
    m_model = new QLabel;
    m_model->setObjectName(QStringLiteral("mpiModel"));
    m_model->setWordWrap(true);
    m_verdict = new QLabel;
    m_verdict->setObjectName(QStringLiteral("mpiVerdict"));
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_table = new QTableWidget(0, ColumnCount);
    m_table->setObjectName(QStringLiteral("mpiRanks"));
    const QString model = tr("(model)");
    // Headers of two lines where a word is wider than the column's figures: with the backward's
    // columns the table fits a screen 1600 pixels wide.
    const QString ratio = tr("measured\n/ model");
    // What each rank measured, each time followed by the model's figure and measured / model.
    QStringList headers = {tr("Rank"), tr("Device")};
    headers << tr("Kernel held") << model << tr("Bias · x · output held") << model;
    headers << tr("Peak RSS") << tr("Compute") << model << ratio << tr("Wait");
    headers << tr("Communi-\ncation") << model << ratio;
    headers << tr("Backward\ncompute") << model << ratio;
    headers << tr("Backward\ncollectives") << model << ratio;
    m_table->setHorizontalHeaderLabels(headers);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setToolTip(
        tr("Measured on each rank, beside the cost model's figure for the same "
           "device (\"model\")"));

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    m_again = buttons->addButton(tr("Run again"), QDialogButtonBox::ActionRole);
    m_again->setObjectName(QStringLiteral("mpiRunAgain"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    connect(m_again, &QPushButton::clicked, this, [this] {
        if (m_scene.scene && m_hardware)
            run(m_scene, *m_hardware);
    });

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_command);
    layout->addLayout(statusRow);
    layout->addWidget(m_model);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_verdict);
    layout->addStretch();
    layout->addWidget(buttons);
    resize(1100, 300);

    m_tick = new QTimer(this);
    m_tick->setInterval(100);
    connect(m_tick, &QTimer::timeout, this, &MpiRunPanel::showElapsed);
    connect(m_cancel, &QPushButton::clicked, m_launcher, &MpiLauncher::cancel);
    connect(m_launcher, &MpiLauncher::finished, this, &MpiRunPanel::showResult);
    // Closing the window (Close, Escape, the title bar) ends a run under way.
    connect(this, &QDialog::finished, m_launcher, &MpiLauncher::cancel);
    m_busy->hide();
    m_cancel->setEnabled(false);
}

void MpiRunPanel::run(const DeviceScene& scene, const HardwarePreset& hardware) {
    if (m_launcher->isRunning())
        return;
    m_scene = scene;
    m_hardware = &hardware;
    m_table->setRowCount(0);
    m_verdict->clear();
    m_model->clear();
    if (!scene.scene) {
        m_status->setText(tr("There is no scene yet."));
        return;
    }
    const QString refusal = m_launcher->refusal(*scene.scene);
    if (!refusal.isEmpty()) {
        m_command->clear();
        m_status->setText(refusal);
        m_again->setEnabled(true);
        return;
    }
    const MeshCosts& mesh = scene.costs->mesh;
    const DeviceHoldings held = heldModel(scene.scene->config, mesh.perDevice);
    // The estimate on the hardware the run is given (--hardware), which the Devices tab may have
    // changed since the scene's costs were computed.
    const LayerConfig& config = scene.scene->config;
    m_estimate = layoutEstimate(config, PassPhase::Forward, hardware);
    m_backwardEstimate.reset();
    if (scene.scene->backward)  // the ranks run the backward too (MpiLauncher::arguments)
        m_backwardEstimate = layoutEstimate(config, PassPhase::Backward, hardware);
    const TimeEstimate& estimate = m_estimate;
    const QString backward = m_backwardEstimate
                                 ? tr("; backward compute %1, collectives %2")
                                       .arg(durationLabel(m_backwardEstimate->computeSeconds),
                                            durationLabel(m_backwardEstimate->communicationSeconds))
                                 : QString();
    m_model->setText(tr("Cost model, every device: kernel %1, bias · x · output %2; compute %3, "
                        "communication %4 (%5)%6 on %7, the hardware this run is given.")
                         .arg(bytesText(held.kernelBytes),
                              threeBytes(held.biasBytes, held.xBytes, held.outputBytes),
                              durationLabel(estimate.computeSeconds),
                              durationLabel(estimate.communicationSeconds),
                              config.layout == ShardingLayout::Tensor
                                  ? QString::fromUtf8(toString(mesh.collective.kind))
                                  : tr("the %1 layout's collectives")
                                        .arg(QString::fromUtf8(toString(config.layout))),
                              backward, QString::fromUtf8(estimate.hardware)));
    if (scene.scene->mistake != Mistake::None)
        m_model->setText(tr("tpviz-mpi runs the correct split: the scene's mistake (%1) is left "
                            "out. ")
                             .arg(QString::fromUtf8(toString(scene.scene->mistake))) +
                         m_model->text());
    if (estimate.hardware != std::string_view("this-machine"))
        m_model->setText(m_model->text() +
                         tr(" To set the times beside this machine's, choose this-machine as the "
                            "Devices tab's hardware."));
    if (!m_launcher->start(*scene.scene, hardware)) {
        m_command->clear();
        m_status->setText(m_launcher->result().error);
        m_again->setEnabled(true);
        return;
    }
    m_command->setText(
        QStringLiteral("<tt>mpirun %1</tt>")
            .arg(m_launcher->lastArguments().join(QLatin1Char(' ')).toHtmlEscaped()));
    m_busy->show();
    m_cancel->setEnabled(true);
    m_again->setEnabled(false);
    m_tick->start();
    showElapsed();
}

void MpiRunPanel::showElapsed() {
    if (!m_launcher->isRunning() || !m_scene.scene)
        return;
    m_status->setText(tr("Running on %1… %2 s")
                          .arg(countText(m_scene.costs->mesh.devices, tr("rank")))
                          .arg(double(m_launcher->elapsedMs()) / 1000.0, 0, 'f', 1));
}

void MpiRunPanel::showResult() {
    m_tick->stop();
    m_busy->hide();
    m_cancel->setEnabled(false);
    m_again->setEnabled(true);
    const MpiRunResult& result = m_launcher->result();
    if (!result.ok) {
        m_status->setText(result.error);
        return;
    }
    m_status->setText(tr("%1 finished in %2 s (mpirun's start-up included).")
                          .arg(countText(std::int64_t(result.ranks.size()), tr("rank")))
                          .arg(result.wallSeconds, 0, 'f', 2));
    const DeviceHoldings model = heldModel(m_scene.scene->config, m_scene.costs->mesh.perDevice);
    const TimeEstimate& estimate = m_estimate;
    m_table->setRowCount(int(result.ranks.size()));
    for (int row = 0; row < int(result.ranks.size()); ++row) {
        const MpiRankFigures& r = result.ranks[std::size_t(row)];
        m_table->setItem(row, RankColumn, cell(QString::number(r.rank)));
        m_table->setItem(row, DeviceColumn,
                         cell(QStringLiteral("(%1, %2)").arg(r.d).arg(r.m), Qt::AlignCenter));
        m_table->setItem(row, KernelColumn, bytesCell(r.kernelBytesHeld));
        m_table->setItem(row, KernelModelColumn, bytesCell(model.kernelBytes));
        m_table->setItem(row, OthersColumn,
                         cell(threeBytes(r.biasBytesHeld, r.xBytesHeld, r.outputBytesHeld)));
        m_table->setItem(row, OthersModelColumn,
                         cell(threeBytes(model.biasBytes, model.xBytes, model.outputBytes)));
        m_table->setItem(row, PeakRssColumn, bytesCell(r.peakRssBytes));
        m_table->setItem(row, ComputeColumn, cell(durationLabel(r.computeSeconds)));
        m_table->setItem(row, ComputeModelColumn, cell(durationLabel(estimate.computeSeconds)));
        m_table->setItem(row, CommunicationColumn, cell(durationLabel(r.communicationSeconds)));
        m_table->setItem(row, CommunicationModelColumn,
                         cell(durationLabel(estimate.communicationSeconds)));
        m_table->setItem(row, ComputeRatioColumn,
                         ratioCell(r.computeSeconds, estimate.computeSeconds));
        m_table->setItem(row, WaitColumn, cell(durationLabel(r.waitSeconds)));
        m_table->setItem(row, CommunicationRatioColumn,
                         ratioCell(r.communicationSeconds, estimate.communicationSeconds));
        if (r.backward && m_backwardEstimate) {
            const MpiRankFigures::Backward& b = *r.backward;
            const TimeEstimate& model = *m_backwardEstimate;
            m_table->setItem(row, BackwardComputeColumn, cell(durationLabel(b.computeSeconds)));
            m_table->setItem(row, BackwardComputeModelColumn,
                             cell(durationLabel(model.computeSeconds)));
            m_table->setItem(row, BackwardComputeRatioColumn,
                             ratioCell(b.computeSeconds, model.computeSeconds));
            m_table->setItem(row, BackwardCommunicationColumn,
                             cell(durationLabel(b.communicationSeconds)));
            m_table->setItem(row, BackwardCommunicationModelColumn,
                             cell(durationLabel(model.communicationSeconds)));
            m_table->setItem(row, BackwardCommunicationRatioColumn,
                             ratioCell(b.communicationSeconds, model.communicationSeconds));
        }
    }
    const bool backward = result.backwardPassed.has_value();
    for (int column = BackwardComputeColumn; column <= BackwardCommunicationRatioColumn; ++column)
        m_table->setColumnHidden(column, !backward);
    m_verdict->setText(QStringLiteral("<b>%1</b> %2")
                           .arg(result.passed() ? tr("Check:")
                                : result.verdictWord == QLatin1String("inconclusive")
                                    ? tr("Check inconclusive:")
                                    : tr("Check FAILED:"),
                                result.verdict.toHtmlEscaped()));
    // The table as tall and wide as its rows and columns (up to 12 rows; more scroll), as wide as
    // the screen allows (the rest scrolls, its bar below the rows), the window moved left to stay
    // on the screen.
    m_table->resizeColumnsToContents();
    const QRect screenRect = screen()->availableGeometry();
    const QMargins margins = layout()->contentsMargins();
    const int room =
        screenRect.width() - (frameGeometry().width() - width()) - margins.left() - margins.right();
    const int wide = m_table->horizontalHeader()->length() + 2 * m_table->frameWidth() + 24;
    m_table->setMinimumWidth(std::min(wide, room));
    const int rows = std::min(m_table->rowCount(), 12);
    m_table->setMinimumHeight(
        m_table->horizontalHeader()->height() +
        rows * m_table->verticalHeader()->defaultSectionSize() + 2 * m_table->frameWidth() + 2 +
        (wide > room ? m_table->horizontalScrollBar()->sizeHint().height() : 0));
    adjustSize();
    if (const int over = frameGeometry().right() - screenRect.right(); over > 0)
        move(std::max(x() - over, screenRect.left()), y());
}

}  // namespace tp
