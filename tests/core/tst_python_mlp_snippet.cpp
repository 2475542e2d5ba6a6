// The MLP block's Python script (tpviz-cli --python --block mlp): one nnx.Rngs for both Linears
// and x and dy after them, the bits it asserts are initMlp's, one psum each way in shard_map, the
// mistakes' wrong code marked with the check that exposes each, the check's rule, and Python
// syntax.

#include "nnx/nnx_init.h"
#include "process_run.h"
#include "scene/python_mlp_snippet.h"
#include "scene/python_snippet.h"

#include <QRegularExpression>
#include <QTest>

#include <cstring>

using namespace tp;

Q_DECLARE_METATYPE(tp::LayerConfig)
Q_DECLARE_METATYPE(tp::Mistake)

namespace {

LayerConfig block(std::int64_t tp = 4) {
    LayerConfig c;
    c.block = Block::Mlp;
    c.batch = 3;
    c.inDim = 8;
    c.hidden = 16;
    c.features = 8;
    c.tpSize = tp;
    c.seed = 2;
    return c;
}

QString script(const LayerConfig& c, Mistake mistake = Mistake::None,
               SnippetPasses passes = SnippetPasses::Forward, const CheckSettings& check = {}) {
    return QString::fromStdString(pythonSnippet(c, mistake, check, passes));
}

// The text from `start` up to `end` (or to the end of the script).
QString part(const QString& py, const QString& start, const QString& end = {}) {
    const qsizetype from = py.indexOf(start);
    if (from < 0)
        return {};
    const qsizetype to = end.isEmpty() ? -1 : py.indexOf(end, from);
    return py.mid(from, to < 0 ? -1 : to - from);
}

void verifyParses(const QString& py) {
    const test::ProcessRun run =
        test::runProcess("python3", {"-c", "import ast, sys; ast.parse(sys.stdin.read())"},
                         {.input = py.toUtf8(), .timeoutMs = 10000});
    if (!run.started)
        QSKIP("python3 is not available to check the syntax");
    QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.errText() + "\n" + py));
}

unsigned bitsOf(float value) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

}  // namespace

class TestPythonMlpSnippet : public QObject {
    Q_OBJECT

private slots:
    // Both Linears from the one rngs, in their order, then x (count 4) and dy (count 5): the
    // draws initMlp and mlpCotangentBlock make.
    void oneRngsDrawsEverything() {
        LayerConfig c = block();
        c.bias = {BiasInit::Kind::Normal, 0.5f};
        const QString py = script(c, Mistake::None, SnippetPasses::ForwardAndBackward);
        QVERIFY(py.contains("class MLP(nnx.Module):\n"));
        const QString linear1 =
            "self.linear1 = nnx.Linear(in_dim, hidden, bias_init=nnx.initializers.normal(0.5), "
            "rngs=rngs)";
        const QString linear2 =
            "self.linear2 = nnx.Linear(hidden, features, bias_init=nnx.initializers.normal(0.5), "
            "rngs=rngs)";
        QVERIFY2(py.contains(linear1), qPrintable(py));
        QVERIFY(py.contains(linear2));
        QVERIFY(py.indexOf(linear1) < py.indexOf(linear2));
        QVERIFY(py.contains("return self.linear2(nnx.gelu(self.linear1(x)))\n"));
        QCOMPARE(py.count("= nnx.Rngs("), 1);
        QCOMPARE(py.count("rngs=rngs"), 3);  // the two Linears and the model
        const QString x =
            "x = jax.random.normal(rngs.params(), (batch, in_dim), dtype=jnp.float32)  # count 4\n";
        const QString dy =
            "dy = jax.random.normal(rngs.params(), (batch, features), dtype=jnp.float32)  # count "
            "5\n";
        QCOMPARE(py.count(x), 1);
        QCOMPARE(py.count(dy), 1);
        QVERIFY(py.indexOf("model = MLP(in_dim, hidden, features, rngs=rngs)") < py.indexOf(x));
        QVERIFY(py.indexOf(x) < py.indexOf(dy));
        QCOMPARE(py.count("rngs.params()"), 2);
        QVERIFY(py.contains("batch, in_dim, hidden, features, tp_size = 3, 8, 16, 8, 4\n"));
        QVERIFY(py.contains("reference = model(x)"));
        QVERIFY(py.contains("--xla_force_host_platform_device_count=4"));
        // The PRNG flags before anything draws, and the device flag before JAX starts.
        QVERIFY(py.indexOf("jax_threefry_partitionable\", True)") < py.indexOf("= nnx.Rngs("));
        QVERIFY(py.indexOf("XLA_FLAGS") < py.indexOf("import jax\n"));
        const QString forward = script(c);
        QCOMPARE(forward.count("rngs.params()"), 1);
        QVERIFY(!forward.contains("dy = jax.random.normal"));
        QVERIFY(!script(block()).contains("bias_init"));
    }

    void theBitsAreInitMlps_data() {
        QTest::addColumn<LayerConfig>("config");
        LayerConfig legacy = block();
        legacy.prng = PrngLayout::Legacy;
        legacy.x64 = true;
        legacy.seed = -7;
        legacy.bias = {BiasInit::Kind::Normal, 0.25f};
        QTest::newRow("partitionable zeros") << block();
        QTest::newRow("legacy x64 seed -7 normal bias") << legacy;
        LayerConfig tiny = block(1);
        tiny.batch = 1;
        tiny.inDim = 1;
        tiny.hidden = 2;
        tiny.features = 3;
        QTest::newRow("arrays shorter than four values") << tiny;
    }

    // The bits the script asserts are the first four and the last of each array initMlp draws
    // whole (and dy's), and the part that asserts them is pythonMlpBitsCheck's.
    void theBitsAreInitMlps() {
        QFETCH(LayerConfig, config);
        const QString py = script(config, Mistake::None, SnippetPasses::ForwardAndBackward);
        QVERIFY(py.contains(
            QString::fromStdString(pythonMlpBitsCheck(config, SnippetPasses::ForwardAndBackward))));
        const MlpParams p = initMlp(config);
        const Matrix dy = mlpCotangentBlock(config, {0, config.batch}, {0, config.features});
        struct Drawn {
            const char* name;
            const float* data;
            Index size;
        };
        const Drawn arrays[] = {{"kernel1", p.kernel1.data(), p.kernel1.size()},
                                {"bias1", p.bias1.data(), p.bias1.size()},
                                {"kernel2", p.kernel2.data(), p.kernel2.size()},
                                {"bias2", p.bias2.data(), p.bias2.size()},
                                {"x", p.x.data(), p.x.size()},
                                {"dy", dy.data(), dy.size()}};
        for (const auto& [name, data, size] : arrays) {
            QStringList first;
            for (Index k = 0; k < std::min<Index>(4, size); ++k)
                first << QString::asprintf("0x%08x", bitsOf(data[k]));
            const QString line = QString("    \"%1\": ([%2], 0x%3),\n")
                                     .arg(name, first.join(", "))
                                     .arg(bitsOf(data[size - 1]), 8, 16, QChar('0'));
            QVERIFY2(py.contains(line), qPrintable(line + "\n" + part(py, "tpviz_bits")));
        }
    }

    // The Megatron split on the mesh: linear1's columns and linear2's rows per device, one psum
    // forward, one of dx backward, no gather.
    void onePsumEachWay() {
        const QString py = script(block(), Mistake::None, SnippetPasses::ForwardAndBackward);
        const QString forward = part(py, "in_specs = ", "# The backward pass.");
        QVERIFY(forward.contains(
            "in_specs = (P(), P(None, \"model\"), P(\"model\"), P(\"model\", None), P())"));
        QVERIFY(
            forward.contains("@partial(shard_map, mesh=mesh, in_specs=in_specs, "
                             "out_specs=P())\n"));
        QVERIFY(forward.contains("a_block = nnx.gelu(h_block)"));
        QVERIFY(forward.contains("return jax.lax.psum(partial_sum, \"model\") + bias2\n"));
        QCOMPARE(forward.count("jax.lax.psum("), 1);
        QVERIFY(!py.contains("gather_columns") && !py.contains("jax.lax.all_gather"));
        QVERIFY(forward.contains("assert np.all(error <= bound_output)"));
        const QString backward = part(py, "# The backward pass.");
        QVERIFY(
            backward.contains("_, pullback = jax.vjp(block, x, kernel1, bias1, kernel2, "
                              "bias2)\n"));
        QVERIFY(backward.contains("a_block, gelu_pullback = jax.vjp(nnx.gelu, h_block)\n"));
        QVERIFY(backward.contains("dx = jax.lax.psum(dx_partial, \"model\")\n"));
        QCOMPARE(backward.count("jax.lax.psum("), 1);
        QVERIFY(backward.contains("assert np.all(error <= bounds[name])"));
        for (const char* name :
             {"\"dx\": ", "\"dkernel1\": ", "\"dbias1\": ", "\"dkernel2\": ", "\"dbias2\": "})
            QVERIFY2(backward.contains(name), name);
        verifyParses(py);
    }

    void mistakes_data() {
        QTest::addColumn<Mistake>("mistake");
        QTest::addColumn<QStringList>("wrong");
        QTest::newRow("row-then-column")
            << Mistake::RowThenColumn
            << QStringList{"# MISTAKE (row-then-column)",
                           "a = jax.lax.psum(nnx.gelu(h_partial), \"model\")",
                           "in_specs = (P(None, \"model\"), P(\"model\", None), P(), P(None, "
                           "\"model\"), P(\"model\"))",
                           "return gather_columns(a @ kernel2_block + bias2_block)"};
        QTest::newRow("gather-between")
            << Mistake::GatherBetween
            << QStringList{"# MISTAKE (gather-between)", "a = gather_columns(a_block)",
                           "gathers = [name for name in found if name.startswith(\"all_gather\")]",
                           "FAILED: {len(gathers)} all-gathers the Megatron split does not run",
                           "# an all-reduce of the partial sums (144 bytes sent per device);\n"
                           "# this program runs an all-gather of a (144 bytes sent per device)\n"
                           "# and an all-gather of y (72 bytes sent per device)"};
        QTest::newRow("bias2-per-partial")
            << Mistake::Bias2PerPartial
            << QStringList{"# MISTAKE (bias2-per-partial)",
                           "partial_sum = a_block @ kernel2_block + bias2",
                           "return jax.lax.psum(partial_sum, \"model\")\n"};
    }

    // Each mistake's wrong code, marked, then the check that exposes it, printed instead of
    // asserted: the bound for all three, the gathers for gather-between (its output is right).
    void mistakes() {
        QFETCH(Mistake, mistake);
        QFETCH(QStringList, wrong);
        const QString py = script(block(), mistake);
        for (const QString& line : wrong)
            QVERIFY2(py.contains(line), qPrintable(line));
        QCOMPARE(py.count("# MISTAKE"), 1);
        QVERIFY(py.contains("# The check that exposes it:"));
        QVERIFY(py.contains("\"FAILED: more than rounding can explain\""));
        QVERIFY(!py.contains("assert np.all(error <= bound_output)"));
        QVERIFY(!py.contains("+ bias2\n"));  // the correct split's last line
        // The parameters are the same: their bits are still asserted.
        QVERIFY(py.contains(QString::fromStdString(pythonMlpBitsCheck(block()))));
        verifyParses(py);
    }

    // The rounding bound carried through the block by default; with --rtol or --atol,
    // assert_allclose forward and for every gradient.
    void checkFollowsTheRule() {
        const QString bound = script(block(), Mistake::None, SnippetPasses::ForwardAndBackward);
        QVERIFY(!bound.contains("assert_allclose"));
        QVERIFY(
            bound.contains("bound_a = 1.13 * bound_h + 2 * gelu_rounding(np.abs(h) + "
                           "bound_h)\n"));
        const QString allclose =
            script(block(), Mistake::None, SnippetPasses::ForwardAndBackward,
                   {.rule = CheckRule::Allclose, .tolerance = {.rtol = 0.001, .atol = 2.5e-7}});
        QVERIFY2(allclose.contains("np.testing.assert_allclose(np.asarray(mesh_output), "
                                   "np.asarray(reference), rtol=0.001, atol=2.5e-7)\n"),
                 qPrintable(allclose));
        QVERIFY(
            allclose.contains("np.testing.assert_allclose(np.asarray(actual), "
                              "np.asarray(expected), rtol=0.001, atol=2.5e-7, err_msg=name)"));
        QVERIFY(!allclose.contains("assert np.all(error <="));
        verifyParses(allclose);
    }

    // One device: the same program on a mesh of one, and the mistakes' gather-between says it
    // moves nothing there.
    void oneDevice() {
        const QString py = script(block(1), Mistake::GatherBetween);
        QVERIFY(py.contains("--xla_force_host_platform_device_count=1"));
        QVERIFY(py.contains("# no collective (one device);\n# this program runs no collective"));
        verifyParses(py);
        verifyParses(script(block(1), Mistake::None, SnippetPasses::ForwardAndBackward));
    }
};

QTEST_APPLESS_MAIN(TestPythonMlpSnippet)
#include "tst_python_mlp_snippet.moc"
