#include "run_legend.h"

RunLegend::RunLegend(QWidget* parent) : QLabel(parent)
{
    setWordWrap(true);
    setTextFormat(Qt::RichText);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setToolTip(tr("The runs checked in the runs table, in their chart colours. On a chart: hover "
                  "for values, drag or turn the wheel to zoom, drag with the right button (or "
                  "Shift) to pan, double-click to see everything again."));
    hide();
}

void RunLegend::setEntries(const std::vector<Entry>& entries)
{
    entries_ = entries;
    QStringList items;
    for (const Entry& entry : entries) {
        // A run's swatch and name never part; runs wrap between them.
        items.append(QStringLiteral("<span style=\"white-space:nowrap\"><span style=\"color:%1\">"
                                    "<b>&#x2501;&#x2501;</b></span>&nbsp;%2</span>")
                         .arg(entry.color.name(), entry.name.toHtmlEscaped()));
    }
    setText(items.join(QStringLiteral(" &nbsp;&nbsp; ")));
    setVisible(!entries.empty());
}
