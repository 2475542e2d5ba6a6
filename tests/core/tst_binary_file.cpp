// InputFile, the one way tpviz opens a file for reading: anything that is not a regular file of
// a known size is refused in words before it is opened for reading (a named pipe would wait for
// a writer forever, /dev/zero never ends), and each reader (.npy, .safetensors, .tpviz) refuses
// it so.

#include "io/binary_file.h"
#include "io/npy.h"
#include "io/safetensors.h"
#include "io/scene_file.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <functional>

using namespace tp;

namespace {

// The error InputFile gives for `path`, or "" when it opened it.
QString openError(const std::string& path) {
    const InputFile file(path);
    return file.isOpen() ? QString() : QString::fromStdString(file.error());
}

// A Unix socket bound at `path`; the descriptor, or -1.
int boundSocket(const std::string& path) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (fd < 0 || path.size() >= sizeof address.sun_path)
        return -1;
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

}  // namespace

class TestBinaryFile : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QCOMPARE(::mkfifo(path("pipe").c_str(), 0600), 0);
        QCOMPARE(::symlink(path("pipe").c_str(), path("link-to-pipe").c_str()), 0);
        QFile regular(QString::fromStdString(path("regular")));
        QVERIFY(regular.open(QIODevice::WriteOnly));
        QCOMPARE(regular.write("12345678"), qint64(8));
        regular.close();
        QCOMPARE(::symlink(path("regular").c_str(), path("link-to-regular").c_str()), 0);
        QVERIFY(QFile(QString::fromStdString(path("empty"))).open(QIODevice::WriteOnly));
    }

    void regularFileAndLinkToOneRead() {
        for (const char* name : {"regular", "link-to-regular"}) {
            InputFile file(path(name));
            QVERIFY2(file.isOpen(), file.error().c_str());
            QCOMPARE(file.size(), std::int64_t(8));
            char bytes[4] = {};
            QVERIFY(file.readAt(2, bytes, 4));
            QCOMPARE(QByteArray(bytes, 4), QByteArray("3456"));
            QVERIFY(!file.readAt(6, bytes, 4));
            QVERIFY2(QString::fromStdString(file.error()).contains("ends before the 4 bytes"),
                     file.error().c_str());
        }
    }

    void notARegularFileIsRefusedBeforeOpening_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        const QString dir = m_dir.path();
        QTest::newRow("named pipe")
            << dir + "/pipe" << dir + "/pipe: is a named pipe (FIFO), not a regular file";
        QTest::newRow("link to a named pipe")
            << dir + "/link-to-pipe"
            << dir + "/link-to-pipe: is a named pipe (FIFO), not a regular file";
        QTest::newRow("folder") << dir << dir + ": is a folder, not a file";
        QTest::newRow("/dev/zero") << "/dev/zero"
                                   << "/dev/zero: is a device, not a regular file";
        QTest::newRow("/dev/null") << "/dev/null"
                                   << "/dev/null: is a device, not a regular file";
        QTest::newRow("empty file") << dir + "/empty" << dir + "/empty: is empty (0 bytes)";
        QTest::newRow("empty path") << ""
                                    << "an empty path names no file";
        QTest::newRow("missing") << dir + "/nope"
                                 << dir + "/nope: cannot be opened: No such file or directory";
        QTest::newRow("/proc file with content")
            << "/proc/self/status"
            << "/proc/self/status: its size is not known before it is read (a /proc or /sys "
               "file?); tpviz reads regular files of a known size";
        QTest::newRow("/proc/self/mem") << "/proc/self/mem"
                                        << "/proc/self/mem: reading failed: Input/output error";
    }
    void notARegularFileIsRefusedBeforeOpening() {
        QFETCH(QString, file);
        QFETCH(QString, message);
        QCOMPARE(openError(file.toStdString()), message);
    }

    void socketIsRefused() {
        const std::string socketPath = path("socket");
        const int fd = boundSocket(socketPath);
        QVERIFY(fd >= 0);
        QCOMPARE(openError(socketPath),
                 QString::fromStdString(socketPath) + ": is a socket, not a regular file");
        ::close(fd);
    }

    void pathWithNulIsRefused() {
        const std::string withNul = path("regular") + std::string("\0junk", 5);
        QCOMPARE(openError(withNul), QString::fromStdString(path("regular")) +
                                         "\\u0000junk: the path holds a NUL character, which no "
                                         "file name can");
    }

    // Every reader refuses a named pipe in its place, in the same words, and returns at once.
    void everyReaderRefusesANamedPipe_data() {
        QTest::addColumn<QString>("reader");
        QTest::newRow("npy") << "npy";
        QTest::newRow("safetensors tensor") << "safetensors tensor";
        QTest::newRow("safetensors index") << "safetensors index";
        QTest::newRow("scene file") << "scene file";
    }
    void everyReaderRefusesANamedPipe() {
        QFETCH(QString, reader);
        const std::string pipe = path("pipe");
        const std::map<QString, std::function<std::string()>> readers = {
            {"npy", [&] { return readNpy(pipe, 1 << 20).error; }},
            {"safetensors tensor", [&] { return readSafetensor(pipe, "w", false, 1 << 20).error; }},
            {"safetensors index", [&] { return readSafetensorsIndex(pipe).error; }},
            {"scene file",
             [&] {
                 const SceneFileRead read = readSceneFile(pipe);
                 return read.errors.empty() ? std::string() : read.errors.front();
             }},
        };
        QCOMPARE(QString::fromStdString(readers.at(reader)()),
                 QString::fromStdString(pipe) + ": is a named pipe (FIFO), not a regular file");
    }
};

QTEST_APPLESS_MAIN(TestBinaryFile)
#include "tst_binary_file.moc"
