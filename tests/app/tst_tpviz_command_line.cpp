// The tpviz executable: --help, --screenshot, and refused options.

#include "command_line.h"
#include "screenshot.h"

#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace tp;

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

Run runTpviz(const QStringList& args) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    process.setProcessEnvironment(env);
    process.start(TPVIZ_APP_PATH, args);
    if (!process.waitForFinished(120000))
        return {};
    return {process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

}  // namespace

class TestTpvizCommandLine : public QObject {
    Q_OBJECT

private slots:
    void screenshotWritesAPngOfTheWindowSize_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("tiny 2x4 tp2 step 1") << QStringList{
            "--batch", "2", "--in-dim", "2", "--features", "4", "--tp", "2", "--step", "1"};
        QTest::newRow("default") << QStringList{};
        QTest::newRow("row mode") << QStringList{"--mode", "row", "--tp", "4", "--step", "5"};
        QTest::newRow("brief example") << QStringList{"--example", "brief"};
    }
    void screenshotWritesAPngOfTheWindowSize() {
        QFETCH(QStringList, args);
        QTemporaryDir dir;
        const QString file = dir.filePath("shot.png");
        const Run run = runTpviz(QStringList{"--screenshot", file} + args);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QImage image(file);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), kScreenshotSize);
    }

    void badOptionsExitWithTwo_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("needle");
        QTest::newRow("tp 5 of 12") << QStringList{"--tp", "5"} << "not divisible";
        QTest::newRow("unknown") << QStringList{"--frobnicate"} << "unknown option";
        QTest::newRow("step out of range")
            << QStringList{"--screenshot", "x.png", "--step", "9"} << "out of range";
        QTest::newRow("step without screenshot") << QStringList{"--step", "1"} << "--screenshot";
        QTest::newRow("cli-only option") << QStringList{"--json"} << "tpviz-cli";
        QTest::newRow("cli-only tolerance") << QStringList{"--rtol", "0.1"} << "tpviz-cli";
    }
    void badOptionsExitWithTwo() {
        QFETCH(QStringList, args);
        QFETCH(QString, needle);
        const Run run = runTpviz(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(needle), qPrintable(run.err));
    }

    void helpDocumentsTheOptions() {
        const Run run = runTpviz({"--help"});
        QCOMPARE(run.exitCode, 0);
        for (const char* option : {"--screenshot FILE", "--step K", "--tp T", "--mode", "--seed"})
            QVERIFY2(run.out.contains(option), option);
        QVERIFY(!run.out.contains("--json"));
        QVERIFY(!run.out.contains("--rtol"));
    }

    void sceneOptionsOverrideSettingsOnlyWhenGiven() {
        QVERIFY(!parseAppCommandLine({}).sceneGiven);
        QVERIFY(!parseAppCommandLine({"--screenshot", "a.png"}).sceneGiven);
        const AppCommandLine line = parseAppCommandLine({"--tp", "4", "--seed", "9"});
        QVERIFY(line.sceneGiven);
        QVERIFY(line.errors.empty());
        QCOMPARE(line.config.tpSize, 4);
        QCOMPARE(line.config.seed, 9);
    }
};

QTEST_MAIN(TestTpvizCommandLine)
#include "tst_tpviz_command_line.moc"
