#pragma once

// How list and info show workspaces: the JSON object of one workspace, list's table for people
// and its ids for pipes, and the terminal cells text takes. Each renders an already chosen
// (listed, filtered) set of workspaces into one buffer that the verb writes at once.

#include "result.h"
#include "sandbox.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringView>

namespace Paddock::Ctl {

class Session;

// The object list --json prints for each workspace, and info --json for one.
QJsonObject jsonRow(const SandboxInfo &info);

enum class OutputFormat {
    Table,
    Json,
    Ids,
};
// list's --output (table, json, ids) and --json (json); a bad value, or --json beside another
// format, is InvalidArgument naming the accepted values.
Result<OutputFormat> outputFormat(const Session &s);

// list --json: an indented array of jsonRow.
QByteArray renderJson(const QList<SandboxInfo> &rows);
// list --output ids: each workspace id once (a workspace with several sandboxes too), one per
// line, in the listing's order, and nothing else.
QByteArray renderIds(const QList<SandboxInfo> &rows);
// list's table: WORKSPACE STATE USER AGENT IDLE "EXPIRES IN" BACKEND, each column as wide as its
// widest cell, the lines fitted to `width` terminal cells (0: no limit) by shortening the widest
// id columns (workspace ids in the middle, user and agent ids at the end, "…" where text was
// cut), never the state or the times. Idle and expiry are counted to `now`.
QByteArray renderTable(const QList<SandboxInfo> &rows, const QDateTime &now, int width);

// The cells a terminal gives the text: East Asian wide and fullwidth characters two, combining
// marks and other zero-width characters none, everything else one.
int displayWidth(QStringView text);
// `text` with control characters (which could move a terminal's cursor or change its colours)
// shown as U+FFFD: for ids and values from a backend printed for people.
QString printable(const QString &text);
// The width list's table fits: the terminal's when stdout is one, else $COLUMNS when it is a
// positive number, else 0 (no limit: a pipe gets whole lines).
int outputWidth();

} // namespace Paddock::Ctl
