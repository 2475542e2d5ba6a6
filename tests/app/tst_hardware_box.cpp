// The costs panel's hardware combo beyond its built-in presets: a preset from a file (through the
// path the file dialog hands on) added, selected and estimated on, a bad file refused in words
// with the selection kept, and "calibrate this machine…" through the MPI launcher: a finished
// run's preset added and selected, a run that fails or prints no preset said in words, Cancel.
// The launcher is pointed at small scripts standing in for mpirun, so this runs in milliseconds
// on any machine; tst_mpi_launch calibrates on real ranks.

#include "config_fixtures.h"
#include "devices/costs_panel.h"
#include "devices/hardware_box.h"
#include "devices/layout_costs.h"
#include "devices/mpi_launch.h"
#include "io/hardware_file.h"
#include "scene/scene_request.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tp;

namespace {

LayerConfig meshConfig() {
    LayerConfig c = test::kFourGroups;
    c.batch = 4;
    c.dataSize = 2;
    return c;
}

DeviceScene deviceScene() {
    return makeDeviceScene(
        std::make_shared<const Scene>(*computeScene({meshConfig(), SceneSource::Nnx})),
        defaultHardware());
}

// A preset far from the built-in ones: its estimate reads differently from theirs.
HardwarePreset slowPreset(const std::string& name) {
    return {name, "a slow test machine", {1e-3, 1e6}, 1e9, 1e8, 1e-4};
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& contents,
                  bool executable = false) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(contents);
    file.close();
    if (executable)
        file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
    return path;
}

// A stand-in for mpirun (and tpviz-mpi) that runs `body` whatever its arguments.
QString fakeMpirun(const QTemporaryDir& dir, const QByteArray& body) {
    return writeFile(dir, QStringLiteral("mpirun"), "#!/bin/sh\n" + body + "\n", true);
}

QString forwardTotal(const HardwarePreset& preset) {
    return durationLabel(layoutEstimate(meshConfig(), PassPhase::Forward, preset).totalSeconds);
}

}  // namespace

class TestHardwareBox : public QObject {
    Q_OBJECT

private slots:
    void entriesFollowThePresets() {
        HardwareBox box;
        const int presets = int(hardwarePresets().size());
        QCOMPARE(box.combo()->count(), presets + 3);  // a separator and the two entries
        QCOMPARE(box.combo()->itemText(box.calibrateRow()),
                 QStringLiteral("calibrate this machine…"));
        QCOMPARE(box.combo()->itemText(box.fileRow()), QStringLiteral("preset from a file…"));
        QVERIFY(!box.selectHardware(QStringLiteral("preset from a file…")));
    }

    void presetFileIsAddedSelectedAndEstimated() {
        QTemporaryDir dir;
        const HardwarePreset slow = slowPreset("slow-test-machine");
        const QString path = writeFile(dir, QStringLiteral("slow.json"),
                                       QByteArray::fromStdString(hardwareJson(slow)));
        CostsPanel costs;
        costs.setDeviceScene(deviceScene());
        const QString before = costs.estimateLabel()->text();
        QVERIFY(before.contains(forwardTotal(defaultHardware())));
        QSignalSpy changed(&costs, &CostsPanel::hardwareChanged);
        QVERIFY(costs.hardwareChoice()->addPresetFile(path));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(costs.hardwareBox()->currentText(), QStringLiteral("slow-test-machine"));
        QCOMPARE(costs.hardware().name, slow.name);
        QCOMPARE(costs.hardware().link.busBytesPerSecond, slow.link.busBytesPerSecond);
        QVERIFY(costs.estimateLabel()->text() != before);
        QVERIFY2(costs.estimateLabel()->text().contains(forwardTotal(slow)),
                 qPrintable(costs.estimateLabel()->text()));
        // Added for the session: a built-in preset and back again.
        QVERIFY(costs.selectHardware(QStringLiteral("tpu-v5e")));
        QVERIFY(costs.selectHardware(QStringLiteral("slow-test-machine")));
        QCOMPARE(costs.hardware().link.alphaSeconds, slow.link.alphaSeconds);
        // A second file of a name already there is told apart by its file's name.
        const QString again = writeFile(dir, QStringLiteral("again.json"),
                                        QByteArray::fromStdString(hardwareJson(slow)));
        QVERIFY(costs.hardwareChoice()->addPresetFile(again));
        QCOMPARE(costs.hardwareBox()->currentText(),
                 QStringLiteral("slow-test-machine (again.json)"));
        QCOMPARE(costs.hardware().name, "slow-test-machine (again.json)");
    }

    void badFileIsRefusedInWordsAndTheSelectionKept_data() {
        QTest::addColumn<QByteArray>("contents");
        QTest::addColumn<QString>("words");
        QTest::newRow("not JSON") << QByteArray("alpha = 3") << QStringLiteral("slow.json");
        QTest::newRow("no beta") << QByteArray(R"({"name": "x", "description": "d", "alpha_s": 1e-5,
            "achievable_flops_per_s": 1e9, "memory_bytes_per_s": 1e9, "launch_s": 0})")
                                 << QStringLiteral("beta_bytes_per_s");
        QTest::newRow("no file") << QByteArray() << QStringLiteral("missing.json");
    }

    void badFileIsRefusedInWordsAndTheSelectionKept() {
        QFETCH(QByteArray, contents);
        QFETCH(QString, words);
        QTemporaryDir dir;
        const QString path = contents.isEmpty()
                                 ? dir.filePath(QStringLiteral("missing.json"))
                                 : writeFile(dir, QStringLiteral("slow.json"), contents);
        CostsPanel costs;
        costs.show();
        costs.setDeviceScene(deviceScene());
        QVERIFY(costs.selectHardware(QStringLiteral("tpu-v5e")));
        const int count = costs.hardwareBox()->count();
        const QString estimate = costs.estimateLabel()->text();
        QSignalSpy changed(&costs, &CostsPanel::hardwareChanged);
        QVERIFY(!costs.hardwareChoice()->addPresetFile(path));
        QLabel* message = costs.hardwareChoice()->messageLabel();
        QVERIFY(message->isVisible());
        QVERIFY2(message->text().contains(QStringLiteral("was not added")) &&
                     message->text().contains(words) && message->text().count(path) == 1,
                 qPrintable(message->text()));
        QCOMPARE(changed.count(), 0);
        QCOMPARE(costs.hardwareBox()->count(), count);
        QCOMPARE(costs.hardwareBox()->currentText(), QStringLiteral("tpu-v5e"));
        QCOMPARE(costs.hardware().name, "tpu-v5e");
        QCOMPARE(costs.estimateLabel()->text(), estimate);
    }

    void calibrationAddsThePresetItPrints() {
        QTemporaryDir dir;
        const QString json =
            writeFile(dir, QStringLiteral("out.json"),
                      QByteArray::fromStdString(hardwareJson(slowPreset("this-machine"))));
        const QString mpirun = fakeMpirun(dir, "sleep 0.3; cat '" + json.toUtf8() + "'");
        CostsPanel costs;
        costs.show();
        costs.setDeviceScene(deviceScene());
        HardwareBox* box = costs.hardwareChoice();
        box->launcher()->setPrograms(mpirun, mpirun);
        const QString before = costs.estimateLabel()->text();
        QSignalSpy changed(&costs, &CostsPanel::hardwareChanged);
        // Choosing the entry starts the run and leaves the combo on its preset.
        costs.hardwareBox()->setCurrentIndex(box->calibrateRow());
        QCOMPARE(costs.hardwareBox()->currentText(),
                 QString::fromStdString(defaultHardware().name));
        QVERIFY(box->launcher()->isRunning());
        QVERIFY(box->busyBar()->isVisible());
        QVERIFY(box->cancelButton()->isVisible());
        QVERIFY(box->messageLabel()->text().contains(QStringLiteral("--calibrate --json")));
        QCOMPARE(changed.count(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!box->launcher()->isRunning(), 10000);
        QVERIFY(!box->busyBar()->isVisible());
        QCOMPARE(changed.count(), 1);
        QVERIFY2(costs.hardwareBox()->currentText().startsWith(
                     QStringLiteral("this-machine (calibrated ")),
                 qPrintable(costs.hardwareBox()->currentText()));
        QCOMPARE(QString::fromStdString(costs.hardware().name), costs.hardwareBox()->currentText());
        QCOMPARE(costs.hardware().memoryBytesPerSecond, 1e8);
        QVERIFY(costs.estimateLabel()->text() != before);
        QVERIFY(costs.estimateLabel()->text().contains(forwardTotal(slowPreset("x"))));
    }

    void failedCalibrationSaysWhyAndKeepsTheSelection_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("words");
        QTest::newRow("exit 1") << QByteArray("echo 'tpviz-mpi: no ranks here' >&2; exit 1")
                                << QStringLiteral("exit status 1:\nno ranks here");
        QTest::newRow("not JSON") << QByteArray("echo 'calibration on 2 ranks'")
                                  << QStringLiteral("tpviz-mpi --calibrate --json");
        QTest::newRow("no mpirun") << QByteArray() << QStringLiteral("mpirun was not found");
    }

    void failedCalibrationSaysWhyAndKeepsTheSelection() {
        QFETCH(QByteArray, body);
        QFETCH(QString, words);
        QTemporaryDir dir;
        CostsPanel costs;
        costs.show();
        HardwareBox* box = costs.hardwareChoice();
        const QString mpirun =
            body.isEmpty() ? dir.filePath(QStringLiteral("none/mpirun")) : fakeMpirun(dir, body);
        box->launcher()->setPrograms(mpirun, mpirun);
        QVERIFY(costs.selectHardware(QStringLiteral("a100-pcie")));
        const int count = costs.hardwareBox()->count();
        QSignalSpy changed(&costs, &CostsPanel::hardwareChanged);
        costs.hardwareBox()->setCurrentIndex(box->calibrateRow());
        QTRY_VERIFY_WITH_TIMEOUT(!box->launcher()->isRunning(), 10000);
        QVERIFY(box->messageLabel()->isVisible());
        QVERIFY2(box->messageLabel()->text().contains(words),
                 qPrintable(box->messageLabel()->text()));
        QVERIFY(!box->busyBar()->isVisible());
        QCOMPARE(changed.count(), 0);
        QCOMPARE(costs.hardwareBox()->count(), count);
        QCOMPARE(costs.hardwareBox()->currentText(), QStringLiteral("a100-pcie"));
        QCOMPARE(costs.hardware().name, "a100-pcie");
    }

    void cancelEndsTheCalibration() {
        QTemporaryDir dir;
        const QString mpirun = fakeMpirun(dir, "exec sleep 30");
        HardwareBox box;
        box.show();
        box.launcher()->setPrograms(mpirun, mpirun);
        box.calibrate();
        QVERIFY(box.launcher()->isRunning());
        QTest::mouseClick(box.cancelButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!box.launcher()->isRunning(), 5000);
        QVERIFY2(box.messageLabel()->text().contains(QStringLiteral("Cancelled")),
                 qPrintable(box.messageLabel()->text()));
        QVERIFY(!box.cancelButton()->isVisible());
        QCOMPARE(box.combo()->currentText(), QString::fromStdString(defaultHardware().name));
    }
};

QTEST_MAIN(TestHardwareBox)
#include "tst_hardware_box.moc"
