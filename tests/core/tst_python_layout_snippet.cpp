// The fsdp and sequence layouts' part of the Python snippet (tpviz-cli --python --layout): each
// array's NamedSharding spec at rest, one device's bytes as --costs counts them, and the layout's
// collectives in shard_map, forward and backward, over the right axes, in order and no others.

#include "devices/backward_collectives.h"
#include "devices/layout_costs.h"
#include "process_run.h"
#include "scene/python_snippet.h"

#include <QRegularExpression>
#include <QTest>

using namespace tp;

namespace {

// batch 8, in_dim 8, features 12 on data 2 x model 2 unless told: every layout splits it evenly.
LayerConfig layoutConfig(ShardingLayout layout, ParallelMode mode, std::int64_t data = 2,
                         std::int64_t tp = 2, std::optional<OutputLayout> output = std::nullopt) {
    LayerConfig c;
    c.batch = 8;
    c.inDim = 8;
    c.features = 12;
    c.tpSize = tp;
    c.dataSize = data;
    c.mode = mode;
    c.layout = layout;
    c.output = output;
    return c;
}

QString script(const LayerConfig& c, SnippetPasses passes = SnippetPasses::Forward,
               const CheckSettings& check = {}) {
    return QString::fromStdString(pythonSnippet(c, Mistake::None, check, passes));
}

// The text between `from` and `to` (both found, in that order), or "".
QString between(const QString& py, const QString& from, const QString& to) {
    const qsizetype start = py.indexOf(from);
    const qsizetype end = start < 0 ? -1 : py.indexOf(to, start);
    return end < 0 ? QString() : py.mid(start, end - start);
}

QString forwardBody(const QString& py) {
    return between(py, "def layer_on_mesh(", "mesh_output = layer_on_mesh(");
}

QString backwardBody(const QString& py) {
    return between(py, "def backward_on_mesh(", "mesh_dx, mesh_dkernel, mesh_dbias = ");
}

// `lines` in `body` in this order, each once, and no other collective.
void verifyCollectives(const QString& body, const QStringList& lines) {
    QVERIFY(!body.isEmpty());
    qsizetype at = -1;
    for (const QString& line : lines) {
        QVERIFY2(body.count(line) == 1, qPrintable(line + "\n" + body));
        QVERIFY2(body.indexOf(line) > at, qPrintable(line));
        at = body.indexOf(line);
    }
    for (const char* call : {"jax.lax.psum(", "jax.lax.psum_scatter(", "jax.lax.all_gather(",
                             "gather_columns(", "gather_rows("})
        QVERIFY2(body.count(call) == lines.filter(call).size(), call);
    for (const char* other : {"ppermute", "all_to_all", "pmean"})
        QVERIFY2(!body.contains(other), other);
}

void verifyParses(const QString& py) {
    const test::ProcessRun run =
        test::runProcess("python3", {"-c", "import ast, sys; ast.parse(sys.stdin.read())"},
                         {.input = py.toUtf8(), .timeoutMs = 10000});
    if (!run.started)
        QSKIP("python3 is not available to check the syntax");
    QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.errText() + "\n" + py));
}

const QString kGatherKernel =
    "kernel_block = jax.lax.all_gather(kernel_block, \"data\", axis=0, tiled=True)";
const QString kGatherBias =
    "bias_block = jax.lax.all_gather(bias_block, \"data\", axis=0, tiled=True)";
const QString kGatherX = "x_block = jax.lax.all_gather(x_block, \"model\", axis=0, tiled=True)";

}  // namespace

class TestPythonLayoutSnippet : public QObject {
    Q_OBJECT

private slots:
    // Each array's spec as the layout holds it at rest, and one device's shard of it: its shape
    // and its bytes, the bytes --costs gives at rest.
    void specsAtRest_data() {
        QTest::addColumn<LayerConfig>("config");
        QTest::addColumn<QString>("specs");
        QTest::addColumn<QString>("out");
        QTest::addColumn<QString>("shards");
        using L = ShardingLayout;
        using M = ParallelMode;
        QTest::newRow("fsdp column D2 tp2")
            << layoutConfig(L::Fsdp, M::Column)
            << "P(\"data\", \"model\"), P((\"model\", \"data\")), P(\"data\", None)"
            << "P(\"data\", \"model\")"
            << "((kernel_d, (4, 6), 96), (bias_d, (3,), 12),\n"
               "                             (x_d, (4, 8), 128))";
        QTest::newRow("fsdp row D2 tp2")
            << layoutConfig(L::Fsdp, M::Row)
            << "P((\"model\", \"data\"), None), P(\"data\"), P(\"data\", \"model\")"
            << "P(\"data\", None)"
            << "((kernel_d, (2, 12), 96), (bias_d, (6,), 24),\n"
               "                             (x_d, (4, 4), 64))";
        QTest::newRow("sequence column D2 tp2")
            << layoutConfig(L::Sequence, M::Column)
            << "P(None, \"model\"), P(\"model\"), P((\"data\", \"model\"), None)"
            << "P(\"data\", \"model\")"
            << "((kernel_d, (8, 6), 192), (bias_d, (6,), 24),\n"
               "                             (x_d, (2, 8), 64))";
        QTest::newRow("sequence row D2 tp2")
            << layoutConfig(L::Sequence, M::Row)
            << "P(\"model\", None), P(None), P(\"data\", \"model\")"
            << "P((\"data\", \"model\"), None)"
            << "((kernel_d, (4, 12), 192), (bias_d, (12,), 48),\n"
               "                             (x_d, (4, 4), 64))";
        // An axis of one device is left out, inside a pair of axes too.
        QTest::newRow("fsdp row D1 tp2")
            << layoutConfig(L::Fsdp, M::Row, 1) << "P(\"model\", None), P(None), P(None, \"model\")"
            << "P(None, None)"
            << "((kernel_d, (4, 12), 192), (bias_d, (12,), 48),\n"
               "                             (x_d, (8, 4), 128))";
        QTest::newRow("sequence row D2 tp1") << layoutConfig(L::Sequence, M::Row, 2, 1)
                                             << "P(None, None), P(None), P(\"data\", None)"
                                             << "P(\"data\", None)"
                                             << "((kernel_d, (8, 12), 384), (bias_d, (12,), 48),\n"
                                                "                             (x_d, (4, 8), 128))";
    }
    void specsAtRest() {
        QFETCH(LayerConfig, config);
        QFETCH(QString, specs);
        QFETCH(QString, out);
        QFETCH(QString, shards);
        QVERIFY(config.validate().empty());
        const QString py = script(config);
        QVERIFY2(py.contains("kernel_spec, bias_spec, x_spec = " + specs + "\n"), qPrintable(py));
        QVERIFY(py.contains("out_spec = " + out + "\n"));
        QVERIFY(py.contains("x_d = jax.device_put(x, NamedSharding(mesh, x_spec))\n"));
        QVERIFY2(py.contains("for array, shape, nbytes in " + shards + ":\n"), qPrintable(py));
        // The bytes at rest are --costs' own.
        const LayoutMemory memory = layoutMemory(config, false);
        for (const ArrayMemory& array : memory.arrays)
            if (array.name == "kernel" || array.name == "bias" || array.name == "x")
                QVERIFY2(
                    shards.contains(QRegularExpression(QStringLiteral("%1_d, \\([^)]*\\), %2\\)")
                                                           .arg(QString::fromStdString(array.name))
                                                           .arg(array.atRest))),
                    array.name.c_str());
        QVERIFY(py.contains(QStringLiteral("keeps %1 B at rest").arg(memory.atRest)));
        QVERIFY(py.contains(QStringLiteral("--xla_force_host_platform_device_count=%1")
                                .arg(config.dataSize * config.tpSize)));
        QVERIFY(py.contains(
            QStringLiteral("layout: data %1 x model %2").arg(config.dataSize).arg(config.tpSize)));
        verifyParses(py);
    }

    // The forward in shard_map: the layout's gathers before the product, its output collective
    // after, and nothing else; the result checked against the reference.
    void forwardCollectives_data() {
        QTest::addColumn<LayerConfig>("config");
        QTest::addColumn<QStringList>("collectives");
        using L = ShardingLayout;
        using M = ParallelMode;
        using O = OutputLayout;
        QTest::newRow("fsdp column sharded")
            << layoutConfig(L::Fsdp, M::Column)
            << QStringList{kGatherKernel, kGatherBias, "return y_block  # no communication"};
        QTest::newRow("fsdp column replicated")
            << layoutConfig(L::Fsdp, M::Column, 2, 2, O::Replicated)
            << QStringList{kGatherKernel, kGatherBias, "return gather_columns(y_block)"};
        QTest::newRow("fsdp row replicated")
            << layoutConfig(L::Fsdp, M::Row)
            << QStringList{kGatherKernel, kGatherBias,
                           "return jax.lax.psum(partial_sum, \"model\") + bias_block"};
        QTest::newRow("fsdp row sharded")
            << layoutConfig(L::Fsdp, M::Row, 2, 2, O::Sharded)
            << QStringList{kGatherKernel, kGatherBias,
                           "jax.lax.psum_scatter(partial_sum, \"model\", scatter_dimension=1, "
                           "tiled=True)"};
        QTest::newRow("fsdp column D1: no gather over one device")
            << layoutConfig(L::Fsdp, M::Column, 1) << QStringList{"return y_block"};
        QTest::newRow("sequence column")
            << layoutConfig(L::Sequence, M::Column)
            << QStringList{kGatherX, "return y_block  # no communication"};
        QTest::newRow("sequence row")
            << layoutConfig(L::Sequence, M::Row)
            << QStringList{
                   "y_block = jax.lax.psum_scatter(partial_sum, \"model\", "
                   "scatter_dimension=0, tiled=True)",
                   "return y_block + bias_block  # (2, 12)"};
        QTest::newRow("sequence row tp1")
            << layoutConfig(L::Sequence, M::Row, 2, 1)
            << QStringList{"y_block = partial_sum", "return y_block + bias_block  # (4, 12)"};
    }
    void forwardCollectives() {
        QFETCH(LayerConfig, config);
        QFETCH(QStringList, collectives);
        QVERIFY(config.validate().empty());
        const QString py = script(config);
        verifyCollectives(forwardBody(py), collectives);
        // The tensor layout's mesh part is replaced, not repeated.
        QCOMPARE(py.count("def layer_on_mesh("), 1);
        QVERIFY(py.contains(
            "@partial(shard_map, mesh=mesh, in_specs=(x_spec, kernel_spec, bias_spec),\n"));
        QVERIFY(py.contains("assert np.all(np.abs(f64(mesh_output) - f64(reference)) <= bound)"));
        // Every collective named in the comment is --costs' own.
        for (const LayoutCollective& step : layoutCollectives(config, false))
            QVERIFY(py.contains(QString::fromStdString(
                "#   forward: " + describe(BackwardCollective{step.axis, step.of, step.cost}) +
                "\n")));
        verifyParses(py);
    }

    // The backward in shard_map: the layout's gathers first, then the products, then its
    // reductions, each over its axis; every gradient leaves laid out as its array at rest.
    void backwardCollectives_data() {
        QTest::addColumn<LayerConfig>("config");
        QTest::addColumn<QStringList>("collectives");
        QTest::addColumn<QString>("inSpecs");
        QTest::addColumn<QString>("outSpecs");
        using L = ShardingLayout;
        using M = ParallelMode;
        using O = OutputLayout;
        const QString dxSum = "dx_block = jax.lax.psum(dx_partial, \"model\")";
        const QString scatterKernel =
            "dkernel_block = jax.lax.psum_scatter(dkernel_block, \"data\", scatter_dimension=0, "
            "tiled=True)";
        const QString scatterBias =
            "dbias_block = jax.lax.psum_scatter(dbias_block, \"data\", scatter_dimension=0, "
            "tiled=True)";
        const QString sumKernel = "dkernel_block = jax.lax.psum(dkernel_block, \"data\")";
        const QString sumBias = "dbias_block = jax.lax.psum(dbias_block, \"data\")";
        QTest::newRow("fsdp column sharded")
            << layoutConfig(L::Fsdp, M::Column)
            << QStringList{kGatherKernel, dxSum, scatterKernel, scatterBias}
            << "(P(\"data\", None), P(\"data\", \"model\"), P(\"data\", \"model\"))"
            << "(P(\"data\", None), P(\"data\", \"model\"), P((\"model\", \"data\")))";
        QTest::newRow("fsdp row sharded")
            << layoutConfig(L::Fsdp, M::Row, 2, 2, O::Sharded)
            << QStringList{"dy_block = gather_columns(dy_block)", kGatherKernel, scatterKernel,
                           scatterBias}
            << "(P(\"data\", \"model\"), P((\"model\", \"data\"), None), P(\"data\", \"model\"))"
            << "(P(\"data\", \"model\"), P((\"model\", \"data\"), None), P(\"data\"))";
        QTest::newRow("sequence column")
            << layoutConfig(L::Sequence, M::Column)
            << QStringList{kGatherX,
                           "dx_block = jax.lax.psum_scatter(dx_partial, \"model\", "
                           "scatter_dimension=0, tiled=True)",
                           sumKernel, sumBias}
            << "(P((\"data\", \"model\"), None), P(None, \"model\"), P(\"data\", \"model\"))"
            << "(P((\"data\", \"model\"), None), P(None, \"model\"), P(\"model\"))";
        QTest::newRow("sequence row")
            << layoutConfig(L::Sequence, M::Row)
            << QStringList{"dy_block = gather_rows(dy_block)", sumKernel, sumBias}
            << "(P(\"data\", \"model\"), P(\"model\", None), P((\"data\", \"model\"), None))"
            << "(P(\"data\", \"model\"), P(\"model\", None), P(None))";
        QTest::newRow("sequence row D1")
            << layoutConfig(L::Sequence, M::Row, 1)
            << QStringList{"dy_block = gather_rows(dy_block)"}
            << "(P(None, \"model\"), P(\"model\", None), P(\"model\", None))"
            << "(P(None, \"model\"), P(\"model\", None), P(None))";
    }
    void backwardCollectives() {
        QFETCH(LayerConfig, config);
        QFETCH(QStringList, collectives);
        QFETCH(QString, inSpecs);
        QFETCH(QString, outSpecs);
        QVERIFY(config.validate().empty());
        const QString py = script(config, SnippetPasses::ForwardAndBackward);
        const QString body = backwardBody(py);
        verifyCollectives(body, collectives);
        // The products run once what they need is gathered, and the reductions after them.
        const qsizetype products = body.indexOf("dkernel_block = x_block.T @ dy_block");
        QVERIFY(products > 0);
        for (const QString& line : collectives)
            QVERIFY2((body.indexOf(line) < products) == line.contains("gather"), qPrintable(line));
        QVERIFY(py.contains("backward_in_specs = " + inSpecs + "  # x, kernel, dy\n"));
        QVERIFY2(py.contains("backward_out_specs = " + outSpecs + "  # dx, dkernel, dbias\n"),
                 qPrintable(py));
        QVERIFY(py.contains("check_gradients(\"mesh\", mesh_dx, mesh_dkernel, mesh_dbias)\n"));
        // The functions the gathers call are defined before the mesh programs.
        for (const char* gather : {"gather_columns", "gather_rows"})
            if (body.contains(QString(gather) + "("))
                QVERIFY(py.indexOf(QString("def ") + gather + "(block):") <
                        py.indexOf("def layer_on_mesh("));
        for (const LayoutCollective& step : layoutCollectives(config, true))
            if (step.phase == PassPhase::Backward)
                QVERIFY(py.contains(QString::fromStdString(
                    "#   " + describe(BackwardCollective{step.axis, step.of, step.cost}) + "\n")));
        verifyParses(py);
    }

    // The tensor layout's script is the mesh snippet's, untouched by the layouts' part.
    void tensorLayoutKeepsItsScript() {
        const LayerConfig tensor = layoutConfig(ShardingLayout::Tensor, ParallelMode::Column);
        const QString py = script(tensor, SnippetPasses::ForwardAndBackward);
        QVERIFY(!py.contains(" layout: data "));
        QVERIFY(!py.contains("gather_rows"));
        QVERIFY(
            py.contains("kernel_spec, bias_spec, x_spec = P(None, \"model\"), P(\"model\"), "
                        "P(\"data\", None)\n"));
        QVERIFY(py.contains("tp_size 2, column-parallel\n"));
        const QString fsdp = script(layoutConfig(ShardingLayout::Fsdp, ParallelMode::Column));
        QVERIFY(fsdp.contains("tp_size 2, column-parallel, fsdp layout\n"));
    }

    // An allclose verdict holds for the layout's mesh output as for the tensor layout's.
    void checkFollowsTheRule() {
        const QString py = script(
            layoutConfig(ShardingLayout::Sequence, ParallelMode::Row), SnippetPasses::Forward,
            {.rule = CheckRule::Allclose, .tolerance = {.rtol = 0.001, .atol = 2.5e-7}});
        QVERIFY2(py.contains("np.testing.assert_allclose(np.asarray(mesh_output), "
                             "np.asarray(reference), rtol=0.001, atol=2.5e-7)"),
                 qPrintable(py));
    }
};

QTEST_APPLESS_MAIN(TestPythonLayoutSnippet)
#include "tst_python_layout_snippet.moc"
