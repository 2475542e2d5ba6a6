// The Python script that rebuilds a scene with JAX and Flax NNX: the lines each option needs.

#include "config_fixtures.h"
#include "process_run.h"
#include "scene/python_snippet.h"

#include <QTest>

#include <cstdlib>
#include <cstring>

using namespace tp;

Q_DECLARE_METATYPE(tp::LayerConfig)

namespace {

// The four-group 8x12 scene with the given options.
LayerConfig config(ParallelMode mode, PrngLayout prng, bool x64, BiasInit bias,
                   std::int64_t seed = 0) {
    LayerConfig c = test::kFourGroups;
    c.seed = seed;
    c.mode = mode;
    c.prng = prng;
    c.x64 = x64;
    c.bias = bias;
    return c;
}

bool contains(const QString& text, const char* line) {
    return text.contains(QString::fromUtf8(line));
}

}  // namespace

class TestPythonSnippet : public QObject {
    Q_OBJECT

private slots:
    void keyLines_data() {
        QTest::addColumn<LayerConfig>("config");
        QTest::addColumn<QStringList>("present");
        QTest::addColumn<QStringList>("absent");
        const BiasInit zeros;
        const BiasInit normal{BiasInit::Kind::Normal, 0.5f};
        const QStringList column{
            "pieces = [x @ kernel[:, start:start + chunk] + "
            "bias[start:start + chunk]",
            "output = jnp.concatenate(pieces, axis=-1)", "chunk = features // tp_size"};
        const QStringList row{
            "partials = [x[:, start:start + chunk] @ kernel[start:start + "
            "chunk, :]",
            "output = partial_sum + bias", "chunk = in_dim // tp_size"};
        QTest::newRow("column partitionable zeros")
            << config(ParallelMode::Column, PrngLayout::Partitionable, false, zeros)
            << (column + QStringList{"jax.config.update(\"jax_threefry_partitionable\", True)",
                                     "model = nnx.Linear(in_dim, features, rngs=rngs)"})
            << (row + QStringList{"jax_enable_x64", "bias_init", "False)"});
        QTest::newRow("column legacy")
            << config(ParallelMode::Column, PrngLayout::Legacy, false, zeros)
            << QStringList{"jax.config.update(\"jax_threefry_partitionable\", False)"}
            << QStringList{"jax_enable_x64", "partitionable\", True)"};
        QTest::newRow("column x64")
            << config(ParallelMode::Column, PrngLayout::Partitionable, true, zeros, -1)
            << QStringList{"jax.config.update(\"jax_enable_x64\", True)", "seed = -1"}
            << QStringList{};
        QTest::newRow("column normal bias")
            << config(ParallelMode::Column, PrngLayout::Partitionable, false, normal)
            << QStringList{"bias_init=nnx.initializers.normal(0.5)"} << QStringList{};
        QTest::newRow("row legacy x64 normal bias")
            << config(ParallelMode::Row, PrngLayout::Legacy, true, normal, 2024)
            << (row + QStringList{"jax_threefry_partitionable\", False)",
                                  "jax.config.update(\"jax_enable_x64\", True)",
                                  "bias_init=nnx.initializers.normal(0.5)", "seed = 2024"})
            << (column + QStringList{});
    }

    void keyLines() {
        QFETCH(LayerConfig, config);
        QFETCH(QStringList, present);
        QFETCH(QStringList, absent);
        const QString py = QString::fromStdString(pythonSnippet(config));
        // Lines every scene needs.
        for (const char* line :
             {"import jax\n", "from flax import nnx", "import numpy as np", "rngs = nnx.Rngs(seed)",
              "batch, in_dim, features, tp_size = 2, 8, 12, 4",
              "x = jax.random.normal(rngs.params(), (batch, in_dim), dtype=jnp.float32)",
              "kernel = model.kernel[...]", "bias = model.bias[...]",
              "reference = x @ kernel + bias", "bound = rounding_bound(in_dim, s)",
              "return 2 * gamma * s + 2 * (K + 1) * 2.0 ** -125", "assert np.all(error <= bound)",
              "print("})
            QVERIFY2(contains(py, line), line);
        for (const QString& line : present)
            QVERIFY2(py.contains(line), qPrintable(line));
        for (const QString& line : absent)
            QVERIFY2(!py.contains(line), qPrintable(line));
        // The flags are set before anything draws random numbers.
        const qsizetype lastFlag = py.lastIndexOf("jax.config.update(");
        QVERIFY(lastFlag >= 0);
        QVERIFY(lastFlag < py.indexOf("rngs = nnx.Rngs("));
        QVERIFY(lastFlag < py.indexOf("import jax.numpy"));
    }

    // The script parses as Python (when a Python interpreter is available to check it).
    void parsesAsPython() {
        const std::string script = pythonSnippet(
            config(ParallelMode::Row, PrngLayout::Legacy, true, {BiasInit::Kind::Normal, 0.1f}));
        const test::ProcessRun run =
            test::runProcess("python3", {"-c", "import ast, sys; ast.parse(sys.stdin.read())"},
                             {.input = QByteArray::fromStdString(script), .timeoutMs = 10000});
        if (!run.started)
            QSKIP("python3 is not available to check the syntax");
        QVERIFY2(run.finished && run.exitCode == 0, run.err.constData());
    }

    void floatLiteralsRoundTrip_data() {
        QTest::addColumn<float>("value");
        QTest::addColumn<QString>("literal");
        QTest::newRow("0.5") << 0.5f << "0.5";
        QTest::newRow("0.1") << 0.1f << "0.1";
        QTest::newRow("1e-3") << 1e-3f << "0.001";
        QTest::newRow("3.4028235e38") << 3.4028235e38f << "3.4028235e+38";
    }

    void floatLiteralsRoundTrip() {
        QFETCH(float, value);
        QFETCH(QString, literal);
        const std::string text = pythonFloatLiteral(value);
        QCOMPARE(QString::fromStdString(text), literal);
        QCOMPARE(float(std::strtod(text.c_str(), nullptr)), value);
    }

    // Every float32 in a sweep reads back through float64 to itself.
    void floatLiteralsSurviveDoubleRounding() {
        for (std::uint32_t bits = 0x33800000u; bits < 0x4f000000u; bits += 977u) {
            float value;
            std::memcpy(&value, &bits, sizeof value);
            const std::string text = pythonFloatLiteral(value);
            QVERIFY2(float(std::strtod(text.c_str(), nullptr)) == value, text.c_str());
        }
    }

    // The script checks as the scene does: the rounding bound by default (no allclose), allclose
    // with the given tolerance when rtol or atol is given.
    void followsTolerance() {
        const LayerConfig config;
        const QString defaults = QString::fromStdString(pythonSnippet(config));
        QVERIFY(defaults.contains("assert np.all(error <= bound)"));
        QVERIFY(!defaults.contains("assert_allclose"));
        const QString given = QString::fromStdString(pythonSnippet(
            config, Mistake::None,
            {.rule = CheckRule::Allclose, .tolerance = {.rtol = 0.001, .atol = 2.5e-12}}));
        QVERIFY2(given.contains("assert_allclose(output, reference, rtol=0.001, atol=2.5e-12)\n"),
                 qPrintable(given));
        QCOMPARE(given.count("assert_allclose"), 1);
    }

    void doubleLiterals() {
        QCOMPARE(pythonDoubleLiteral(1e-5), std::string("1e-5"));
        QCOMPARE(pythonDoubleLiteral(0.0), std::string("0"));
        QCOMPARE(pythonDoubleLiteral(1e+300), std::string("1e+300"));
        QCOMPARE(pythonDoubleLiteral(1.5e-100), std::string("1.5e-100"));
        QCOMPARE(pythonDoubleLiteral(0.1), std::string("0.1"));
    }
};

QTEST_APPLESS_MAIN(TestPythonSnippet)
#include "tst_python_snippet.moc"
