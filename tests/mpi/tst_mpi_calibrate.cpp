// tpviz-mpi --calibrate on 2 ranks: a preset that --hardware FILE.json reads, written to --output
// the same as printed, the sweep, fits and rates in the text report, and a scene's options refused.

#include "io/hardware_file.h"
#include "mpi_harness.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using tp::test::runMpi;

class TestMpiCalibrate : public QObject {
    Q_OBJECT

private slots:
    void jsonIsAPreset() {
        QTemporaryDir dir;
        const QString path = dir.filePath("this-machine.json");
        const tp::test::ProcessRun run = runMpi(2, {"--calibrate", "--json", "--output", path});
        QVERIFY2(run.exitCode == 0, qPrintable(run.errText()));
        const tp::HardwareFileRead read = tp::parseHardwareJson(run.out.toStdString(), "stdout");
        QVERIFY2(read.preset, read.problems.empty() ? "" : read.problems[0].c_str());
        const tp::HardwarePreset& p = *read.preset;
        QCOMPARE(p.name, std::string("this-machine"));
        QVERIFY(p.description.find("2 Open MPI ranks") != std::string::npos);
        // Shared memory between two processes: some microseconds a step, some GB/s or less.
        QVERIFY(p.link.alphaSeconds < 1e-2);
        QVERIFY(p.link.busBytesPerSecond > 1e6 && p.link.busBytesPerSecond < 1e12);
        QVERIFY(p.achievableFlops > 1e7);
        QVERIFY(p.inOrderFlops > 1e7);  // the products of few rows, timed on their own route
        QVERIFY(p.memoryBytesPerSecond > 1e7);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), run.out);
    }

    void textShowsTheSweep() {
        const tp::test::ProcessRun run = runMpi(2, {"--calibrate"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.errText()));
        const QString text = QString::fromUtf8(run.out);
        for (const char* line :
             {"all-reduce       8 bytes", "reduce-scatter   64.0 MiB",
              "fit of all-gather alone: alpha ", "fit of all three: ",
              "own figures in the preset: ", "products (256, 1024) @ (1024, 1024): ",
              "products (8, 2048) @ (2048, 8192), summed in order: ", "preset:\n{"})
            QVERIFY2(text.contains(line), qPrintable(line + QString("\n") + text));
    }

    // The calibration measures the machine, not a scene: a scene's option is refused in words.
    void sceneOptionsAreRefused() {
        const tp::test::ProcessRun run = runMpi(2, {"--calibrate", "--tp", "2"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--calibrate takes only --json and --output FILE, not --tp"),
                 qPrintable(run.errText()));
        QVERIFY(run.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestMpiCalibrate)
#include "tst_mpi_calibrate.moc"
