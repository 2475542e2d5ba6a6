#pragma once

// Runs an executable to completion, for end-to-end tests of tpviz and tpviz-cli.

#include <QByteArray>
#include <QMap>
#include <QString>
#include <QStringList>

namespace tp::test {

/// How one run ended and everything it printed.
struct ProcessRun {
    bool started = false;   ///< the program was found and started
    bool finished = false;  ///< exited on its own (not a crash, not killed at the timeout)
    int exitCode = -1;      ///< the exit status when finished, else -1
    QByteArray out;         ///< everything on stdout
    QByteArray err;         ///< everything on stderr, plus the reason when it did not finish

    QString outText() const { return QString::fromUtf8(out); }
    QString errText() const { return QString::fromUtf8(err); }
};

struct ProcessOptions {
    QMap<QString, QString> environment{};  ///< set on top of the test's own environment
    QByteArray input{};                    ///< written to stdin, which is then closed
    int timeoutMs = 120000;                ///< to start, and then to finish
    QString workingDirectory{};            ///< empty: the test's own
    QString standardOutputFile{};          ///< stdout into this file (e.g. /dev/full), not `out`
    bool closeStandardOutput = false;      ///< start the program with stdout closed (as >&-)
};

/// Runs `program args...` and waits for it. A run that fails to start, crashes or outlives the
/// timeout (then it is killed) comes back with finished == false, exitCode -1 and the reason
/// appended to `err`.
ProcessRun runProcess(const QString& program, const QStringList& args,
                      const ProcessOptions& options = {});

}  // namespace tp::test
