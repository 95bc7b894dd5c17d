#pragma once

#include <QString>
#include <QStringList>
#include <QStringView>

#include <optional>

namespace Paddock::Inspect {

// What every masked value is shown as. Key names, flags and URL structure stay visible.
QString maskGlyph();

// A key, header or flag name that looks like it names a secret (token, secret, password,
// api key, credential, auth, private key, ...). Case and '-'/'_' do not matter.
bool isSecretLookingName(QStringView name);

// A URL with its userinfo (user and password) and every query value masked; the scheme, host,
// path, query keys and fragment stay. A URL with nothing to mask is returned as it is.
QString maskUrl(const QString &url);
bool urlHasSecrets(const QString &url);

// One argument list masked: the value after a secret flag (`--api-key X`, `--token=X`,
// `--password`, `--secret`, `--auth-token`, `--instance-nonce`, ...), `KEY=value` with a
// secret-looking KEY, the value of `-H`/`--header "Name: value"`, and whatever maskText() finds.
// For each masked argument, `secretValues[i]` holds the raw value that was hidden (the part after
// `=` or `:` when the name is kept, else the whole argument); others have no entry.
struct MaskedArgs
{
    QStringList args;
    QList<std::optional<QString>> secretValues; // same length as args
};
MaskedArgs maskArgs(const QStringList &args);

// Free text (gateway.log, transcripts, tool results, diffs): bearer/basic tokens, `sk-…`,
// GitHub tokens (`ghp_…`, `github_pat_…`), AWS access key ids (`AKIA…`), JWTs,
// `password=`/`token: `/`api_key=`-style assignments, URL passwords, and the values of
// `--auth-token`/`--instance-nonce` and other secret flags.
QString maskText(QStringView text);

} // namespace Paddock::Inspect
