// The safetensors reader and writer against the format's specification: files written byte by
// byte here (8-byte little-endian header length, JSON header, byte buffer), round trips through
// our writer, and every refused input.

#include "io/safetensors.h"
#include "matrix_bits.h"

#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cstring>
#include <fstream>

using namespace tp;
using tp::test::sameBits;

namespace {

constexpr std::int64_t kBudget = std::int64_t(1) << 30;

std::string lengthPrefix(std::uint64_t length) {
    std::string bytes;
    for (int i = 0; i < 8; ++i)
        bytes += char((length >> (8 * i)) & 0xff);
    return bytes;
}

// A safetensors file: the header length, the header text, the byte buffer.
std::string safetensorsByHand(const std::string& header, const std::string& buffer) {
    return lengthPrefix(header.size()) + header + buffer;
}

template <typename T>
std::string rawBytes(std::initializer_list<T> values) {
    std::string bytes;
    for (const T value : values)
        bytes.append(reinterpret_cast<const char*>(&value), sizeof(T));
    return bytes;
}

void writeFile(const QString& path, const std::string& bytes) {
    std::ofstream(path.toStdString(), std::ios::binary) << bytes;
}

// `depth` nested JSON lists: [[[...]]].
std::string nestedList(std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

// A weight (out 2, in 3) as F32, a bias (3,) as F16, a (2, 2) BF16, a (1, 2) F64 and an I64 (2,).
const std::string kHeader = R"({"fc.weight":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
                            R"("fc.bias":{"dtype":"F16","shape":[3],"data_offsets":[24,30]},)"
                            R"("emb":{"dtype":"BF16","shape":[2,2],"data_offsets":[30,38]},)"
                            R"("scale":{"dtype":"F64","shape":[1,2],"data_offsets":[38,54]},)"
                            R"("steps":{"dtype":"I64","shape":[2],"data_offsets":[54,70]},)"
                            R"("__metadata__":{"format":"pt"}}  )";
const std::string kBuffer = rawBytes<float>({1, 2, 3, -4, -5, -6}) +
                            rawBytes<std::uint16_t>({0x3c00, 0xb800, 0x4000}) +
                            rawBytes<std::uint16_t>({0x3f80, 0xc000, 0x4040, 0x0000}) +
                            rawBytes<double>({0.1, -1e300}) + rawBytes<std::int64_t>({7, 8});

}  // namespace

class TestSafetensors : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }

private slots:
    void handWrittenFileReads() {
        const std::string file = path("hand.safetensors");
        writeFile(QString::fromStdString(file), safetensorsByHand(kHeader, kBuffer));

        const SafetensorsIndexRead index = readSafetensorsIndex(file);
        QVERIFY2(index.index, index.error.c_str());
        QCOMPARE(index.index->twoDimensionalNames(),
                 (std::vector<std::string>{"fc.weight", "emb", "scale"}));
        QCOMPARE(index.index->metadata.at("format"), std::string("pt"));
        QCOMPARE(index.index->bufferStart, std::int64_t(8 + kHeader.size()));

        const FloatArrayRead weight = readSafetensor(file, "fc.weight", false, kBudget);
        QVERIFY2(weight.array, weight.error.c_str());
        QVERIFY(sameBits(weight.array->values, Matrix{{1, 2, 3}, {-4, -5, -6}}));
        QCOMPARE(weight.array->notice, std::string());

        const FloatArrayRead kernel = readSafetensor(file, "fc.weight", true, kBudget);
        QVERIFY2(kernel.array, kernel.error.c_str());
        QVERIFY(sameBits(kernel.array->values, Matrix{{1, -4}, {2, -5}, {3, -6}}));
        QCOMPARE(kernel.array->shape, (std::vector<std::int64_t>{3, 2}));
        QCOMPARE(kernel.array->notice,
                 std::string("transposed from (2, 3) (out, in) to (3, 2) (in, out)"));

        const FloatArrayRead bias = readSafetensor(file, "fc.bias", false, kBudget);
        QVERIFY2(bias.array, bias.error.c_str());
        QVERIFY(sameBits(bias.array->values, Matrix{{1.f, -0.5f, 2.f}}));
        QCOMPARE(bias.array->shape, (std::vector<std::int64_t>{3}));
        QCOMPARE(bias.array->notice, std::string("converted from float16 to float32 (exactly)"));

        const FloatArrayRead emb = readSafetensor(file, "emb", false, kBudget);
        QVERIFY2(emb.array, emb.error.c_str());
        QVERIFY(sameBits(emb.array->values, Matrix{{1.f, -2.f}, {3.f, 0.f}}));
        QVERIFY(QString::fromStdString(emb.array->notice).contains("bfloat16"));

        const FloatArrayRead scale = readSafetensor(file, "scale", false, kBudget);
        QVERIFY2(scale.array, scale.error.c_str());
        QCOMPARE(scale.array->values(0, 0), 0.1f);  // rounded to the nearest float32
        QCOMPARE(scale.array->values(0, 1), -std::numeric_limits<float>::infinity());
        QVERIFY(QString::fromStdString(scale.array->notice).contains("float64"));
    }

    void roundTripKeepsEveryBit() {
        Matrix kernel(4, 3);
        for (Index i = 0; i < kernel.size(); ++i)
            kernel.data()[i] = std::bit_cast<float>(std::uint32_t(0x80000001u + 0x1234567u * i));
        const RowVector bias = RowVector::LinSpaced(3, -1.f, 1.f);
        const std::string file = path("round.safetensors");
        QCOMPARE(writeSafetensors(file, {{"kernel", {4, 3}, kernel}, {"bias", {3}, bias}},
                                  {{"source", "tpviz"}}),
                 std::string());
        const SafetensorsIndexRead index = readSafetensorsIndex(file);
        QVERIFY2(index.index, index.error.c_str());
        QCOMPARE(index.index->bufferStart % 8, std::int64_t(0));
        QCOMPARE(index.index->metadata.at("source"), std::string("tpviz"));
        const FloatArrayRead k = readSafetensor(file, "kernel", false, kBudget);
        const FloatArrayRead b = readSafetensor(file, "bias", false, kBudget);
        QVERIFY(k.array && b.array);
        QVERIFY(sameBits(k.array->values, kernel));
        QVERIFY(sameBits(b.array->values, Matrix(bias)));
    }

    void transposeOfALargeTensor() {
        // Not a multiple of the copy's tiles in either direction.
        const Matrix weight = Matrix::Random(130, 70);
        const std::string file = path("large.safetensors");
        QCOMPARE(writeSafetensors(file, {{"w", {130, 70}, weight}}), std::string());
        const FloatArrayRead read = readSafetensor(file, "w", true, kBudget);
        QVERIFY2(read.array, read.error.c_str());
        QCOMPARE(read.array->shape, (std::vector<std::int64_t>{70, 130}));
        QVERIFY(read.array->values == weight.transpose());
    }

    void badInputsSayWhy_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<bool>("transpose");
        QTest::addColumn<QString>("message");
        const std::string f32x2 = rawBytes<float>({1, 2});
        auto add = [](const char* name, const std::string& bytes, const char* tensor,
                      bool transpose, const char* message) {
            QTest::newRow(name) << QByteArray::fromStdString(bytes) << QString(tensor) << transpose
                                << QString(message);
        };
        auto one = [&](const std::string& entry, const std::string& buffer) {
            return safetensorsByHand("{\"w\":" + entry + "}", buffer);
        };
        add("too short", std::string("\x10\x00\x00", 3), "w", false,
            "too short for a safetensors file (3 bytes");
        add("header past the end", lengthPrefix(1000) + "{}", "w", false,
            "the header length (1000 bytes) runs past the end of the file (10 bytes)");
        add("header length 2^63", lengthPrefix(std::uint64_t(1) << 63) + "{}", "w", false,
            "runs past the end of the file");
        add("not starting with {", safetensorsByHand(" {}", ""), "w", false,
            "does not start with '{'");
        add("not JSON", safetensorsByHand("{\"w\":", ""), "w", false, "not valid JSON");
        // Found by fuzz_safetensors: the JSON reader threw a number it cannot hold as a double
        // past the reader, and the program aborted.
        add("number past a double",
            one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,1e999]})", f32x2), "w", false,
            "the header is not valid JSON: [json.exception.out_of_range.406] number overflow "
            "parsing '1e999'");
        add("entry not an object", one("3", ""), "w", false, "tensor 'w' is not a JSON object");
        // JSON allows a name twice, and the second one was read silently.
        add("a tensor named twice",
            safetensorsByHand(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                              R"("w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                              f32x2),
            "w", false, "the header names 'w' twice in one object");
        add("no dtype", one(R"({"shape":[2],"data_offsets":[0,8]})", f32x2), "w", false,
            "'dtype' is missing");
        add("unknown dtype", one(R"({"dtype":"F31","shape":[2],"data_offsets":[0,8]})", f32x2), "w",
            false, "dtype 'F31' is not one the format defines");
        add("unknown entry key",
            one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1})", f32x2), "w", false,
            "unknown key 'x'");
        add("negative shape", one(R"({"dtype":"F32","shape":[-2],"data_offsets":[0,8]})", f32x2),
            "w", false, "'shape' holds -2");
        add("offsets reversed", one(R"({"dtype":"F32","shape":[2],"data_offsets":[8,0]})", f32x2),
            "w", false, "'data_offsets' is not [begin, end]");
        add("size mismatch", one(R"({"dtype":"F32","shape":[3],"data_offsets":[0,8]})", f32x2), "w",
            false, "hold 8 bytes, but F32 of shape (3,) needs 3 x 4");
        add("shape overflows",
            one(R"({"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]})", f32x2),
            "w", false, "is too large to exist");
        add("truncated", one(R"({"dtype":"F32","shape":[4],"data_offsets":[0,16]})", f32x2), "w",
            false, "ends at byte 16 of a data buffer of 8 bytes (truncated data)");
        add("overlap",
            safetensorsByHand(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                              R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                              f32x2),
            "a", false, "overlaps the tensor before it");
        add("hole", one(R"({"dtype":"F32","shape":[1],"data_offsets":[4,8]})", f32x2), "w", false,
            "has a hole: bytes 0 to 4");
        add("trailing bytes", one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4]})", f32x2),
            "w", false, "4 bytes after the last tensor");
        add("metadata not strings", safetensorsByHand(R"({"__metadata__":{"a":1}})", ""), "w",
            false, "'__metadata__' entry 'a' is not a string");
        add("no such tensor", one(R"({"dtype":"F32","shape":[1,2],"data_offsets":[0,8]})", f32x2),
            "v", false, "no tensor named 'v' (its 2-D tensors: w)");
        add("integer dtype", one(R"({"dtype":"I32","shape":[2],"data_offsets":[0,8]})", f32x2), "w",
            false, "tensor 'w' has dtype I32; tpviz reads F32, F64, F16 and BF16");
        add("3-D", one(R"({"dtype":"F32","shape":[1,1,2],"data_offsets":[0,8]})", f32x2), "w",
            false, "has shape (1, 1, 2); tpviz reads 1-D and 2-D tensors");
        // A shape nested 100,000 deep: printing it for the message recursed once per level and
        // overflowed the stack (SIGSEGV). The depth is refused before the header is parsed.
        add("shape nested 100,000 deep",
            one("{\"dtype\":\"F32\",\"shape\":" + nestedList(100'000) + ",\"data_offsets\":[0,8]}",
                f32x2),
            "w", false,
            "the header is nested deeper than 64 levels (at byte 90); a safetensors header is 3 "
            "levels deep");
        add("nested 65 deep", one(nestedList(64), ""), "w", false,
            "the header is nested deeper than 64 levels");
        // 64 deep is JSON the reader takes, refused for what it holds.
        add("nested 64 deep", one(nestedList(63), ""), "w", false,
            "tensor 'w' is not a JSON object");
        add("brackets in a string do not nest", one("\"" + nestedList(70) + "\"", ""), "w", false,
            "tensor 'w' is not a JSON object");
        // A terminal shown the message must not obey escape sequences from the file.
        add("control characters in a name",
            safetensorsByHand("{\"\\u001b]0;x\\u0007\":{\"dtype\":\"F32\",\"shape\":[1,2],"
                              "\"data_offsets\":[0,8]}}",
                              f32x2),
            "v", false, "no tensor named 'v' (its 2-D tensors: \\u001b]0;x\\u0007)");
        add("control characters in a dtype",
            one("{\"dtype\":\"\\u001b[2J\",\"shape\":[2],\"data_offsets\":[0,8]}", f32x2), "w",
            false, "dtype '\\u001b[2J' is not one the format defines");
        add("transpose a vector", one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})", f32x2),
            "w", true, "only a 2-D tensor can be transposed");
    }
    void badInputsSayWhy() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, tensor);
        QFETCH(bool, transpose);
        QFETCH(QString, message);
        const std::string file = path("bad.safetensors");
        writeFile(QString::fromStdString(file), bytes.toStdString());
        const FloatArrayRead read = readSafetensor(file, tensor.toStdString(), transpose, kBudget);
        QVERIFY(!read.array);
        const QString error = QString::fromStdString(read.error);
        QVERIFY2(error.startsWith(QString::fromStdString(file) + ": "), qPrintable(error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    // A file of many 2-D tensors lists the first ten of them when the name asked for is not there.
    void manyTensorsAreListedCapped() {
        std::vector<NamedArray> arrays;
        for (int i = 0; i < 25; ++i)
            arrays.push_back({"t" + std::to_string(100 + i), {1, 1}, Matrix::Zero(1, 1)});
        const std::string file = path("many.safetensors");
        QCOMPARE(writeSafetensors(file, arrays), std::string());
        const FloatArrayRead read = readSafetensor(file, "w", false, kBudget);
        QCOMPARE(QString::fromStdString(read.error),
                 QString::fromStdString(file) +
                     ": no tensor named 'w' (its 2-D tensors: t100, t101, t102, t103, t104, t105, "
                     "t106, t107, t108, t109 and 15 more)");
    }

    void missingFileAndBudget() {
        const FloatArrayRead missing =
            readSafetensor(path("nope.safetensors"), "w", false, kBudget);
        QVERIFY(QString::fromStdString(missing.error).endsWith("No such file or directory"));
        const std::string file = path("budget.safetensors");
        writeSafetensors(file, {{"w", {16, 16}, Matrix::Zero(16, 16)}});
        QVERIFY(readSafetensor(file, "w", false, 16 * 16 * 4).array);
        const FloatArrayRead over = readSafetensor(file, "w", true, 16 * 16 * 4);
        QVERIFY2(QString::fromStdString(over.error).contains("over the memory budget"),
                 over.error.c_str());
    }
};

QTEST_APPLESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
