// The mesh part of the Python snippet: it parses as Python, and its numbers are the scene's.

#include "config_fixtures.h"
#include "devices/mesh_costs.h"
#include "process_run.h"
#include "scene/python_mesh_snippet.h"
#include "scene/python_snippet.h"

#include <QTest>

using namespace tp;

namespace {

LayerConfig meshConfig(ParallelMode mode, std::int64_t data, std::optional<OutputLayout> output) {
    LayerConfig c = mode == ParallelMode::Column ? test::kFourGroups : test::kFourGroupsRow;
    c.batch = 4;
    c.dataSize = data;
    c.output = output;
    return c;
}

QString snippet(const LayerConfig& c) {
    return QString::fromStdString(pythonSnippet(c));
}

}  // namespace

class TestPythonMeshSnippet : public QObject {
    Q_OBJECT

private slots:
    void appendedOnlyWhenTheConfigNamesTheMesh() {
        QVERIFY(!snippet(test::kFourGroups).contains("Mesh("));
        QVERIFY(snippet(meshConfig(ParallelMode::Column, 2, std::nullopt)).contains("Mesh("));
        QVERIFY(snippet(meshConfig(ParallelMode::Column, 1, OutputLayout::Sharded))
                    .contains("NamedSharding"));
    }

    // Row mode sums partial sums over "model" even on one data row (the Devices tab's all-reduce),
    // so its snippet has the mesh part with that psum; column mode without a mesh needs none.
    void rowModeAlwaysHasItsAllReduce() {
        LayerConfig row = test::kFourGroupsRow;
        QVERIFY(row.dataSize == 1 && !row.output);
        const QString py = snippet(row);
        QVERIFY2(py.contains("jax.lax.psum(partial_sum, \"model\")"), qPrintable(py));
        QVERIFY(py.contains("--xla_force_host_platform_device_count=4"));
    }

    // Current JAX: all_gather is varying to varying under shard_map's check_vma, so the replicated
    // output's gather asks for an invariant result (to="invarying", the value JAX's all_gather
    // takes, or all_gather_invariant), with plain all_gather left for JAX before check_vma; the
    // forced host devices are CPU devices, asked for by platform; jax.make_mesh, with Mesh for
    // older JAX.
    void meshCodeRunsOnCurrentJax() {
        const QString py = snippet(meshConfig(ParallelMode::Column, 2, OutputLayout::Replicated));
        QVERIFY2(py.contains("jax.lax.all_gather(block, \"model\", axis=1, tiled=True, "
                             "to=\"invarying\")"),
                 qPrintable(py));
        QVERIFY(py.contains("\"to\" in inspect.signature(jax.lax.all_gather).parameters"));
        QVERIFY(py.contains("jax.lax.all_gather_invariant(block, \"model\", axis=1, tiled=True)"));
        QVERIFY(py.contains("import inspect\n"));
        QVERIFY(py.contains("cpus = jax.devices(\"cpu\")[:data_size * tp_size]"));
        QVERIFY(!py.contains("jax.devices()["));
        QVERIFY(
            py.contains("mesh = jax.make_mesh((data_size, tp_size), (\"data\", \"model\"), "
                        "devices=cpus)"));
        QVERIFY(py.contains("    mesh = Mesh(np.array(cpus).reshape(data_size, tp_size)"));
        // Only the replicated column output gathers.
        QVERIFY(!snippet(meshConfig(ParallelMode::Column, 2, OutputLayout::Sharded))
                     .contains("gather_columns"));
    }

    void numbersMatchTheScene_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("data");
        QTest::addColumn<int>("layout");
        QTest::addColumn<QString>("collective");
        QTest::newRow("column sharded D2") << 0 << 2 << 0 << "return y_block  # no communication";
        QTest::newRow("column replicated D2") << 0 << 2 << 1 << "return gather_columns(y_block)";
        QTest::newRow("row replicated D1") << 1 << 1 << 1 << "jax.lax.psum(partial_sum";
        QTest::newRow("row sharded D4") << 1 << 4 << 0 << "jax.lax.psum_scatter(partial_sum";
    }
    void numbersMatchTheScene() {
        QFETCH(int, mode);
        QFETCH(int, data);
        QFETCH(int, layout);
        QFETCH(QString, collective);
        const LayerConfig c =
            meshConfig(mode == 0 ? ParallelMode::Column : ParallelMode::Row, data,
                       layout == 0 ? OutputLayout::Sharded : OutputLayout::Replicated);
        QVERIFY(c.validate().empty());
        const QString py = snippet(c);
        const MeshCosts costs = meshCosts(c);
        const PartitionSpecs specs = partitionSpecs(c);
        const auto quoted = [](const std::string& s) {
            return QString::fromStdString(s).replace(QLatin1Char('\''), QLatin1Char('"'));
        };
        // The device count comes first, before JAX starts.
        const QString flag =
            QStringLiteral("--xla_force_host_platform_device_count=%1").arg(data * c.tpSize);
        QVERIFY(py.indexOf(flag) >= 0);
        QVERIFY(py.indexOf(flag) < py.indexOf(QLatin1String("import jax")));
        QVERIFY(py.contains(QStringLiteral("data_size = %1\n").arg(data)));
        QVERIFY(py.contains(QStringLiteral("batch, in_dim, features, tp_size = %1, %2, %3, %4")
                                .arg(c.batch)
                                .arg(c.inDim)
                                .arg(c.features)
                                .arg(c.tpSize)));
        QVERIFY(py.contains(QStringLiteral("kernel_spec, bias_spec, x_spec = %1, %2, %3")
                                .arg(quoted(specs.kernel), quoted(specs.bias), quoted(specs.x))));
        QVERIFY(py.contains(QStringLiteral("out_spec = %1").arg(quoted(specs.output))));
        const DeviceHoldings& h = costs.perDevice;
        const std::int64_t p = c.tpSize, nd = c.batch / data;
        const bool column = mode == 0;
        QVERIFY2(py.contains(QStringLiteral("(kernel_d, (%1, %2), %3)")
                                 .arg(column ? c.inDim : c.inDim / p)
                                 .arg(column ? c.features / p : c.features)
                                 .arg(h.kernelBytes)),
                 qPrintable(py));
        QVERIFY(py.contains(QStringLiteral("(bias_d, (%1,), %2)")
                                .arg(column ? c.features / p : c.features)
                                .arg(h.biasBytes)));
        QVERIFY(py.contains(QStringLiteral("(x_d, (%1, %2), %3)")
                                .arg(nd)
                                .arg(column ? c.inDim : c.inDim / p)
                                .arg(h.xBytes)));
        QVERIFY(py.contains(QStringLiteral("sends %1 B per device in %2 ring steps")
                                .arg(costs.collective.bytesSentPerDevice)
                                .arg(costs.collective.ringSteps)));
        QVERIFY(py.contains(collective));
        QVERIFY(py.contains("assert np.all(np.abs(f64(mesh_output) - f64(reference)) <= bound)"));

        const test::ProcessRun run =
            test::runProcess("python3", {"-c", "import ast, sys; ast.parse(sys.stdin.read())"},
                             {.input = py.toUtf8()});
        if (!run.started)
            QSKIP("python3 is not available to check the syntax");
        QVERIFY2(run.exitCode == 0, qPrintable(run.errText() + "\n" + py));
    }
};

QTEST_MAIN(TestPythonMeshSnippet)
#include "tst_python_mesh_snippet.moc"
