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

// Free text with each of `values` (raw secrets Paddock knows, as McpConfig::secretValues()) masked
// wherever it occurs, longest first, then maskText(): a bare token that no pattern recognises
// (`npx` echoing its environment into gateway.log) is still hidden. Values shorter than
// MinKnownSecret characters are not searched for (they would mask ordinary words).
inline constexpr qsizetype MinKnownSecret = 6;
QString maskKnown(QStringView text, QStringList values);

// A single value that may carry a credential (a metadata value, an endpoint, a server's message,
// a fact): a URL as maskUrl() and then maskText(), anything else as maskText(). Every form that
// shows such a value (the dock, `paddockctl inspect` as text and as JSON) goes through this.
QString maskValue(const QString &value);

} // namespace Paddock::Inspect
