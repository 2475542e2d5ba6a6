// The .npy reader and writer against the NumPy format specification (numpy.lib.format): files
// written byte by byte here, round trips through our writer, every refused input, and numpy
// itself reading our files and writing files we read.

#include "io/npy.h"
#include "matrix_bits.h"
#include "python_numpy.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

using namespace tp;
using tp::test::sameBits;

namespace {

constexpr std::int64_t kBudget = std::int64_t(1) << 30;

// An .npy file as the specification lays it out: magic, version, header length (2 bytes LE for
// 1.0, 4 for 2.0 and 3.0), the dict padded with spaces and ended by '\n' to a multiple of
// `align`, then the data.
std::string npyByHand(int major, const std::string& dict, const std::string& data, int align = 64) {
    const std::size_t lengthBytes = major == 1 ? 2 : 4;
    const std::size_t preamble = 6 + 2 + lengthBytes;
    std::string header = dict;
    while ((preamble + header.size() + 1) % std::size_t(align) != 0)
        header += ' ';
    header += '\n';
    std::string bytes = "\x93NUMPY";
    bytes += char(major);
    bytes += char(0);
    for (std::size_t i = 0; i < lengthBytes; ++i)
        bytes += char((header.size() >> (8 * i)) & 0xff);
    return bytes + header + data;
}

template <typename T>
std::string rawBytes(std::initializer_list<T> values, bool bigEndian = false) {
    std::string bytes;
    for (const T value : values) {
        char b[sizeof(T)];
        std::memcpy(b, &value, sizeof(T));
        if (bigEndian)
            std::reverse(b, b + sizeof(T));
        bytes.append(b, sizeof(T));
    }
    return bytes;
}

std::string rawHalf(std::initializer_list<std::uint16_t> bits) {
    return rawBytes<std::uint16_t>(bits);
}

void writeFile(const QString& path, const std::string& bytes) {
    std::ofstream(path.toStdString(), std::ios::binary) << bytes;
}

using test::pythonPresent;
using test::pythonWithNumpy;

// Runs a python3 with numpy; returns its stdout, or its stderr after a failure.
QString runNumpy(const QString& script, const QStringList& args) {
    const test::ProcessRun run = test::runNumpy(script, args);
    if (!run.finished || run.exitCode != 0)
        return run.errText();
    return run.outText().trimmed();
}

}  // namespace

class TestNpy : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString path(const char* name) const { return m_dir.filePath(name); }

private slots:
    void handWrittenFilesRead_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<QString>("notice");
        const Matrix expected{{1.f, -2.f, 0.5f}, {3.f, 65504.f, -0.f}};
        auto add = [](const char* name, const std::string& bytes, int rows, int cols,
                      const char* notice) {
            QTest::newRow(name) << QByteArray::fromStdString(bytes) << rows << cols
                                << QString(notice);
        };
        add("1.0 <f4 C (2, 3)",
            npyByHand(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                      rawBytes<float>({1, -2, 0.5f, 3, 65504, -0.f})),
            2, 3, "");
        add("2.0 <f8 (2, 3)",
            npyByHand(2, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
                      rawBytes<double>({1, -2, 0.5, 3, 65504, -0.0})),
            2, 3, "converted from float64");
        add("3.0 <f2 (2, 3)",
            npyByHand(3, "{\"descr\": \"<f2\", \"fortran_order\": False, \"shape\": (2, 3)}",
                      rawHalf({0x3c00, 0xc000, 0x3800, 0x4200, 0x7bff, 0x8000})),
            2, 3, "converted from float16");
        add(">f4 big-endian",
            npyByHand(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }",
                      rawBytes<float>({1, -2, 0.5f, 3, 65504, -0.f}, true)),
            2, 3, "big-endian");
        add(">f8 big-endian",
            npyByHand(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }",
                      rawBytes<double>({1, -2, 0.5, 3, 65504, -0.0}, true)),
            2, 3, "big-endian");
        add("fortran order (2, 3)",
            npyByHand(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                      rawBytes<float>({1, 3, -2, 65504, 0.5f, -0.f})),
            2, 3, "Fortran order");
        add("old 16-byte padding, 3L",
            npyByHand(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L)}",
                      rawBytes<float>({1, -2, 0.5f, 3, 65504, -0.f}), 16),
            2, 3, "");
        add("1-D (6,)",
            npyByHand(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }",
                      rawBytes<float>({1, -2, 0.5f, 3, 65504, -0.f})),
            1, 6, "");
    }
    void handWrittenFilesRead() {
        QFETCH(QByteArray, bytes);
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(QString, notice);
        writeFile(path("hand.npy"), bytes.toStdString());
        const FloatArrayRead read = readNpy(path("hand.npy").toStdString(), kBudget);
        QCOMPARE(QString::fromStdString(read.error), QString());
        const Matrix expected{{1.f, -2.f, 0.5f, 3.f, 65504.f, -0.f}};
        QVERIFY(sameBits(read.array->values, expected.reshaped<Eigen::RowMajor>(rows, cols)));
        QCOMPARE(read.array->shape.size(), std::size_t(rows == 1 ? 1 : 2));
        if (notice.isEmpty())
            QCOMPARE(QString::fromStdString(read.array->notice), QString());
        else
            QVERIFY2(QString::fromStdString(read.array->notice).contains(notice),
                     read.array->notice.c_str());
    }

    // float64 values beyond float32's range become infinite, and the notice counts them (it said
    // only "rounded to the nearest float32"); the largest float32 and the values that round to it
    // are not counted.
    void float64BeyondFloat32SaysSo() {
        const double big = 1e300, edge = double(std::numeric_limits<float>::max());
        writeFile(path("big.npy"),
                  npyByHand(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }",
                            rawBytes<double>({big, -big, edge, 1.0})));
        const FloatArrayRead read = readNpy(path("big.npy").toStdString(), kBudget);
        QVERIFY(read.array);
        QVERIFY(std::isinf(read.array->values(0, 0)) && std::isinf(read.array->values(0, 1)));
        QCOMPARE(read.array->values(0, 2), std::numeric_limits<float>::max());
        QCOMPARE(read.array->notice, std::string("converted from float64 to float32 (rounded to "
                                                 "the nearest float32); 2 of its values are "
                                                 "beyond float32's range and became infinite"));
    }

    // Fortran-order and converted data larger than a read chunk: every element lands where its
    // row and column say, across the chunks' boundaries (which fall inside a column here).
    void chunkedReadsPlaceEveryElement_data() {
        QTest::addColumn<QString>("descr");
        QTest::addColumn<bool>("fortran");
        QTest::newRow("<f4 Fortran") << "<f4" << true;
        QTest::newRow("<f8 Fortran") << "<f8" << true;
        QTest::newRow(">f4 Fortran") << ">f4" << true;
        QTest::newRow("<f8 C") << "<f8" << false;
    }
    void chunkedReadsPlaceEveryElement() {
        QFETCH(QString, descr);
        QFETCH(bool, fortran);
        const Index rows = 1031;
        const Index cols = 1201;  // rows * cols > kNpyReadChunkElements, not a multiple of rows
        QVERIFY(rows * cols > kNpyReadChunkElements && kNpyReadChunkElements % rows != 0);
        Matrix expected(rows, cols);
        for (Index r = 0; r < rows; ++r)
            for (Index c = 0; c < cols; ++c)
                expected(r, c) = float(r * cols + c);  // exact in float32, float64 and 1 per cell
        std::string data;
        const bool wide = descr.endsWith("f8");
        const bool big = descr.startsWith(">");
        for (Index i = 0; i < rows * cols; ++i) {
            const Index r = fortran ? i % rows : i / cols;
            const Index c = fortran ? i / rows : i % cols;
            const float v = expected(r, c);
            data += wide ? rawBytes<double>({double(v)}, big) : rawBytes<float>({v}, big);
        }
        const std::string header = "{'descr': '" + descr.toStdString() +
                                   "', 'fortran_order': " + (fortran ? "True" : "False") +
                                   ", 'shape': (" + std::to_string(rows) + ", " +
                                   std::to_string(cols) + "), }";
        writeFile(path("chunked.npy"), npyByHand(1, header, data));
        const FloatArrayRead read = readNpy(path("chunked.npy").toStdString(), kBudget);
        QVERIFY2(read.array, read.error.c_str());
        QVERIFY(sameBits(read.array->values, expected));
    }

    void roundTripKeepsEveryBit() {
        // Values whose bits matter: signed zero, subnormals, infinities, NaN payloads, extremes.
        Matrix m(3, 5);
        const std::uint32_t patterns[] = {0x00000000, 0x80000000, 0x00000001, 0x807fffff,
                                          0x7f800000, 0xff800000, 0x7fc00001, 0xffbfffff,
                                          0x7f7fffff, 0x3f800000, 0xbf9e0652, 0x33d6bf95,
                                          0x4b7fffff, 0x00800000, 0x12345678};
        for (Index i = 0; i < m.size(); ++i)
            m.data()[i] = std::bit_cast<float>(patterns[i]);
        const std::string file = path("round.npy").toStdString();
        QCOMPARE(QString::fromStdString(writeNpy(file, m)), QString());
        const FloatArrayRead read = readNpy(file, kBudget);
        QVERIFY2(read.array, read.error.c_str());
        QVERIFY(sameBits(read.array->values, m));
        QCOMPARE(read.array->shape, (std::vector<std::int64_t>{3, 5}));

        const RowVector v = m.row(1);
        QCOMPARE(QString::fromStdString(writeNpy(file, v, true)), QString());
        const FloatArrayRead vector = readNpy(file, kBudget);
        QVERIFY2(vector.array, vector.error.c_str());
        QCOMPARE(vector.array->shape, (std::vector<std::int64_t>{5}));
        QVERIFY(sameBits(vector.array->values, Matrix(v)));
    }

    void writerFollowsTheSpecification() {
        const std::string bytes = npyBytes(Matrix{{1.f, 2.f}}, false);
        const std::string expected =
            npyByHand(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }",
                      rawBytes<float>({1.f, 2.f}));
        QCOMPARE(QByteArray::fromStdString(bytes), QByteArray::fromStdString(expected));
        QCOMPARE(bytes.size() % 64, std::size_t(8));  // the data starts at 64
    }

    void badInputsSayWhy_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        const std::string ok = rawBytes<float>({1, 2, 3, 4, 5, 6});
        auto add = [](const char* name, const std::string& bytes, const char* message) {
            QTest::newRow(name) << QByteArray::fromStdString(bytes) << QString(message);
        };
        add("empty", "", "is empty (0 bytes)");
        add("bad magic", "\x93NUMPZ\x01\x00\x00\x00", "not an .npy file");
        add("version 4.0", npyByHand(1, "{}", "").replace(6, 1, "\x04"), "version 4.0");
        add("header past the end", std::string("\x93NUMPY\x01\x00\xff\x00{", 11),
            "runs past the end of the file");
        add("not a dict", npyByHand(1, "['<f4']", ok),
            "bad header: the header is not a Python dict");
        add("lacks shape", npyByHand(1, "{'descr': '<f4', 'fortran_order': False}", ok),
            "lacks the key 'shape'");
        add("extra key",
            npyByHand(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}", ok),
            "has the key 'x'");
        add("shape not ints",
            npyByHand(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2.5, 3)}", ok),
            "'shape' is not a tuple");
        add("negative dim",
            npyByHand(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 6)}", ok),
            "'shape' is not a tuple");
        add("fortran_order 1",
            npyByHand(1, "{'descr': '<f4', 'fortran_order': 1, 'shape': (6,)}", ok),
            "'fortran_order' is not True or False");
        add("structured dtype",
            npyByHand(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,)}", ok),
            "structured arrays");
        add("int32", npyByHand(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (6,)}", ok),
            "dtype '<i4' is not a float type");
        add("complex", npyByHand(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (3,)}", ok),
            "dtype '<c8' is not a float type");
        add("3-D", npyByHand(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 3)}", ok),
            "3 dimensions; tpviz reads 1-D and 2-D");
        add("0-D", npyByHand(1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}", ok),
            "0 dimensions");
        add("truncated",
            npyByHand(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4)}", ok),
            "truncated data: shape (2, 4) of float32 needs 32 bytes after the header, the file has "
            "24");
        add("extra data",
            npyByHand(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2)}", ok),
            "8 bytes after the data its header describes");
        add("shape overflows int64",
            npyByHand(1,
                      "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, "
                      "4294967296)}",
                      ok),
            "too large to exist");
        add("shape times itemsize overflows",
            npyByHand(
                1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,)}", ok),
            "too large to exist");
        add("huge but claimed",
            npyByHand(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000)}",
                      ok),
            "truncated data");
    }
    void badInputsSayWhy() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        writeFile(path("bad.npy"), bytes.toStdString());
        const FloatArrayRead read = readNpy(path("bad.npy").toStdString(), kBudget);
        QVERIFY(!read.array);
        const QString error = QString::fromStdString(read.error);
        QVERIFY2(error.startsWith(path("bad.npy") + ": "), qPrintable(error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    // numpy.load refuses a header over max_header_size, 10,000 bytes; so does this reader, on the
    // length alone, before it makes room for the header.
    void headerOverNumpysCapIsRefused() {
        const std::string dict =
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }" + std::string(10'000, ' ');
        writeFile(path("long.npy"), npyByHand(2, dict, rawBytes<float>({1, 2})));
        const FloatArrayRead read = readNpy(path("long.npy").toStdString(), kBudget);
        QVERIFY(!read.array);
        QCOMPARE(QString::fromStdString(read.error),
                 path("long.npy") +
                     ": the header length (10100 bytes) is over the 10000 bytes numpy reads "
                     "(numpy.load's max_header_size)");
    }

    // A 4 GiB header length in a file that long (sparse: it takes no room): refused in words
    // before 4 GiB are allocated or read.
    void fourGiBHeaderLengthIsRefusedUnread() {
        QFile file(path("huge.npy"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write("\x93NUMPY\x02\x00\xff\xff\xff\xff", 12), qint64(12));
        QVERIFY(file.resize(qint64(12) + 0xffffffffLL + 16));
        file.close();
        const FloatArrayRead read = readNpy(path("huge.npy").toStdString(), kBudget);
        QVERIFY(!read.array);
        QCOMPARE(QString::fromStdString(read.error),
                 path("huge.npy") +
                     ": the header length (4294967295 bytes) is over the 10000 bytes numpy reads "
                     "(numpy.load's max_header_size)");
    }

    void missingFileAndFolderAreRefused() {
        const FloatArrayRead missing = readNpy(path("nope.npy").toStdString(), kBudget);
        QCOMPARE(QString::fromStdString(missing.error),
                 path("nope.npy") + ": cannot be opened: No such file or directory");
        const FloatArrayRead folder = readNpy(m_dir.path().toStdString(), kBudget);
        QCOMPARE(QString::fromStdString(folder.error), m_dir.path() + ": is a folder, not a file");
    }

    void overTheMemoryBudgetIsRefused() {
        const std::string file = path("big.npy").toStdString();
        writeNpy(file, Matrix::Zero(64, 64));
        QVERIFY(readNpy(file, 64 * 64 * 4).array);
        const FloatArrayRead read = readNpy(file, 64 * 64 * 4 - 1);
        QVERIFY(!read.array);
        QVERIFY2(QString::fromStdString(read.error).contains("over the memory budget"),
                 read.error.c_str());
    }

    void everyFloat16ConvertsExactly() {
#ifdef __FLT16_MAX__
        for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
            const float expected = float(std::bit_cast<_Float16>(std::uint16_t(bits)));
            const float got = float16ToFloat32(std::uint16_t(bits));
            if (std::isnan(expected))
                QVERIFY(std::isnan(got) && std::signbit(got) == std::signbit(expected));
            else
                QCOMPARE(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(expected));
        }
#else
        QSKIP("this compiler has no _Float16 to compare with");
#endif
    }

    void bfloat16IsTheUpperHalf() {
        QCOMPARE(bfloat16ToFloat32(0x3f80), 1.0f);
        QCOMPARE(bfloat16ToFloat32(0xc0a0), -5.0f);
        QCOMPARE(std::bit_cast<std::uint32_t>(bfloat16ToFloat32(0x0001)), 0x00010000u);
    }

    void numpyReadsOurFiles() {
        if (!pythonPresent())
            QSKIP("python3 is not installed (cmake/install-deps.sh installs python3-numpy)");
        QVERIFY2(!pythonWithNumpy().isEmpty(),
                 "python3 cannot import numpy: install python3-numpy (cmake/install-deps.sh)");
        const Matrix m{{1.5f, -0.f, std::numeric_limits<float>::denorm_min()},
                       {3.25e-8f, -7.f, std::numeric_limits<float>::max()}};
        const std::string file = path("ours.npy").toStdString();
        QCOMPARE(QString::fromStdString(writeNpy(file, m)), QString());
        const QString out = runNumpy(
            "import sys, numpy as np\n"
            "a = np.load(sys.argv[1])\n"
            "print(a.dtype, a.shape, a.flags['C_CONTIGUOUS'], a.tobytes().hex())",
            {QString::fromStdString(file)});
        const QByteArray hex =
            QByteArray(reinterpret_cast<const char*>(m.data()), int(m.size() * 4)).toHex();
        QCOMPARE(out, "float32 (2, 3) True " + QString::fromLatin1(hex));
    }

    void weReadNumpysFiles() {
        if (!pythonPresent())
            QSKIP("python3 is not installed (cmake/install-deps.sh installs python3-numpy)");
        QVERIFY2(!pythonWithNumpy().isEmpty(),
                 "python3 cannot import numpy: install python3-numpy (cmake/install-deps.sh)");
        // numpy writes each layout; it prints the float32 bits it expects us to read.
        const QString out = runNumpy(
            "import sys, os, numpy as np\n"
            "a = np.arange(-6, 6, dtype=np.float64).reshape(3, 4) / 7\n"
            "cases = {'f8': a, 'f2': a.astype(np.float16), 'f4be': a.astype('>f4'),\n"
            "         'fortran': np.asfortranarray(a.astype(np.float32)), 'vec': "
            "a[0].astype(np.float32)}\n"
            "for name, arr in cases.items():\n"
            "    np.save(os.path.join(sys.argv[1], name + '.npy'), arr)\n"
            "    print(name, "
            "np.ascontiguousarray(arr.astype(np.float32)).astype('<f4').tobytes().hex())",
            {m_dir.path()});
        const QStringList lines = out.split('\n');
        QCOMPARE(lines.size(), 5);
        for (const QString& line : lines) {
            const QStringList parts = line.split(' ');
            const FloatArrayRead read =
                readNpy(path(qPrintable(parts[0] + ".npy")).toStdString(), kBudget);
            QVERIFY2(read.array, read.error.c_str());
            const Matrix& v = read.array->values;
            QCOMPARE(
                QString::fromLatin1(
                    QByteArray(reinterpret_cast<const char*>(v.data()), int(v.size() * 4)).toHex()),
                parts[1]);
        }
    }
};

QTEST_APPLESS_MAIN(TestNpy)
#include "tst_npy.moc"
