// tpviz-cli's writes that fail are failures: stdout into /dev/full, closed, or a file the disk has
// no room for exits 2 with the reason on stderr; --save-npy into a folder it cannot use, or onto a
// disk that fills up, leaves the folder as it was.

#include "process_run.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

namespace {

using tp::test::ProcessOptions;
using tp::test::ProcessRun;

ProcessRun runCli(const QStringList& args, const ProcessOptions& options = {}) {
    return tp::test::runProcess(QStringLiteral(TPVIZ_CLI_PATH), args, options);
}

// tpviz-cli with files limited to `blocks` * 512 bytes (sh's ulimit -f), SIGXFSZ ignored so that
// a write past it fails with EFBIG as a full disk fails with ENOSPC; `script` follows the
// program's arguments, e.g. "> FILE".
ProcessRun runCliWithFileLimit(int blocks, const QStringList& args, const QString& redirect = {}) {
    const QString script = QStringLiteral("trap '' XFSZ; ulimit -f %1 && exec \"$0\" \"$@\" %2")
                               .arg(blocks)
                               .arg(redirect);
    return tp::test::runProcess(QStringLiteral("/bin/sh"),
                                QStringList{"-c", script, QStringLiteral(TPVIZ_CLI_PATH)} + args);
}

QStringList namesIn(const QString& dir) {
    return QDir(dir).entryList(
        QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

const QStringList kScene{"--batch", "64", "--in-dim", "4", "--features", "64", "--tp", "2"};

}  // namespace

class TestCliWrites : public QObject {
    Q_OBJECT

private slots:
    void fullStandardOutputFails_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("json") << QStringList{"--json"};
        QTest::newRow("text") << QStringList{};
        QTest::newRow("summary") << QStringList{"--summary"};
        QTest::newRow("python") << QStringList{"--python"};
        QTest::newRow("help") << QStringList{"--help"};
        QTest::newRow("version") << QStringList{"--version"};
        QTest::newRow("hardware list") << QStringList{"--hardware", "list"};
        QTest::newRow("failed check") << QStringList{"--summary", "--mistake", "sum-groups"};
    }

    // /dev/full takes no byte: every output ends in exit 2 and the reason, whatever it was.
    void fullStandardOutputFails() {
        QFETCH(QStringList, args);
        const ProcessRun run = runCli(args, {.standardOutputFile = QStringLiteral("/dev/full")});
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.errText().contains(
                     "tpviz-cli: standard output cannot be written: No space left on device"),
                 qPrintable(run.errText()));
    }

    void closedStandardOutputFails_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("summary") << QStringList{"--summary"};
        QTest::newRow("json") << QStringList{"--json"};
        QTest::newRow("save-npy") << QStringList{"--summary", "--save-npy", "DIR"};
    }

    // Refused before anything is opened: a file opened now would be given descriptor 1 and the
    // report would go into it (with --save-npy, into an array).
    void closedStandardOutputFails() {
        QFETCH(QStringList, args);
        QTemporaryDir tmp;
        args.replaceInStrings(QStringLiteral("DIR"), tmp.filePath("out"));
        const ProcessRun run = runCli(args, {.closeStandardOutput = true});
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.errText().contains("tpviz-cli: standard output is closed"),
                 qPrintable(run.errText()));
        QVERIFY(!QFile::exists(tmp.filePath("out")));
    }

    // A report redirected into a file on a disk without room for it (2 KiB here) fails; one that
    // fits is written whole.
    void reportIntoAFullDiskFails() {
        QTemporaryDir tmp;
        const QString report = tmp.filePath("report.json");
        const ProcessRun full =
            runCliWithFileLimit(4, kScene + QStringList{"--json"}, "> '" + report + "'");
        QVERIFY2(full.finished, qPrintable(full.errText()));
        QCOMPARE(full.exitCode, 2);
        QVERIFY2(full.errText().contains("standard output cannot be written: File too large"),
                 qPrintable(full.errText()));

        const ProcessRun fits = runCliWithFileLimit(
            4, {"--summary", "--json", "--features", "8", "--tp", "2"}, "> '" + report + "'");
        QCOMPARE(fits.exitCode, 0);
        QFile file(report);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().trimmed().endsWith('}'));
    }

    // The disk fills up at the partials: the earlier run's arrays stay, no temporary is left.
    void saveNpyOntoAFullDiskLeavesTheFolder() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("out");
        const ProcessRun first =
            runCli({"--tp", "8", "--features", "64", "--summary", "--save-npy", out});
        QCOMPARE(first.exitCode, 0);
        const QStringList before = namesIn(out);
        QFile kernel(out + "/kernel.npy");
        QVERIFY(kernel.open(QIODevice::ReadOnly));
        const QByteArray kernelBefore = kernel.readAll();
        kernel.close();

        const ProcessRun full =
            runCliWithFileLimit(4, kScene + QStringList{"--summary", "--save-npy", out});
        QVERIFY2(full.finished, qPrintable(full.errText()));
        QCOMPARE(full.exitCode, 2);
        QVERIFY2(full.errText().contains("File too large; nothing in " + out + " was changed"),
                 qPrintable(full.errText()));
        QCOMPARE(namesIn(out), before);
        QVERIFY(kernel.open(QIODevice::ReadOnly));
        QCOMPARE(kernel.readAll(), kernelBefore);
    }

    // A link planted at kernel.npy is replaced; a second run with a smaller tp leaves only its own
    // partials; a folder holding another file is refused before the scene is computed.
    void saveNpyKeepsToItsOwnFolder() {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("out");
        const QString target = tmp.filePath("elsewhere");
        QVERIFY(QDir().mkpath(out));
        {
            QFile file(target);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("keep me");
        }
        QVERIFY(QFile::link(target, out + "/kernel.npy"));

        QCOMPARE(runCli({"--tp", "4", "--features", "8", "--summary", "--save-npy", out}).exitCode,
                 0);
        QFile file(target);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("keep me"));
        QVERIFY(!QFileInfo(out + "/kernel.npy").isSymLink());

        QCOMPARE(runCli({"--tp", "2", "--features", "8", "--summary", "--save-npy", out}).exitCode,
                 0);
        QCOMPARE(namesIn(out), (QStringList{"bias.npy", "kernel.npy", "output.npy", "partial_0.npy",
                                            "partial_1.npy", "reference.npy", "x.npy"}));

        QVERIFY(QDir(out).mkdir("notes"));
        const ProcessRun refused = runCli({"--tp", "1", "--features", "8", "--save-npy", out});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.errText().contains("tpviz-cli: --save-npy: " + out +
                                            ": holds notes, which is not arrays tpviz writes"),
                 qPrintable(refused.errText()));
        QVERIFY(refused.out.isEmpty());
        QCOMPARE(namesIn(out).size(), 8);
    }
};

QTEST_GUILESS_MAIN(TestCliWrites)
#include "tst_cli_writes.moc"
