// The arrays of a layer read from files: every problem starts with the array it belongs to, so
// that each input can show its own (the app places them by that tag alone).

#include "io/array_source.h"
#include "io/npy.h"

#include <QTemporaryDir>
#include <QTest>

using namespace tp;

namespace {

Matrix ramp(Index rows, Index cols) {
    Matrix m(rows, cols);
    for (Index i = 0; i < m.size(); ++i)
        m.data()[i] = 0.25f * float(i) - 1.0f;
    return m;
}

}  // namespace

class TestArraySource : public QObject {
    Q_OBJECT

private slots:
    void everyProblemIsTaggedWithItsArray_data() {
        QTest::addColumn<QString>("kernel");  // (in_dim, features) written, or "" for none
        QTest::addColumn<QString>("bias");
        QTest::addColumn<QString>("x");
        QTest::addColumn<bool>("fixInDim");  // --in-dim 8 given
        QTest::addColumn<bool>("transpose");
        QTest::addColumn<QString>("problem");
        QTest::newRow("bias of 5 for 4 features")
            << "3x4"
            << "5"
            << "" << false << false
            << "bias: features (4) does not match the bias's shape (5,), (features,)";
        QTest::newRow("x of in_dim 4 for in_dim 3")
            << "3x4"
            << ""
            << "2x4" << false << false
            << "x: in_dim (3) does not match x's shape (2, 4), (batch, in_dim)";
        QTest::newRow("kernel against --in-dim")
            << "3x4"
            << ""
            << "" << true << false
            << "kernel: in_dim (8) does not match the kernel's shape (3, 4), (in_dim, features)";
        QTest::newRow("transpose without a kernel")
            << ""
            << ""
            << "2x8" << false << true
            << "kernel: transposing applies to a kernel from a .safetensors file";
        // An empty array names its file (the layer's own check would say "in_dim (0)").
        QTest::newRow("empty kernel")
            << "0x12"
            << ""
            << "" << false << false
            << "kernel: DIR/k.npy has shape (0, 12), an empty array; every size of a layer is at "
               "least 1";
        QTest::newRow("empty bias") << "3x4"
                                    << "0"
                                    << "" << false << false
                                    << "bias: DIR/b.npy has shape (0,), an empty array; every size "
                                       "of a layer is at least 1";
    }

    void everyProblemIsTaggedWithItsArray() {
        QFETCH(QString, kernel);
        QFETCH(QString, bias);
        QFETCH(QString, x);
        QFETCH(bool, fixInDim);
        QFETCH(bool, transpose);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        ArrayFiles files;
        files.transpose = transpose;
        auto write = [&](const QString& shape, const char* name, std::string& spec) {
            if (shape.isEmpty())
                return;
            const QStringList dims = shape.split('x');
            const bool vector = dims.size() == 1;
            const Matrix m = ramp(vector ? 1 : dims[0].toLong(), dims.back().toLong());
            spec = dir.filePath(name).toStdString();
            QCOMPARE(writeNpy(spec, m, vector), std::string());
        };
        write(kernel, "k.npy", files.kernel);
        write(bias, "b.npy", files.bias);
        write(x, "x.npy", files.x);
        LayerConfig config;  // in_dim 8
        const LoadedArraysRead read = loadArrayFiles(files, config, {.inDim = fixInDim});
        QCOMPARE(read.errors.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(read.errors.front()),
                 QString(problem).replace("DIR", dir.path()));
    }

    // Arrays read already (the command line's) size the layer by the same rule as files do.
    void arraysReadAlreadyGiveTheSizes() {
        LoadedArrays arrays;
        arrays.x = ramp(3, 5);
        arrays.bias = RowVector::Zero(7);
        LayerConfig config;
        std::vector<std::string> errors;
        takeArrayShapes(arrays, config, {}, errors);
        QVERIFY(errors.empty());
        QCOMPARE(config.batch, std::int64_t(3));
        QCOMPARE(config.inDim, std::int64_t(5));
        QCOMPARE(config.features, std::int64_t(7));

        // The kernel sets in_dim and features first: an x and a bias that disagree are told so.
        arrays.kernel = ramp(4, 6);
        takeArrayShapes(arrays, config, {}, errors);
        QCOMPARE(config.inDim, std::int64_t(4));
        QCOMPARE(config.features, std::int64_t(6));
        QCOMPARE(errors.size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(errors[0]),
                 QString("x: in_dim (4) does not match x's shape (3, 5), (batch, in_dim)"));
        QCOMPARE(QString::fromStdString(errors[1]),
                 QString("bias: features (6) does not match the bias's shape (7,), (features,)"));
    }
};

QTEST_APPLESS_MAIN(TestArraySource)
#include "tst_array_source.moc"
