// The backward part of the Python snippet (tpviz-cli --python --backward): dy's key, the reference
// from jax.vjp, and on a mesh the collectives each mode, output layout and data axis need, over
// the right axes and no others.

#include "config_fixtures.h"
#include "devices/backward_collectives.h"
#include "process_run.h"
#include "scene/python_snippet.h"

#include <QTest>

using namespace tp;

namespace {

LayerConfig backwardConfig(ParallelMode mode, OutputLayout output, std::int64_t data,
                           std::int64_t tp) {
    LayerConfig c = mode == ParallelMode::Column ? test::kFourGroups : test::kFourGroupsRow;
    c.batch = 4;
    c.output = output;
    c.dataSize = data;
    c.tpSize = tp;
    return c;
}

QString script(const LayerConfig& c, const CheckSettings& check = {}) {
    return QString::fromStdString(
        pythonSnippet(c, Mistake::None, check, SnippetPasses::ForwardAndBackward));
}

// The script from the backward's first line on.
QString backwardPart(const QString& py) {
    const qsizetype at = py.indexOf("# The backward pass.");
    return at < 0 ? QString() : py.mid(at);
}

void verifyParses(const QString& py) {
    const test::ProcessRun run =
        test::runProcess("python3", {"-c", "import ast, sys; ast.parse(sys.stdin.read())"},
                         {.input = py.toUtf8(), .timeoutMs = 10000});
    if (!run.started)
        QSKIP("python3 is not available to check the syntax");
    QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.errText() + "\n" + py));
}

}  // namespace

class TestPythonBackwardSnippet : public QObject {
    Q_OBJECT

private slots:
    // dy comes from the stream's next key after x (count 3): the only draw between them is none,
    // and rngs.params() is called twice in the whole script, for x and for dy.
    void dyIsTheKeyAfterX() {
        const QString py =
            script(backwardConfig(ParallelMode::Column, OutputLayout::Sharded, 2, 4));
        const QString dyLine =
            "dy = jax.random.normal(rngs.params(), (batch, features), dtype=jnp.float32)  # count "
            "3\n";
        const qsizetype x = py.indexOf("x = jax.random.normal(rngs.params(), (batch, in_dim)");
        QVERIFY(x >= 0);
        QCOMPARE(py.count(dyLine), 1);
        QVERIFY(py.indexOf(dyLine) > x);
        QCOMPARE(py.count("rngs.params()"), 2);
        QCOMPARE(py.count("rngs=rngs"), 1);  // the model, drawing counts 0 and 1, before x
        QVERIFY(py.indexOf("rngs=rngs") < x);
    }

    // The reference is jax.vjp of the full layer at (x, kernel, bias), pulled back from dy, and
    // both the split and (on a mesh) the shard_map gradients are checked against it.
    void referenceIsJaxVjp() {
        const QString py =
            backwardPart(script(backwardConfig(ParallelMode::Row, OutputLayout::Sharded, 2, 4)));
        QVERIFY(
            py.contains("_, pullback = jax.vjp(lambda x, kernel, bias: x @ kernel + bias, x, "
                        "kernel, bias)\n"
                        "reference_dx, reference_dkernel, reference_dbias = pullback(dy)\n"));
        QVERIFY(py.contains("check_gradients(\"split\", dx, dkernel, dbias)\n"));
        QVERIFY(
            py.contains("mesh_dx, mesh_dkernel, mesh_dbias = backward_on_mesh(x_b, kernel_b, "
                        "dy_b)\n"));
        QVERIFY(py.contains("check_gradients(\"mesh\", mesh_dx, mesh_dkernel, mesh_dbias)\n"));
    }

    // Each mode, output layout, data axis and tp 1 or 4: the collectives in shard_map, in the
    // order they run, and no other; the specs without the axes of one device.
    void collectives_data() {
        QTest::addColumn<LayerConfig>("config");
        QTest::addColumn<QStringList>("collectives");
        QTest::addColumn<QString>("inSpecs");
        QTest::addColumn<QString>("outSpecs");
        const QString dx = "dx_block = jax.lax.psum(dx_partial, \"model\")";
        const QString dy = "dy_block = gather_columns(dy_block)";
        const QString dkernel = "dkernel_block = jax.lax.psum(dkernel_block, \"data\")";
        const QString dbias = "dbias_block = jax.lax.psum(dbias_block, \"data\")";
        using M = ParallelMode;
        using O = OutputLayout;
        QTest::newRow("column sharded D1")
            << backwardConfig(M::Column, O::Sharded, 1, 4) << QStringList{dx}
            << "(P(None, None), P(None, \"model\"), P(None, \"model\"))"
            << "(P(None, None), P(None, \"model\"), P(\"model\"))";
        QTest::newRow("column sharded D2")
            << backwardConfig(M::Column, O::Sharded, 2, 4) << QStringList{dx, dkernel, dbias}
            << "(P(\"data\", None), P(None, \"model\"), P(\"data\", \"model\"))"
            << "(P(\"data\", None), P(None, \"model\"), P(\"model\"))";
        QTest::newRow("column replicated D1")
            << backwardConfig(M::Column, O::Replicated, 1, 4) << QStringList{dx}
            << "(P(None, None), P(None, \"model\"), P(None, None))"
            << "(P(None, None), P(None, \"model\"), P(\"model\"))";
        QTest::newRow("column replicated D2")
            << backwardConfig(M::Column, O::Replicated, 2, 4) << QStringList{dx, dkernel, dbias}
            << "(P(\"data\", None), P(None, \"model\"), P(\"data\", None))"
            << "(P(\"data\", None), P(None, \"model\"), P(\"model\"))";
        QTest::newRow("row replicated D1")
            << backwardConfig(M::Row, O::Replicated, 1, 4) << QStringList{}
            << "(P(None, \"model\"), P(\"model\", None), P(None, None))"
            << "(P(None, \"model\"), P(\"model\", None), P(None))";
        QTest::newRow("row replicated D2")
            << backwardConfig(M::Row, O::Replicated, 2, 4) << QStringList{dkernel, dbias}
            << "(P(\"data\", \"model\"), P(\"model\", None), P(\"data\", None))"
            << "(P(\"data\", \"model\"), P(\"model\", None), P(None))";
        QTest::newRow("row sharded D1")
            << backwardConfig(M::Row, O::Sharded, 1, 4) << QStringList{dy}
            << "(P(None, \"model\"), P(\"model\", None), P(None, \"model\"))"
            << "(P(None, \"model\"), P(\"model\", None), P(None))";
        QTest::newRow("row sharded D2")
            << backwardConfig(M::Row, O::Sharded, 2, 4) << QStringList{dy, dkernel, dbias}
            << "(P(\"data\", \"model\"), P(\"model\", None), P(\"data\", \"model\"))"
            << "(P(\"data\", \"model\"), P(\"model\", None), P(None))";
        QTest::newRow("column sharded tp1 D1")
            << backwardConfig(M::Column, O::Sharded, 1, 1) << QStringList{}
            << "(P(None, None), P(None, None), P(None, None))"
            << "(P(None, None), P(None, None), P(None))";
        QTest::newRow("column replicated tp1 D2")
            << backwardConfig(M::Column, O::Replicated, 2, 1) << QStringList{dkernel, dbias}
            << "(P(\"data\", None), P(None, None), P(\"data\", None))"
            << "(P(\"data\", None), P(None, None), P(None))";
        QTest::newRow("row sharded tp1 D2")
            << backwardConfig(M::Row, O::Sharded, 2, 1) << QStringList{dkernel, dbias}
            << "(P(\"data\", None), P(None, None), P(\"data\", None))"
            << "(P(\"data\", None), P(None, None), P(None))";
    }

    void collectives() {
        QFETCH(LayerConfig, config);
        QFETCH(QStringList, collectives);
        QFETCH(QString, inSpecs);
        QFETCH(QString, outSpecs);
        QVERIFY(config.validate().empty());
        const QString whole = script(config);
        const QString py = backwardPart(whole);
        const qsizetype body = py.indexOf("def backward_on_mesh(");
        QVERIFY2(body > 0, qPrintable(py));
        // In the order they run, each once.
        qsizetype at = body;
        for (const QString& line : collectives) {
            QCOMPARE(py.count(line), 1);
            QVERIFY2(py.indexOf(line) > at, qPrintable(line));
            at = py.indexOf(line);
        }
        // And no other: every collective JAX has that the backward could call.
        const qsizetype psums = collectives.filter("jax.lax.psum(").size();
        QCOMPARE(py.count("jax.lax.psum("), psums);
        QCOMPARE(py.count("gather_columns("), collectives.filter("gather_columns").size());
        for (const char* other :
             {"psum_scatter", "all_gather", "pmean", "ppermute", "all_to_all", "reduce_scatter"})
            QVERIFY2(!py.contains(other), other);
        // The gather used is defined in the mesh part before it.
        if (!collectives.filter("gather_columns").isEmpty())
            QVERIFY(whole.indexOf("def gather_columns(block):") < whole.indexOf(py));
        // The collectives' figures, from the same source as the reports'.
        for (const BackwardCollective& c : backwardCollectives(config))
            QVERIFY(py.contains(QString::fromStdString("#   " + describe(c) + "\n")));
        QVERIFY(py.contains("backward_in_specs = " + inSpecs + "  # x, kernel, dy\n"));
        QVERIFY(py.contains("backward_out_specs = " + outSpecs + "  # dx, dkernel, dbias\n"));
        // shard_map on jax.make_mesh's explicit axes asks that the inputs be placed as in_specs.
        QVERIFY(
            py.contains("x_b, kernel_b, dy_b = (jax.device_put(a, NamedSharding(mesh, spec))\n"
                        "                       for a, spec in zip((x, kernel, dy), "
                        "backward_in_specs))\n"));
        QVERIFY(
            py.contains("@partial(shard_map, mesh=mesh, in_specs=backward_in_specs, "
                        "out_specs=backward_out_specs)\n"));
        verifyParses(whole);
    }

    // The split over slices of the one kernel, as tpviz computes it: column mode adds the groups'
    // dx partials, row mode places its dx slices side by side and takes dbias once.
    void splitAsTpvizComputesIt() {
        const QString column =
            backwardPart(script(backwardConfig(ParallelMode::Column, OutputLayout::Sharded, 1, 4)));
        QVERIFY(column.contains(
            "dx_partials = [dy[:, start:start + chunk] @ kernel[:, start:start + chunk].T\n"));
        QVERIFY(column.contains("for dx_partial in dx_partials[1:]:\n    dx = dx + dx_partial\n"));
        const QString row =
            backwardPart(script(backwardConfig(ParallelMode::Row, OutputLayout::Replicated, 1, 4)));
        QVERIFY(row.contains("dx = jnp.concatenate([dy @ kernel[start:start + chunk, :].T\n"));
        QVERIFY(row.contains("dbias = dy.sum(0)\n"));
        QVERIFY(!row.contains("dx_partial"));
    }

    // A mesh whenever the backward has a collective: column mode at tp 4 needs none forward, but
    // the backward's all-reduce of dx; one device and no layout named needs no mesh at all.
    void meshWhenTheBackwardHasACollective() {
        LayerConfig column = test::kFourGroups;
        QVERIFY(!QString::fromStdString(pythonSnippet(column)).contains("shard_map"));
        QVERIFY(script(column).contains("dx_block = jax.lax.psum(dx_partial, \"model\")"));
        QVERIFY(script(column).contains("--xla_force_host_platform_device_count=4"));
        column.tpSize = 1;
        const QString one = script(column);
        QVERIFY(!one.contains("shard_map"));
        QVERIFY(one.contains("check_gradients(\"split\", dx, dkernel, dbias)\n"));
        verifyParses(one);
    }

    // The gradients are checked as the forward is: each element against the rounding bound of its
    // own product by default, with the given rtol and atol when they are given.
    void checkFollowsTheRule() {
        const LayerConfig c = backwardConfig(ParallelMode::Row, OutputLayout::Sharded, 2, 4);
        const QString bound = backwardPart(script(c));
        QVERIFY(bound.contains("(\"dx\", dx, reference_dx, features, ady @ akernel.T)"));
        QVERIFY(bound.contains("(\"dkernel\", dkernel, reference_dkernel, batch, ax.T @ ady)"));
        QVERIFY(bound.contains("(\"dbias\", dbias, reference_dbias, batch, ady.sum(0))"));
        QVERIFY(bound.contains("bound = rounding_bound(K, s)"));
        QVERIFY(!bound.contains("assert_allclose"));
        const QString whole =
            script(c, {.rule = CheckRule::Allclose, .tolerance = {.rtol = 0.001, .atol = 2.5e-7}});
        const QString allclose = backwardPart(whole);
        QVERIFY2(allclose.contains("np.testing.assert_allclose(actual, expected, rtol=0.001, "
                                   "atol=2.5e-7,"),
                 qPrintable(allclose));
        QVERIFY(!allclose.contains("rounding_bound"));
        verifyParses(whole);
    }
};

QTEST_APPLESS_MAIN(TestPythonBackwardSnippet)
#include "tst_python_backward_snippet.moc"
