// tpviz-cli given hostile input: special files where array and scene files belong, empty paths,
// headers that claim gigabytes, arrays the system cannot give, and files whose text would drive
// the terminal. Each is refused in words with exit 2, at once.

#include "io/npy.h"
#include "process_run.h"
#include "sanitizer_build.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace tp;

namespace {

using Run = test::ProcessRun;

// A named pipe must not make a run wait for a writer: this is far longer than any refusal takes.
constexpr int kPromptMs = 30000;

Run runCli(const QStringList& args) {
    return test::runProcess(QStringLiteral(TPVIZ_CLI_PATH), args, {.timeoutMs = kPromptMs});
}

// tpviz-cli under an address-space limit of `kilobytes` (ulimit -v), one OpenMP thread so that
// thread stacks take the same room on every machine.
Run runCliLimited(int kilobytes, const QStringList& args) {
    return test::runProcess(
        QStringLiteral("/bin/sh"),
        QStringList{"-c", "ulimit -v " + QString::number(kilobytes) + " && exec \"$0\" \"$@\"",
                    QStringLiteral(TPVIZ_CLI_PATH)} +
            args,
        {.environment = {{"OMP_NUM_THREADS", "1"}}});
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

// An .npy file of `header` (format 2.0, header length as given) whose data is `dataBytes` of
// zeros, left sparse so that it takes no room on disk.
bool writeSparseNpy(const QString& path, quint32 headerLength, const QByteArray& header,
                    qint64 dataBytes) {
    QByteArray bytes("\x93NUMPY\x02\x00", 8);
    for (int i = 0; i < 4; ++i)
        bytes += char((headerLength >> (8 * i)) & 0xff);
    QFile file(path);
    return file.open(QIODevice::WriteOnly) &&
           file.write(bytes + header) == bytes.size() + header.size() &&
           file.resize(12 + qint64(headerLength) + dataBytes);
}

}  // namespace

class TestCliHostile : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        for (const char* name : {"pipe.npy", "pipe.safetensors", "pipe.tpviz"})
            QCOMPARE(::mkfifo(qPrintable(path(name)), 0600), 0);
        QCOMPARE(writeNpy(path("k.npy").toStdString(), Matrix::Ones(3, 4)), std::string());
        QVERIFY(writeFile(path("names-pipe.tpviz"),
                          R"({"format": "tpviz-scene", "version": 1, "tp_size": 2,
                              "arrays": {"kernel": "k.npy", "x": "pipe.npy"}})"));
    }

    void specialFilesAreRefusedAtOnce_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString fifo = ": is a named pipe (FIFO), not a regular file";
        QTest::newRow("--kernel FIFO")
            << QStringList{"--kernel", path("pipe.npy")} << "kernel: " + path("pipe.npy") + fifo;
        QTest::newRow("--kernel FIFO.safetensors:w")
            << QStringList{"--kernel", path("pipe.safetensors") + ":w"}
            << "kernel: " + path("pipe.safetensors") + fifo;
        QTest::newRow("--x FIFO") << QStringList{"--kernel", path("k.npy"), "--tp",
                                                 "2",        "--x",         path("pipe.npy")}
                                  << "x: " + path("pipe.npy") + fifo;
        QTest::newRow("--bias FIFO")
            << QStringList{"--kernel", path("k.npy"), "--tp", "2", "--bias", path("pipe.npy")}
            << "bias: " + path("pipe.npy") + fifo;
        QTest::newRow("--scene FIFO") << QStringList{"--scene", path("pipe.tpviz")}
                                      << "--scene: " + path("pipe.tpviz") + fifo;
        QTest::newRow("a scene naming a FIFO")
            << QStringList{"--scene", path("names-pipe.tpviz")}
            << "--scene: " + path("names-pipe.tpviz") + ": 'arrays' x: " + path("pipe.npy") + fifo;
        QTest::newRow("--kernel /dev/zero") << QStringList{"--kernel", "/dev/zero"}
                                            << "kernel: /dev/zero: is a device, not a regular file";
        QTest::newRow("--kernel a folder")
            << QStringList{"--kernel", m_dir.path()}
            << "kernel: " + m_dir.path() + ": is a folder, not a file";
        QTest::newRow("--scene /proc/self/status")
            << QStringList{"--scene", "/proc/self/status"}
            << "--scene: /proc/self/status: its size is not known before it is read";
        QTest::newRow("--kernel /proc/self/mem")
            << QStringList{"--kernel", "/proc/self/mem"}
            << "kernel: /proc/self/mem: reading failed: Input/output error";
    }
    void specialFilesAreRefusedAtOnce() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run run = runCli(args);
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.errText().contains("tpviz-cli: " + message), qPrintable(run.errText()));
    }

    void emptyPathsAreRefused_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("--kernel ''")
            << QStringList{"--kernel", ""} << "--kernel: an empty path names no file";
        QTest::newRow("--kernel=")
            << QStringList{"--kernel="} << "--kernel: an empty path names no file";
        QTest::newRow("--x ''") << QStringList{"--x", ""} << "--x: an empty path names no file";
        QTest::newRow("--bias ''") << QStringList{"--bias", ""} << "--bias: '' is not zeros";
        QTest::newRow("--scene ''")
            << QStringList{"--scene", ""} << "--scene: an empty path names no file";
        QTest::newRow("--save-npy ''")
            << QStringList{"--save-npy", ""} << "--save-npy: an empty path names no folder";
    }
    void emptyPathsAreRefused() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run run = runCli(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.errText().contains("tpviz-cli: " + message), qPrintable(run.errText()));
    }

    // A header length of 4 GiB in a file that long: refused on the length, under a memory limit
    // that 4 GiB would not fit (it ended in std::bad_alloc and abort).
    void fourGiBHeaderUnderAMemoryLimit() {
        if (test::kSanitized)
            QSKIP("AddressSanitizer cannot run under a small address-space limit");
        QVERIFY(writeSparseNpy(path("huge-header.npy"), 0xffffffffu, "{", 16));
        const Run run = runCliLimited(600000, {"--kernel", path("huge-header.npy")});
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.errText(), "tpviz-cli: kernel: " + path("huge-header.npy") +
                                    ": the header length (4294967295 bytes) is over the 10000 "
                                    "bytes numpy reads (numpy.load's max_header_size)\n");
    }

    // A 512 MiB kernel is within the 2 GiB budget, but not within a 300 MB address space.
    void arrayTheSystemCannotGive() {
        if (test::kSanitized)
            QSKIP("AddressSanitizer cannot run under a small address-space limit");
        QByteArray dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (16384, 8192), }";
        while ((12 + dict.size() + 1) % 64)
            dict += ' ';
        dict += '\n';
        QVERIFY(
            writeSparseNpy(path("big.npy"), quint32(dict.size()), dict, qint64(16384) * 8192 * 4));
        const Run run = runCliLimited(300000, {"--kernel", path("big.npy"), "--summary"});
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.errText(), "tpviz-cli: kernel: " + path("big.npy") +
                                    ": not enough memory to read it: an allocation failed within "
                                    "the memory budget of 2.0 GiB; choose a smaller array\n");
    }

    // A 90 MB header is within the format's 100 MB, but its document is not within 500 MB. The
    // room is asked for before the document is built: nlohmann::json frees a half-built document
    // with an allocation of its own, and when that fails too the program ends (it did).
    void headerTheSystemCannotHold() {
        if (test::kSanitized)
            QSKIP("AddressSanitizer cannot run under a small address-space limit");
        QByteArray zeros;
        zeros.reserve(90'000'000);
        while (zeros.size() < 90'000'000)
            zeros += "0,0,0,0,0,0,0,0,0,0,";
        const QByteArray header =
            R"({"w":{"dtype":"F32","data_offsets":[0,0],"shape":[)" + zeros + "0]}}";
        QByteArray length;
        for (int i = 0; i < 8; ++i)
            length += char((quint64(header.size()) >> (8 * i)) & 0xff);
        QVERIFY(writeFile(path("big-header.safetensors"), length + header));
        const Run run = runCliLimited(500000, {"--kernel", path("big-header.safetensors") + ":w"});
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.errText(), "tpviz-cli: kernel: " + path("big-header.safetensors") +
                                    ": the header needs about 2.8 GiB in memory to be read, "
                                    "more than can be allocated\n");
    }

    // Escape sequences in a scene file reach the terminal as text: no ESC or BEL byte is printed.
    void controlCharactersAreEscaped() {
        QVERIFY(writeFile(path("escapes.tpviz"),
                          "{\"format\": \"tpviz-scene\", \"version\": 1, "
                          "\"\\u001b]0;x\\u0007\\u001b[2J\": 1, \"mode\": \"\\u009b2J\"}"));
        const Run run = runCli({"--scene", path("escapes.tpviz")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(
            !run.err.contains('\x1b') && !run.err.contains('\x07') && !run.err.contains("\xc2\x9b"),
            run.err.constData());
        QVERIFY2(run.errText().contains("unknown key '\\u001b]0;x\\u0007\\u001b[2J'"),
                 qPrintable(run.errText()));
        QVERIFY2(run.errText().contains("'mode' '\\u009b2J' is not column or row"),
                 qPrintable(run.errText()));
    }

    void scenePathWithANulIsRefused() {
        QVERIFY(writeFile(path("nul.tpviz"), R"({"format": "tpviz-scene", "version": 1,
                              "arrays": {"kernel": "k.npy\u0000junk"}})"));
        const Run run = runCli({"--scene", path("nul.tpviz")});
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.errText(), "tpviz-cli: --scene: " + path("nul.tpviz") +
                                    ": 'arrays' has 'kernel' 'k.npy\\u0000junk' that holds a NUL "
                                    "character, which no file name can\n");
    }
};

QTEST_APPLESS_MAIN(TestCliHostile)
#include "tst_cli_hostile.moc"
