#pragma once

// Running tpviz-mpi under mpirun for the MPI tests, and reading its JSON report.

#include "layer/eigen_types.h"
#include "process_run.h"

#include <QDebug>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>

namespace tp::test {

// What Open MPI needs here: running as root, more ranks than cores, and no single-copy
// (process_vm_readv) in the shared-memory transport, which containers often forbid. One OpenMP
// thread per rank, as the ranks already share the cores. Under -DTPVIZ_SANITIZE=ON, LeakSanitizer
// would report what Open MPI keeps until exit; the address and UB checks stay on.
// Once a rank exits with a failure, mpirun waits a grace period (odls_base_sigkill_timeout, 1 s)
// twice before it ends the job, even when every rank has already exited: 2 s of nothing for each
// failing run here. Without it mpirun ends the job at once, with the same status and messages.
inline const QMap<QString, QString> kMpiEnvironment{
    {"OMPI_ALLOW_RUN_AS_ROOT", "1"},
    {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"},
    {"OMPI_MCA_rmaps_base_oversubscribe", "1"},
    {"OMPI_MCA_btl_vader_single_copy_mechanism", "none"},
    {"OMPI_MCA_odls_base_sigkill_timeout", "0"},
    {"OMP_NUM_THREADS", "1"},
    {"ASAN_OPTIONS", "detect_leaks=0"},
};

/// mpirun -n ranks tpviz-mpi args..., in kMpiEnvironment.
inline ProcessRun runMpi(int ranks, const QStringList& args, int timeoutMs = 120000) {
    return runProcess(
        QStringLiteral(TPVIZ_MPIEXEC),
        QStringList{"-n", QString::number(ranks), QStringLiteral(TPVIZ_MPI_PATH)} + args,
        {kMpiEnvironment, {}, timeoutMs});
}

/// tpviz-cli args..., for the report to compare with.
inline ProcessRun runCli(const QStringList& args) {
    return runProcess(QStringLiteral(TPVIZ_CLI_PATH), args);
}

/// The run's stdout as one JSON object (a warning with stderr when it is not JSON).
inline QJsonObject jsonOf(const ProcessRun& run) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(run.out, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning() << "not JSON:" << error.errorString() << run.errText();
    return doc.object();
}

/// A JSON array of rows as a matrix; a flat array (a vector) as one row.
inline Matrix matrixOf(const QJsonValue& value) {
    QJsonArray rows = value.toArray();
    if (!rows.isEmpty() && !rows.first().isArray())
        rows = QJsonArray{rows};
    const Index cols = rows.isEmpty() ? 0 : rows.first().toArray().size();
    Matrix m(rows.size(), cols);
    for (Index r = 0; r < m.rows(); ++r)
        for (Index c = 0; c < cols; ++c)
            m(r, c) = float(rows[int(r)].toArray()[int(c)].toDouble());
    return m;
}

}  // namespace tp::test
