#include "help_menu.h"

#include <QAction>
#include <QCoreApplication>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>

#include <functional>

#include "config/device_choice.h"
#include "train/build_info.h"

namespace {

class HelpTexts {
    Q_DECLARE_TR_FUNCTIONS(HelpTexts)
};

void addTextAction(QMenu* menu, QMainWindow* window, const QString& title, const QString& name,
                   std::function<QString()> text)
{
    QAction* action = menu->addAction(title, window, [window, title, text] {
        QMessageBox::about(window, QString(title).remove(QLatin1Char('&')).remove(QChar(0x2026)),
                           text());
    });
    action->setObjectName(name);
}

}  // namespace

QString aboutText(const dp::BuildInfo& build)
{
    QString devices;
    for (const dp::DeviceInfo& device : dp::available_devices())
        devices += QStringLiteral("<br>%1 — %2").arg(QString::fromStdString(device.id).toHtmlEscaped(),
                                                     QString::fromStdString(device.description).toHtmlEscaped());
    return HelpTexts::tr("<h3>DP Workbench %1</h3>"
                         "<p>Data-parallel training of neural networks, live.</p>"
                         "<p>Built from %2.<br>Backends: %3<br>Multi-process runs (MPI): %4</p>"
                         "<p><b>Devices on this machine</b>%5</p>")
        .arg(QString::fromStdString(build.version),
             build.commit.empty() ? HelpTexts::tr("a source tree without git")
                                  : HelpTexts::tr("git commit %1").arg(QString::fromStdString(build.commit)),
             QString::fromStdString(build.backends).toHtmlEscaped(),
             build.mpi ? HelpTexts::tr("built (dp-train --distributed under mpirun)")
                       : HelpTexts::tr("not built"),
             devices);
}

QString shortcutsText()
{
    return HelpTexts::tr(
        "<table>"
        "<tr><td><b>Ctrl+R</b></td><td>Start (or queue) a run with the panel's settings</td></tr>"
        "<tr><td><b>Ctrl+.</b></td><td>Stop the run</td></tr>"
        "<tr><td><b>F11</b></td><td>Presenter mode, full screen; F11 or Esc leaves it</td></tr>"
        "<tr><td><b>Ctrl+1…6, PgUp, PgDn</b></td><td>In presenter mode on a short screen, the "
        "chart shown large</td></tr>"
        "<tr><td><b>Ctrl+T</b></td><td>Charts over training seconds instead of epochs</td></tr>"
        "<tr><td><b>Ctrl+0</b></td><td>Reset the charts' zoom (or double-click a chart)</td></tr>"
        "<tr><td><b>Ctrl+E</b></td><td>Export the charts and tables</td></tr>"
        "<tr><td><b>Wheel, drag</b></td><td>Zoom a chart; right-drag or Shift+drag pans</td></tr>"
        "</table>");
}

QString glossaryText()
{
    return HelpTexts::tr(
        "<p><b>Speedup</b>: how many times more epochs per second N devices train than their "
        "1-device baseline, each from the median of its epochs after the first (the first pays "
        "for kernel tuning and warm-up).</p>"
        "<p><b>Strong scaling</b>: N devices split the same global batch. <b>Weak scaling</b>: "
        "the batch (and learning rate) grow with N, so each device keeps 1 device's share.</p>"
        "<p><b>Scaling efficiency</b>: speedup / N; 100% is the ideal.</p>"
        "<p><b>Gap</b>: the N-device run's seconds per epoch minus the ideal (1 device's / N), "
        "split into where the time went: compute, all-reduce not hidden behind backward, waiting "
        "for the slowest device, data, update. A gap inside the epochs' own spread is noise and "
        "is not split.</p>"
        "<p><b>Drift</b>: how far N devices' weights are from 1 device's after the same epoch, "
        "relative. Data parallelism is the same maths, so it starts at float rounding, which "
        "training then amplifies; the accuracies say whether it matters.</p>"
        "<p><b>Busy</b>: other processes kept more than a fifth of the cores busy during the "
        "run, so its times are not trusted.</p>");
}

void addHelpMenu(QMainWindow* window)
{
    QMenu* help = window->menuBar()->addMenu(HelpTexts::tr("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    addTextAction(help, window, HelpTexts::tr("&Keyboard shortcuts…"), QStringLiteral("shortcutsAction"),
                  &shortcutsText);
    addTextAction(help, window, HelpTexts::tr("&Glossary…"), QStringLiteral("glossaryAction"),
                  &glossaryText);
}

void addAboutAction(QMainWindow* window, const dp::BuildInfo& build)
{
    QMenu* help = window->menuBar()->findChild<QMenu*>(QStringLiteral("helpMenu"));
    if (!help)
        return;
    help->addSeparator();
    addTextAction(help, window, HelpTexts::tr("&About DP Workbench…"), QStringLiteral("aboutAction"),
                  [build] { return aboutText(build); });
}
