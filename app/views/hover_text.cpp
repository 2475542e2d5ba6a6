#include "hover_text.h"

#include "layer/float_format.h"

namespace tp {

QString hoverText(const QString& name, int row, int col, float value, int group,
                  const QString& groupSpan) {
    const QString index =
        row < 0 ? QString::number(col) : QStringLiteral("%1, %2").arg(row).arg(col);
    QString text =
        QStringLiteral("%1[%2] = %3").arg(name, index, QString::fromStdString(formatFloat(value)));
    if (group >= 0)
        text += QStringLiteral("  \u00b7  group %1").arg(group);
    if (group >= 0 && !groupSpan.isEmpty())
        text += QStringLiteral(" \u00b7 ") + groupSpan;
    return text;
}

}  // namespace tp
