#pragma once

// The workbench's state kept inside a GUI test: its QSettings and its history
// (runs.sqlite) in the test's scratch folder, never the user's.

#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>

// In initTestCase: this test program's QSettings under `scratch`.
inline void keepWorkbenchSettingsIn(const QTemporaryDir& scratch, const char* testName)
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("dp-workbench-tests"));
    QCoreApplication::setApplicationName(QString::fromUtf8(testName));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, scratch.filePath("settings"));
}

// In init: every test function starts with default settings and an empty
// history of its own (data-1, data-2, ... under `scratch`).
inline void startWithEmptySettingsAndHistory(const QTemporaryDir& scratch, int& dataDirs)
{
    QSettings().clear();
    qputenv("DP_WORKBENCH_DATA_DIR", scratch.filePath(QStringLiteral("data-%1").arg(++dataDirs)).toUtf8());
}
