// "Run on MPI ranks": the launcher and its panel on a real run of tpviz-mpi under mpirun (each
// rank's figures as its report gives them, the kernel bytes as the cost model counts them, the
// verdict), Cancel ending mpirun and its ranks, and the refusals that say what is missing.

#include "devices/costs_panel.h"
#include "devices/hardware.h"
#include "devices/hardware_box.h"
#include "devices/layout_costs.h"
#include "devices/mpi_launch.h"
#include "devices/mpi_run_panel.h"
#include "scene/scene_request.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>

using namespace tp;

namespace {

DeviceScene deviceSceneOf(const LayerConfig& c) {
    return makeDeviceScene(std::make_shared<const Scene>(*computeScene({c, SceneSource::Nnx})),
                           defaultHardware());
}

LayerConfig smallConfig() {
    LayerConfig c;
    c.batch = 2;
    c.inDim = 8;
    c.features = 8;
    c.tpSize = 2;
    return c;
}

// The child processes of `pid` (mpirun's ranks and helpers), from /proc.
QList<qint64> childrenOf(qint64 pid) {
    QList<qint64> children;
    QFile file(QStringLiteral("/proc/%1/task/%1/children").arg(pid));
    if (file.open(QIODevice::ReadOnly))
        for (const QByteArray& word : file.readAll().split(' '))
            if (!word.trimmed().isEmpty())
                children << word.trimmed().toLongLong();
    return children;
}

bool processGone(qint64 pid) {
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return true;
    return status.readAll().contains("State:\tZ");  // a zombie has ended
}

}  // namespace

class TestMpiLaunch : public QObject {
    Q_OBJECT

private slots:
    // The launcher passes this process's environment on to mpirun and the ranks. Under
    // -DTPVIZ_SANITIZE=ON, LeakSanitizer would report what Open MPI keeps until exit and make a
    // rank exit 1 (as in tst_mpi); this process's own leak check, read at its start, stays on.
    // mpirun ends a failed run without its 2 s of grace (tests/mpi/mpi_harness.h says why).
    void initTestCase() {
        qputenv("ASAN_OPTIONS", "detect_leaks=0");
        qputenv("OMPI_MCA_odls_base_sigkill_timeout", "0");
    }

    void runsTheSceneAndShowsEachRank() {
        MpiRunPanel panel;
        if (const QString refusal = panel.launcher()->refusal(*deviceSceneOf(smallConfig()).scene);
            !refusal.isEmpty())
            QSKIP(qPrintable(refusal));
        const DeviceScene scene = deviceSceneOf(smallConfig());
        panel.show();
        panel.run(scene, defaultHardware());
        QVERIFY(panel.launcher()->isRunning());
        QVERIFY(panel.busyBar()->isVisible());
        QVERIFY(panel.cancelButton()->isEnabled());
        QVERIFY2(panel.commandLabel()->text().contains("-n 2"),
                 qPrintable(panel.commandLabel()->text()));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.launcher()->isRunning(), 120000);

        const MpiRunResult& result = panel.launcher()->result();
        QVERIFY2(result.ok, qPrintable(result.error));
        QVERIFY(!panel.busyBar()->isVisible());
        QVERIFY(!panel.cancelButton()->isEnabled());
        QCOMPARE(result.ranks.size(), std::size_t(2));
        QCOMPARE(panel.table()->rowCount(), 2);
        for (int column = MpiRunPanel::BackwardComputeColumn;  // no backward
             column <= MpiRunPanel::BackwardCommunicationRatioColumn; ++column)
            QVERIFY(panel.table()->isColumnHidden(column));
        QVERIFY2(!panel.modelLabel()->text().contains("backward"),
                 qPrintable(panel.modelLabel()->text()));
        const DeviceHoldings& model = scene.costs->mesh.perDevice;
        for (int row = 0; row < 2; ++row) {
            const MpiRankFigures& r = result.ranks[std::size_t(row)];
            QCOMPARE(r.rank, row);
            QCOMPARE(r.m, std::int64_t(row));
            const auto bytesAt = [&](int column) {
                return panel.table()->item(row, column)->data(Qt::UserRole).toLongLong();
            };
            QCOMPARE(bytesAt(MpiRunPanel::KernelColumn), r.kernelBytesHeld);
            QCOMPARE(bytesAt(MpiRunPanel::KernelModelColumn), model.kernelBytes);
            QCOMPARE(r.kernelBytesHeld, model.kernelBytes);  // 8 x 4 floats
            QCOMPARE(r.kernelBytesHeld, std::int64_t(8 * 4 * 4));
            QCOMPARE(bytesAt(MpiRunPanel::PeakRssColumn), r.peakRssBytes);
            QVERIFY(r.peakRssBytes > 0);
            QCOMPARE(panel.table()->item(row, MpiRunPanel::ComputeColumn)->text(),
                     durationLabel(r.computeSeconds));
            QCOMPARE(panel.table()->item(row, MpiRunPanel::CommunicationColumn)->text(),
                     durationLabel(r.communicationSeconds));
            QCOMPARE(panel.table()->item(row, MpiRunPanel::ComputeModelColumn)->text(),
                     durationLabel(scene.costs->estimate.computeSeconds));
        }
        // Column mode gathers values without arithmetic: bit-identical to the one process.
        QVERIFY(result.passed());
        QVERIFY2(panel.verdictLabel()->text().contains("bit-identical (16 of 16 elements)"),
                 qPrintable(panel.verdictLabel()->text()));
    }

    // The Devices tab computes a scene's costs on the hardware chosen then; a run on other hardware
    // (the box changed since, --hardware tpu-v5e) prints the model's figures of that hardware.
    void modelFiguresAreThoseOfTheRunsHardware() {
        MpiRunPanel panel;
        const DeviceScene scene = deviceSceneOf(smallConfig());  // on h100-nvlink
        if (const QString refusal = panel.launcher()->refusal(*scene.scene); !refusal.isEmpty())
            QSKIP(qPrintable(refusal));
        const HardwarePreset& tpu = *findHardware("tpu-v5e");
        const TimeEstimate onTpu = estimateTime(scene.costs->mesh, tpu);
        QVERIFY(durationLabel(onTpu.computeSeconds) !=
                durationLabel(scene.costs->estimate.computeSeconds));
        panel.show();
        panel.run(scene, tpu);
        QVERIFY2(panel.commandLabel()->text().contains("--hardware tpu-v5e"),
                 qPrintable(panel.commandLabel()->text()));
        const QString model = panel.modelLabel()->text();
        QVERIFY2(model.contains("on tpu-v5e, the hardware this run is given.") &&
                     !model.contains("h100"),
                 qPrintable(model));
        QVERIFY2(model.contains("compute " + durationLabel(onTpu.computeSeconds)),
                 qPrintable(model));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.launcher()->isRunning(), 120000);
        QVERIFY2(panel.launcher()->result().ok, qPrintable(panel.launcher()->result().error));
        QCOMPARE(panel.table()->item(0, MpiRunPanel::ComputeModelColumn)->text(),
                 durationLabel(onTpu.computeSeconds));
        QCOMPARE(panel.table()->item(0, MpiRunPanel::CommunicationModelColumn)->text(),
                 durationLabel(onTpu.communicationSeconds));
    }

    // A scene in the fsdp layout runs that layout on 4 ranks (data 2 x tp 2): the command asks
    // for it, the ranks' results pass, and the model is the layout's, its gathers included.
    void layoutsRunOnTheRanks() {
        LayerConfig c = smallConfig();
        c.batch = 4;
        c.dataSize = 2;
        c.layout = ShardingLayout::Fsdp;
        const DeviceScene scene = deviceSceneOf(c);
        MpiRunPanel panel;
        if (const QString refusal = panel.launcher()->refusal(*scene.scene); !refusal.isEmpty())
            QSKIP(qPrintable(refusal));
        panel.show();
        panel.run(scene, defaultHardware());
        QVERIFY2(panel.commandLabel()->text().contains("--layout fsdp"),
                 qPrintable(panel.commandLabel()->text()));
        const QString model = panel.modelLabel()->text();
        const TimeEstimate estimate = layoutEstimate(c, PassPhase::Forward, defaultHardware());
        QVERIFY2(model.contains("communication " + durationLabel(estimate.communicationSeconds) +
                                " (the fsdp layout's collectives)"),
                 qPrintable(model));
        QVERIFY(estimate.communicationSeconds >
                estimateTime(meshCosts(smallConfig()), defaultHardware()).communicationSeconds);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.launcher()->isRunning(), 120000);
        const MpiRunResult& result = panel.launcher()->result();
        QVERIFY2(result.ok, qPrintable(result.error));
        QCOMPARE(result.ranks.size(), std::size_t(4));
        QVERIFY2(result.passed(), qPrintable(panel.verdictLabel()->text()));
        // Each rank keeps half of its kernel block (8 x 4) at rest, as the model says.
        for (int row = 0; row < 4; ++row) {
            QCOMPARE(result.ranks[std::size_t(row)].kernelBytesHeld, std::int64_t(4 * 4 * 4));
            QCOMPARE(panel.table()
                         ->item(row, MpiRunPanel::KernelModelColumn)
                         ->data(Qt::UserRole)
                         .toLongLong(),
                     std::int64_t(4 * 4 * 4));
        }
    }

    void cancelEndsMpirunAndItsRanks_data() {
        QTest::addColumn<bool>("closeWindow");
        QTest::addRow("Cancel") << false;
        QTest::addRow("closing the window") << true;
    }
    void cancelEndsMpirunAndItsRanks() {
        QFETCH(bool, closeWindow);
        LayerConfig c = smallConfig();
        c.batch = 8;
        c.inDim = 2048;
        c.features = 4096;
        const DeviceScene scene = deviceSceneOf(c);
        MpiRunPanel panel;
        MpiLauncher* launcher = panel.launcher();
        if (const QString refusal = launcher->refusal(*scene.scene); !refusal.isEmpty())
            QSKIP(qPrintable(refusal));
        panel.show();
        panel.run(scene, defaultHardware());
        QTRY_VERIFY(launcher->processId() > 0);
        const qint64 pid = launcher->processId();
        // Let mpirun start its ranks, then cancel while they run.
        QTRY_VERIFY_WITH_TIMEOUT(!childrenOf(pid).isEmpty() || !launcher->isRunning(), 30000);
        const QList<qint64> children = childrenOf(pid);
        QVERIFY(launcher->isRunning());
        QVERIFY(!children.isEmpty());
        if (closeWindow)
            panel.close();
        else
            QTest::mouseClick(panel.cancelButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!launcher->isRunning(), 10000);
        QVERIFY(processGone(pid));
        for (const qint64 child : children)
            QTRY_VERIFY2_WITH_TIMEOUT(processGone(child), qPrintable(QString::number(child)),
                                      10000);
        QVERIFY(!launcher->result().ok);
        QVERIFY2(panel.statusLabel()->text().startsWith("Cancelled after"),
                 qPrintable(panel.statusLabel()->text()));
        QVERIFY(!panel.busyBar()->isVisible());
        QCOMPARE(panel.table()->rowCount(), 0);
    }

    // "calibrate this machine…" on 2 real ranks (about 4 s here): the preset tpviz-mpi measures
    // is added to the combo, selected and estimated on.
    void calibrationOnRealRanksAddsThisMachine() {
        CostsPanel costs;
        costs.show();
        costs.setDeviceScene(deviceSceneOf(smallConfig()));
        HardwareBox* box = costs.hardwareChoice();
        if (const QString refusal = box->launcher()->programsRefusal(); !refusal.isEmpty())
            QSKIP(qPrintable(refusal));
        QVERIFY(box->launcher()->calibrationArguments().contains("--calibrate"));
        costs.hardwareBox()->setCurrentIndex(box->calibrateRow());
        QVERIFY(box->launcher()->isRunning());
        QVERIFY(box->busyBar()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(!box->launcher()->isRunning(), 120000);
        QVERIFY2(costs.hardwareBox()->currentText().startsWith("this-machine (calibrated "),
                 qPrintable(box->messageLabel()->text()));
        const HardwarePreset& measured = costs.hardware();
        QVERIFY(measured.link.alphaSeconds > 0 && measured.link.busBytesPerSecond > 0);
        QVERIFY(measured.achievableFlops > 0 && measured.memoryBytesPerSecond > 0);
        QVERIFY(measured.description.find("2 Open MPI ranks") != std::string::npos);
        QVERIFY2(costs.estimateLabel()->text().contains(durationLabel(
                     layoutEstimate(smallConfig(), PassPhase::Forward, measured).totalSeconds)),
                 qPrintable(costs.estimateLabel()->text()));
        // The ranks are given the added preset as a file of its own, readable by this user only:
        // a run on it reads it, and the file goes with the launcher.
        QString presetPath;
        {
            MpiRunPanel panel;
            panel.run(deviceSceneOf(smallConfig()), measured);
            const QStringList args = panel.launcher()->lastArguments();
            const qsizetype hardware = args.indexOf(QStringLiteral("--hardware"));
            QVERIFY(hardware >= 0 && hardware + 1 < args.size());
            presetPath = args[hardware + 1];
            QVERIFY2(QFileInfo(presetPath).fileName().startsWith("tpviz-preset-"),
                     qPrintable(presetPath));
            QCOMPARE(QFile::permissions(presetPath) &
                         (QFile::ReadGroup | QFile::ReadOther | QFile::WriteOther),
                     QFile::Permissions());
            QTRY_VERIFY_WITH_TIMEOUT(!panel.launcher()->isRunning(), 120000);
            QVERIFY2(panel.launcher()->result().ok, qPrintable(panel.launcher()->result().error));
            QVERIFY(panel.modelLabel()->text().contains(costs.hardwareBox()->currentText()));
        }
        QVERIFY(!QFile::exists(presetPath));
    }

    void missingProgramsSayWhatToInstall() {
        const DeviceScene scene = deviceSceneOf(smallConfig());
        MpiRunPanel panel;
        panel.launcher()->setPrograms("/nonexistent/mpirun", panel.launcher()->tpvizMpi());
        panel.run(scene, defaultHardware());
        QVERIFY(!panel.launcher()->isRunning());
        QVERIFY2(
            panel.statusLabel()->text().contains("sudo apt install openmpi-bin libopenmpi-dev"),
            qPrintable(panel.statusLabel()->text()));
        QVERIFY(panel.statusLabel()->text().contains("/nonexistent/mpirun"));

        MpiLauncher launcher;
        launcher.setPrograms(QCoreApplication::applicationFilePath(), "/nonexistent/tpviz-mpi");
        const QString refusal = launcher.refusal(*scene.scene);
        QVERIFY2(refusal.startsWith("tpviz-mpi was not built (looked for /nonexistent/tpviz-mpi)"),
                 qPrintable(refusal));
        QVERIFY(!launcher.start(*scene.scene, defaultHardware()));
        QVERIFY(!launcher.isRunning());
    }

    void largeMeshesAndTheBriefAreRefused() {
        MpiLauncher launcher;
        // Present programs, so that the scene is what is refused.
        launcher.setPrograms(QCoreApplication::applicationFilePath(),
                             QCoreApplication::applicationFilePath());
        Scene scene;
        scene.config = smallConfig();
        scene.config.features = 80;
        scene.config.tpSize = 40;
        scene.config.dataSize = 2;
        QVERIFY2(launcher.refusal(scene).contains("data (2) x tp_size (40) = 80 ranks"),
                 qPrintable(launcher.refusal(scene)));
        scene.config.tpSize = 32;
        QVERIFY(launcher.refusal(scene).isEmpty());
        QVERIFY(launcher.arguments(scene, defaultHardware()).contains("--oversubscribe"));
        // tpviz-mpi runs the correct split: a scene's mistake is not passed on.
        scene.mistake = Mistake::InitPerGroup;
        const QStringList args = launcher.arguments(scene, defaultHardware());
        QVERIFY(!args.contains("--mistake"));
        QCOMPARE(args.mid(args.indexOf("--tp"), 2), (QStringList{"--tp", "32"}));
        QCOMPARE(args.mid(args.indexOf("--data"), 2), (QStringList{"--data", "2"}));
        scene.source = SceneSource::Brief;
        QVERIFY(launcher.refusal(scene).contains("not drawn from a seed"));
    }

    // A scene with the backward pass runs it on the ranks too, and the run's verdict includes the
    // gradients' check: a failed gradient fails the run.
    void ranksRunTheBackwardOfABackwardScene() {
        const DeviceScene forward = deviceSceneOf(smallConfig());
        SceneRun run;
        run.backward = true;
        const DeviceScene backward = makeDeviceScene(
            std::make_shared<const Scene>(*computeScene({smallConfig(), SceneSource::Nnx, run})),
            defaultHardware());
        QVERIFY(backward.scene->backward);
        MpiRunPanel panel;
        QVERIFY(
            !panel.launcher()->arguments(*forward.scene, defaultHardware()).contains("--backward"));
        QVERIFY(
            panel.launcher()->arguments(*backward.scene, defaultHardware()).contains("--backward"));

        const QByteArray report =
            R"({"ranks": [{"rank": 0, "device": [0, 0]}], "mpi": {"check": "single-process",
                "elements": 4, "bit_identical": 4}, "verification": {"verdict": "passed"},
                "backward": {"verification": {"passed": %1}}})";
        const MpiRunResult failed = readMpiReport(QByteArray(report).replace("%1", "false"));
        QVERIFY2(failed.ok, qPrintable(failed.error));
        QVERIFY(!failed.passed());
        QVERIFY2(failed.verdict.contains("FAILED: a gradient gathered from the ranks"),
                 qPrintable(failed.verdict));
        QVERIFY(readMpiReport(QByteArray(report).replace("%1", "true")).passed());
        QVERIFY(!readMpiReport(QByteArray(report).replace("\"passed\": %1", "")).ok);

        if (const QString refusal = panel.launcher()->refusal(*backward.scene); !refusal.isEmpty())
            QSKIP(qPrintable(refusal));
        panel.run(backward, defaultHardware());
        QTRY_VERIFY_WITH_TIMEOUT(!panel.launcher()->isRunning(), 120000);
        const MpiRunResult& result = panel.launcher()->result();
        QVERIFY2(result.ok, qPrintable(result.error));
        QCOMPARE(result.backwardPassed, std::optional<bool>(true));
        QVERIFY(result.passed());
        // Each rank's backward times, in their own columns.
        QVERIFY(!panel.table()->isColumnHidden(MpiRunPanel::BackwardComputeColumn));
        for (int row = 0; row < 2; ++row) {
            const MpiRankFigures& r = result.ranks[std::size_t(row)];
            QVERIFY(r.backward && r.backward->computeSeconds > 0 &&
                    r.backward->communicationSeconds > 0);
            QCOMPARE(panel.table()->item(row, MpiRunPanel::BackwardComputeColumn)->text(),
                     durationLabel(r.backward->computeSeconds));
            QCOMPARE(panel.table()->item(row, MpiRunPanel::BackwardCommunicationColumn)->text(),
                     durationLabel(r.backward->communicationSeconds));
        }
        QVERIFY2(panel.verdictLabel()->text().contains("the gradients gathered from the ranks"),
                 qPrintable(panel.verdictLabel()->text()));
    }

    // Beside each rank's backward times, the model's: the backward estimate of the scene's layout
    // on the hardware the run is given (tpu-v5e, not the h100-nvlink its costs were computed on),
    // and measured / model.
    void backwardModelIsTheLayoutsOnTheRunsHardware_data() {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<qint64>("dataSize");
        QTest::newRow("tensor tp2") << QString("tensor") << qint64(1);
        QTest::newRow("fsdp data2 tp2") << QString("fsdp") << qint64(2);
    }
    void backwardModelIsTheLayoutsOnTheRunsHardware() {
        QFETCH(QString, layout);
        QFETCH(qint64, dataSize);
        // 64 x 64 x 64: smaller products take the model's launch time alone, forward and backward.
        LayerConfig c = smallConfig();
        c.batch = c.inDim = c.features = 64;
        c.dataSize = dataSize;
        c.layout = *parseShardingLayout(layout.toStdString());
        SceneRun run;
        run.backward = true;
        const DeviceScene scene = makeDeviceScene(
            std::make_shared<const Scene>(*computeScene({c, SceneSource::Nnx, run})),
            defaultHardware());
        MpiRunPanel panel;
        if (const QString refusal = panel.launcher()->refusal(*scene.scene); !refusal.isEmpty())
            QSKIP(qPrintable(refusal));
        const HardwarePreset& tpu = *findHardware("tpu-v5e");
        const TimeEstimate model = layoutEstimate(c, PassPhase::Backward, tpu);
        // Figures another estimate would not give: the forward's, or the backward's elsewhere.
        const TimeEstimate forward = layoutEstimate(c, PassPhase::Forward, tpu);
        const TimeEstimate elsewhere = layoutEstimate(c, PassPhase::Backward, defaultHardware());
        for (const TimeEstimate* other : {&forward, &elsewhere}) {
            QVERIFY(durationLabel(model.computeSeconds) != durationLabel(other->computeSeconds));
            QVERIFY(durationLabel(model.communicationSeconds) !=
                    durationLabel(other->communicationSeconds));
        }
        panel.show();
        const QRect screen = panel.screen()->availableGeometry();
        panel.move(screen.right() - panel.width() / 2, screen.top());  // half off the screen
        panel.run(scene, tpu);
        const QString sentence = panel.modelLabel()->text();
        QVERIFY2(sentence.contains("; backward compute " + durationLabel(model.computeSeconds) +
                                   ", collectives " + durationLabel(model.communicationSeconds) +
                                   " on tpu-v5e"),
                 qPrintable(sentence));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.launcher()->isRunning(), 120000);
        const MpiRunResult& result = panel.launcher()->result();
        QVERIFY2(result.ok, qPrintable(result.error));
        QCOMPARE(result.ranks.size(), std::size_t(2 * dataSize));
        for (int column = MpiRunPanel::BackwardComputeColumn;
             column <= MpiRunPanel::BackwardCommunicationRatioColumn; ++column)
            QVERIFY(!panel.table()->isColumnHidden(column));
        const QTableWidget& table = *panel.table();
        // Twenty columns: the window moves onto the screen, the rest of the table scrolls, and
        // every row shows above the scroll bar in the window at its smallest.
        QVERIFY2(panel.frameGeometry().left() >= screen.left() &&
                     panel.frameGeometry().right() <= screen.right(),
                 qPrintable(QString("window x %1 to %2 on a screen %3 to %4")
                                .arg(panel.frameGeometry().left())
                                .arg(panel.frameGeometry().right())
                                .arg(screen.left())
                                .arg(screen.right())));
        panel.resize(panel.width(), 0);
        QTRY_COMPARE(panel.height(), panel.minimumHeight());
        QVERIFY(table.viewport()->height() >=
                table.rowCount() * table.verticalHeader()->defaultSectionSize());
        for (int row = 0; row < table.rowCount(); ++row) {
            const std::optional<MpiRankFigures::Backward>& measured =
                result.ranks[std::size_t(row)].backward;
            QVERIFY(measured);
            QCOMPARE(table.item(row, MpiRunPanel::BackwardComputeModelColumn)->text(),
                     durationLabel(model.computeSeconds));
            QCOMPARE(table.item(row, MpiRunPanel::BackwardCommunicationModelColumn)->text(),
                     durationLabel(model.communicationSeconds));
            const auto ratioAt = [&](int column) {
                return table.item(row, column)->data(Qt::UserRole).toDouble();
            };
            QCOMPARE(ratioAt(MpiRunPanel::BackwardComputeRatioColumn),
                     measured->computeSeconds / model.computeSeconds);
            QCOMPARE(ratioAt(MpiRunPanel::BackwardCommunicationRatioColumn),
                     measured->communicationSeconds / model.communicationSeconds);
        }
    }

    void failedRunShowsRankZerosMessage() {
        QCOMPARE(mpiFailureMessage("------\nmpirun noise\ntpviz-mpi: the world size (3 ranks) must "
                                   "equal data (1) * tp_size (2) = 2\n-----\n"),
                 QString("the world size (3 ranks) must equal data (1) * tp_size (2) = 2"));
        QCOMPARE(mpiFailureMessage("-----\nmpirun was unable to launch\n\n-----\n"),
                 QString("mpirun was unable to launch"));
        const MpiRunResult bad = readMpiReport("{\"config\": ");
        QVERIFY(!bad.ok);
        QVERIFY2(bad.error.startsWith("tpviz-mpi's report is not JSON"), qPrintable(bad.error));
        QVERIFY(!readMpiReport("{\"config\": {}}").ok);

        // A program that fails under mpirun: its exit status in words.
        MpiLauncher launcher;
        const QString falseProgram = QStandardPaths::findExecutable("false");
        if (launcher.mpirun().isEmpty() || falseProgram.isEmpty())
            QSKIP("mpirun or false is not on PATH");
        launcher.setPrograms(launcher.mpirun(), falseProgram);
        QVERIFY(launcher.start(*deviceSceneOf(smallConfig()).scene, defaultHardware()));
        QTRY_VERIFY_WITH_TIMEOUT(!launcher.isRunning(), 60000);
        QVERIFY(!launcher.result().ok);
        QVERIFY2(launcher.result().error.startsWith("tpviz-mpi ended with exit status"),
                 qPrintable(launcher.result().error));
    }
};

QTEST_MAIN(TestMpiLaunch)
#include "tst_mpi_launch.moc"
