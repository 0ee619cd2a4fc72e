#pragma once
// What the GUI benches share: the offscreen platform unless the caller asks
// for another, their own settings names, and the machine's load to report
// beside their times (these machines are shared).
#include <QByteArray>
#include <QCoreApplication>
#include <QFile>
#include <QString>

// Before the QApplication exists.
inline void useOffscreenUnlessAsked()
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

// The bench's settings, apart from the workbench's (with the QApplication made).
inline void nameBench(const char* name)
{
    QCoreApplication::setOrganizationName(QStringLiteral("dp-workbench-bench"));
    QCoreApplication::setApplicationName(QString::fromLatin1(name));
}

// The 1-minute load average; -1 without /proc.
inline double loadAverage()
{
    QFile file(QStringLiteral("/proc/loadavg"));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    return file.readAll().split(' ').value(0).toDouble();
}
