#include "run_legend.h"

#include <algorithm>

namespace {

// Entries are links so that QLabel reports clicks and hovers on each.
const QString kLinkPrefix = QStringLiteral("run:");

// A hidden run's swatch and name.
const QColor kHiddenColor(0xa0, 0xa0, 0xa0);

QString keyOfLink(const QString& link)
{
    return link.startsWith(kLinkPrefix) ? link.mid(kLinkPrefix.size()) : QString();
}

}  // namespace

RunLegend::RunLegend(QWidget* parent) : QLabel(parent)
{
    setWordWrap(true);
    setTextFormat(Qt::RichText);
    setTextInteractionFlags(Qt::LinksAccessibleByMouse);
    setToolTip(tr("The runs checked in the runs table, in their chart colours. Click a run to hide "
                  "or show it on every chart; hover it to pick out its lines. On a chart: hover "
                  "for values, drag or Ctrl+wheel to zoom, drag with the right button (or "
                  "Shift) to pan, double-click to see everything again."));
    connect(this, &QLabel::linkActivated, this,
            [this](const QString& link) { toggleHidden(keyOfLink(link)); });
    connect(this, &QLabel::linkHovered, this,
            [this](const QString& link) { emit runHovered(keyOfLink(link)); });
    hide();
}

void RunLegend::setEntries(const std::vector<Entry>& entries)
{
    entries_ = entries;
    QSet<QString> keys;
    for (const Entry& entry : entries)
        keys.insert(entry.key);
    hidden_.intersect(keys);  // a run taken off the board comes back shown
    render();
    setVisible(!entries.empty());
}

void RunLegend::toggleHidden(const QString& key)
{
    const bool known = std::any_of(entries_.begin(), entries_.end(),
                                   [&](const Entry& entry) { return entry.key == key; });
    if (!known)
        return;
    const bool hidden = !hidden_.contains(key);
    if (hidden)
        hidden_.insert(key);
    else
        hidden_.remove(key);
    render();
    emit runHiddenChanged(key, hidden);
}

void RunLegend::leaveEvent(QEvent* event)
{
    QLabel::leaveEvent(event);
    emit runHovered(QString());
}

void RunLegend::render()
{
    QStringList items;
    for (const Entry& entry : entries_) {
        const bool hidden = hidden_.contains(entry.key);
        const QColor swatch = hidden ? kHiddenColor : entry.color;
        const QString nameColor = hidden ? kHiddenColor.name() : palette().color(foregroundRole()).name();
        // A run's swatch and name never part; runs wrap between them.
        items.append(QStringLiteral("<a href=\"%1%2\" style=\"text-decoration:none; color:%3\">"
                                    "<span style=\"white-space:nowrap\"><span style=\"color:%4\">"
                                    "<b>&#x2501;&#x2501;</b></span>&nbsp;%5</span></a>")
                             .arg(kLinkPrefix, entry.key.toHtmlEscaped(), nameColor, swatch.name(),
                                  hidden ? QStringLiteral("<s>%1</s>").arg(entry.name.toHtmlEscaped())
                                         : entry.name.toHtmlEscaped()));
    }
    setText(items.join(QStringLiteral(" &nbsp;&nbsp; ")));
}
