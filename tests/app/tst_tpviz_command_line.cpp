// The tpviz executable: --help, --screenshot (also of a kernel file), and refused options.

#include "command_line.h"
#include "io/npy.h"
#include "process_run.h"
#include "sanitizer_build.h"
#include "screenshot.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

using namespace tp;

namespace {

using Run = test::ProcessRun;

Run runTpviz(const QStringList& args) {
    return test::runProcess(QStringLiteral(TPVIZ_APP_PATH), args,
                            {.environment = {{"QT_QPA_PLATFORM", "offscreen"}}});
}

}  // namespace

class TestTpvizCommandLine : public QObject {
    Q_OBJECT

private slots:
    void screenshotIntoWhatCannotTakeItIsRefused_data() {
        QTest::addColumn<QString>("file");  // TMP is the test's folder
        QTest::addColumn<QString>("reason");
        QTest::newRow("missing folder") << "TMP/missing/shot.png"
                                        << "/missing does not exist";
        QTest::newRow("proc") << "/proc/shot.png"
                              << "cannot be written: ";
        QTest::newRow("onto a folder") << "TMP/folder.png"
                                       << "cannot be written: it is a folder";
        QTest::newRow("unknown extension") << "TMP/shot.xyz"
                                           << ".xyz is not a picture format tpviz writes";
        QTest::newRow("no extension") << "TMP/shot"
                                      << "a name without an extension is not a picture format";
    }

    // Exit 2 with the reason, as for other invalid input, before any scene is computed.
    void screenshotIntoWhatCannotTakeItIsRefused() {
        QFETCH(QString, file);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("folder.png"));
        file.replace("TMP", dir.path());
        const Run run = runTpviz({"--screenshot", file});
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.errText().contains("tpviz: --screenshot: " + file + ": ") &&
                     run.errText().contains(reason),
                 qPrintable(run.errText()));
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{"folder.png"});
    }

    // The picture replaces an earlier file whole, through a temporary that does not stay.
    void screenshotReplacesAFileWhole() {
        QTemporaryDir dir;
        const QString file = dir.filePath("shot.svg");
        {
            QFile old(file);
            QVERIFY(old.open(QIODevice::WriteOnly));
            old.write(QByteArray(1 << 20, 'x'));
        }
        const Run run = runTpviz({"--screenshot", file, "--features", "4", "--tp", "2"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.errText()));
        QFile svg(file);
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray bytes = svg.readAll();
        QVERIFY(!bytes.contains("xxxx"));
        QVERIFY(bytes.trimmed().endsWith("</svg>"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{"shot.svg"});
    }

    // A link at the picture's path is replaced by the picture; the file it pointed to is untouched.
    void screenshotReplacesALinkNotItsTarget() {
        QTemporaryDir dir;
        const QString target = dir.filePath("elsewhere.png");
        {
            QFile old(target);
            QVERIFY(old.open(QIODevice::WriteOnly));
            old.write("not a picture");
        }
        const QString file = dir.filePath("shot.png");
        QVERIFY(QFile::link(target, file));
        const Run run = runTpviz({"--screenshot", file, "--features", "4", "--tp", "2"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.errText()));
        QVERIFY(!QFileInfo(file).isSymLink());
        QCOMPARE(QImage(file).size(), kScreenshotSize);
        QFile untouched(target);
        QVERIFY(untouched.open(QIODevice::ReadOnly));
        QCOMPARE(untouched.readAll(), QByteArray("not a picture"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 (QStringList{"elsewhere.png", "shot.png"}));
    }

    // A scene the memory cannot hold (an address-space limit below its 1 GiB kernel) exits 2
    // with the budget's sentence, as tpviz-cli does, instead of waiting for a scene that never
    // comes; no picture is written.
    void screenshotOfASceneMemoryCannotHoldExitsWithTwo() {
        if (test::kSanitized)
            QSKIP("AddressSanitizer cannot run under a small address-space limit");
        QTemporaryDir dir;
        const QString file = dir.filePath("shot.png");
        const Run run = test::runProcess(
            QStringLiteral("/usr/bin/prlimit"),
            {"--as=900000000", "--", QStringLiteral(TPVIZ_APP_PATH), "--screenshot", file,
             "--batch", "2", "--in-dim", "16384", "--features", "16384", "--tp", "2"},
            {.environment = {{"QT_QPA_PLATFORM", "offscreen"}}, .timeoutMs = 60000});
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.errText().contains("not enough memory for this scene"),
                 qPrintable(run.errText()));
        QVERIFY(!QFileInfo::exists(file));
    }

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
        QVERIFY2(run.exitCode == 0, qPrintable(run.errText()));
        const QImage image(file);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), kScreenshotSize);
    }

    // Arrays from files: the screenshot shows the file's kernel; a missing file exits with 2.
    void screenshotOfAKernelFile() {
        QTemporaryDir dir;
        const QString kernel = dir.filePath("w.npy");
        Matrix values(3, 4);
        values.setConstant(0.25f);
        QCOMPARE(writeNpy(kernel.toStdString(), values), std::string());
        const QString file = dir.filePath("shot.png");
        const Run run = runTpviz({"--screenshot", file, "--kernel", kernel, "--tp", "2"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.errText()));
        QCOMPARE(QImage(file).size(), kScreenshotSize);
        const Run missing = runTpviz({"--screenshot", file, "--kernel", dir.filePath("no.npy")});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.errText().contains("no.npy"), qPrintable(missing.errText()));
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
        QTest::newRow("trace outside the output")
            << QStringList{"--screenshot", "x.png", "--trace", "2,0"} << "not ROW,COL";
        QTest::newRow("trace without screenshot")
            << QStringList{"--trace", "0,1"} << "--screenshot";
        QTest::newRow("empty scene")
            << QStringList{"--scene", ""} << "--scene: an empty path names no file";
        QTest::newRow("empty kernel")
            << QStringList{"--kernel="} << "--kernel: an empty path names no file";
    }
    void badOptionsExitWithTwo() {
        QFETCH(QStringList, args);
        QFETCH(QString, needle);
        const Run run = runTpviz(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.errText().contains(needle), qPrintable(run.errText()));
    }

    void helpDocumentsTheOptions() {
        const Run run = runTpviz({"--help"});
        QCOMPARE(run.exitCode, 0);
        for (const char* option : {"--screenshot FILE", "--step K", "--tp T", "--mode", "--seed"})
            QVERIFY2(run.outText().contains(option), option);
        QVERIFY(!run.outText().contains("--json"));
        QVERIFY(!run.outText().contains("--rtol"));
    }

    void traceNamesAnOutputCell() {
        const AppCommandLine line =
            parseAppCommandLine({"--screenshot", "a.png", "--trace", "1,5"});
        QVERIFY(line.errors.empty());
        QVERIFY(line.trace);
        QCOMPARE(line.trace->first, 1);
        QCOMPARE(line.trace->second, 5);
        QVERIFY(!line.sceneGiven);
    }

    // An empty path names no file: refused in words, never taken as "none given".
    void emptyPathsAreRefused_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("--kernel ''")
            << QStringList{"--kernel", ""} << "--kernel: an empty path names no file";
        QTest::newRow("--kernel=")
            << QStringList{"--kernel="} << "--kernel: an empty path names no file";
        QTest::newRow("--x ''") << QStringList{"--x", ""} << "--x: an empty path names no file";
        QTest::newRow("--scene ''")
            << QStringList{"--scene", ""} << "--scene: an empty path names no file";
        QTest::newRow("a first argument ''") << QStringList{""} << "unexpected argument ''";
        QTest::newRow("--screenshot ''")
            << QStringList{"--screenshot", ""} << "--screenshot needs a file name";
    }
    void emptyPathsAreRefused() {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        std::vector<std::string> list;
        for (const QString& arg : args)
            list.push_back(arg.toStdString());
        const AppCommandLine line = parseAppCommandLine(list);
        QStringList errors;
        for (const std::string& e : line.errors)
            errors << QString::fromStdString(e);
        QCOMPARE(errors.join('\n'), error);
    }

    // --mode row with the default tp_size 3, which does not divide in_dim 8: the app moves it to
    // the nearest divisor and says so, as its Mode box does; tp_size given explicitly is still
    // refused.
    void modeMovesTpToTheNearestDivisor() {
        const AppCommandLine line = parseAppCommandLine({"--mode", "row"});
        QVERIFY2(line.errors.empty(), line.errors.empty() ? "" : line.errors.front().c_str());
        QVERIFY(line.config.mode == ParallelMode::Row);
        QCOMPARE(line.config.tpSize, std::int64_t(2));  // 2 and 4 are as near to 3: the smaller
        QCOMPARE(line.tpNote,
                 std::string("tp_size 3 does not divide in_dim (8): using 2, the nearest divisor"));
        QCOMPARE(parseAppCommandLine({"--mode=row", "--in-dim", "9"}).config.tpSize,
                 std::int64_t(3));
        QVERIFY(parseAppCommandLine({"--mode", "row", "--in-dim", "9"}).tpNote.empty());
        QVERIFY(!parseAppCommandLine({"--mode", "row", "--tp", "3"}).errors.empty());
        QTemporaryDir dir;
        const Run shot = runTpviz({"--screenshot", dir.filePath("row.png"), "--mode", "row"});
        QCOMPARE(shot.exitCode, 0);
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
