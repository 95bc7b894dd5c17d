#include "secretmask.h"

#include <QRegularExpression>

#include <algorithm>

namespace Paddock::Inspect {

QString maskGlyph()
{
    return QStringLiteral("\u2022\u2022\u2022\u2022");
}

bool isSecretLookingName(QStringView name)
{
    QString normal = name.toString().toLower();
    normal.replace(QLatin1Char('_'), QLatin1Char('-'));
    while (normal.startsWith(QLatin1Char('-')))
        normal.remove(0, 1);
    if (normal.isEmpty())
        return false;
    static const char *const inside[] = {"token",   "secret",     "password",    "passwd",     "passphrase", "apikey",
                                         "api-key", "credential", "private-key", "access-key", "nonce"};
    for (const char *word : inside) {
        if (normal.contains(QLatin1String(word)))
            return true;
    }
    static const char *const segments[] = {"auth", "key", "pat", "pwd", "cookie", "sig", "signature"};
    const QStringList parts = normal.split(QLatin1Char('-'), Qt::SkipEmptyParts);
    for (const QString &part : parts) {
        for (const char *word : segments) {
            if (part == QLatin1String(word))
                return true;
        }
    }
    return false;
}

namespace {

struct UrlParts
{
    qsizetype userinfoStart = -1;
    qsizetype userinfoEnd = -1; // the '@'
    qsizetype queryStart = -1; // after '?'
    qsizetype queryEnd = -1;
    qsizetype fragmentStart = -1; // after '#'
};

UrlParts splitUrl(const QString &url)
{
    UrlParts parts;
    const qsizetype scheme = url.indexOf(QLatin1String("://"));
    qsizetype pathStart = 0;
    if (scheme >= 0) {
        const qsizetype authorityStart = scheme + 3;
        qsizetype authorityEnd = url.size();
        for (qsizetype i = authorityStart; i < url.size(); ++i) {
            const QChar c = url.at(i);
            if (c == QLatin1Char('/') || c == QLatin1Char('?') || c == QLatin1Char('#')) {
                authorityEnd = i;
                break;
            }
        }
        const qsizetype at = url.lastIndexOf(QLatin1Char('@'), authorityEnd - 1);
        if (at >= authorityStart) {
            parts.userinfoStart = authorityStart;
            parts.userinfoEnd = at;
        }
        pathStart = authorityEnd;
    }
    const qsizetype hash = url.indexOf(QLatin1Char('#'), pathStart);
    const qsizetype question = url.indexOf(QLatin1Char('?'), pathStart);
    if (question >= 0 && (hash < 0 || question < hash)) {
        parts.queryStart = question + 1;
        parts.queryEnd = hash >= 0 ? hash : url.size();
    }
    if (hash >= 0)
        parts.fragmentStart = hash + 1;
    return parts;
}

// "a=1&b&c=3" → "a=••••&••••&c=••••"
QString maskPairs(QStringView pairs)
{
    QStringList out;
    for (QStringView pair : pairs.split(QLatin1Char('&'))) {
        if (pair.isEmpty()) {
            out.append(QString());
            continue;
        }
        const qsizetype eq = pair.indexOf(QLatin1Char('='));
        out.append(eq >= 0 ? pair.left(eq + 1).toString() + maskGlyph() : maskGlyph());
    }
    return out.join(QLatin1Char('&'));
}

} // namespace

bool urlHasSecrets(const QString &url)
{
    const UrlParts parts = splitUrl(url);
    return parts.userinfoStart >= 0 || (parts.queryStart >= 0 && parts.queryEnd > parts.queryStart)
        || (parts.fragmentStart >= 0 && url.indexOf(QLatin1Char('='), parts.fragmentStart) >= 0)
        || maskText(url) != url;
}

QString maskUrl(const QString &url)
{
    const UrlParts parts = splitUrl(url);
    QString out;
    qsizetype at = 0;
    if (parts.userinfoStart >= 0) {
        out += QStringView(url).mid(0, parts.userinfoStart);
        const bool hasPassword = QStringView(url)
                                     .mid(parts.userinfoStart, parts.userinfoEnd - parts.userinfoStart)
                                     .contains(QLatin1Char(':'));
        out += hasPassword ? maskGlyph() + QLatin1Char(':') + maskGlyph() : maskGlyph();
        at = parts.userinfoEnd;
    }
    if (parts.queryStart >= 0) {
        out += QStringView(url).mid(at, parts.queryStart - at);
        out += maskPairs(QStringView(url).mid(parts.queryStart, parts.queryEnd - parts.queryStart));
        at = parts.queryEnd;
    }
    if (parts.fragmentStart >= 0 && url.indexOf(QLatin1Char('='), parts.fragmentStart) >= 0) {
        out += QStringView(url).mid(at, parts.fragmentStart - at);
        out += maskPairs(QStringView(url).mid(parts.fragmentStart));
        at = url.size();
    }
    out += QStringView(url).mid(at);
    return maskText(out);
}

MaskedArgs maskArgs(const QStringList &args)
{
    MaskedArgs masked;
    masked.args.reserve(args.size());
    masked.secretValues.reserve(args.size());
    enum class Pending { None, Value, Header } pending = Pending::None;
    static thread_local const QRegularExpression assignment(QStringLiteral("^([A-Za-z_][A-Za-z0-9_.-]*)=(.*)$"),
                                                            QRegularExpression::DotMatchesEverythingOption);
    for (const QString &arg : args) {
        QString shown = arg;
        std::optional<QString> secret;
        const Pending was = std::exchange(pending, Pending::None);
        const bool isFlag = arg.startsWith(QLatin1Char('-')) && arg.size() > 1;
        if (was == Pending::Value && !isFlag) {
            shown = maskGlyph();
            secret = arg;
        } else if (was == Pending::Header) {
            const qsizetype colon = arg.indexOf(QLatin1Char(':'));
            shown = colon >= 0 ? arg.left(colon + 1) + QLatin1Char(' ') + maskGlyph() : maskGlyph();
            secret = colon >= 0 ? arg.mid(colon + 1).trimmed() : arg;
        } else if (isFlag) {
            const qsizetype eq = arg.indexOf(QLatin1Char('='));
            const QString flag = eq >= 0 ? arg.left(eq) : arg;
            const bool header = flag == QLatin1String("-H") || flag == QLatin1String("--header");
            if (header) {
                if (eq < 0) {
                    pending = Pending::Header;
                } else {
                    const QString value = arg.mid(eq + 1);
                    const qsizetype colon = value.indexOf(QLatin1Char(':'));
                    shown = flag + QLatin1Char('=')
                        + (colon >= 0 ? value.left(colon + 1) + QLatin1Char(' ') + maskGlyph() : maskGlyph());
                    secret = colon >= 0 ? value.mid(colon + 1).trimmed() : value;
                }
            } else if (isSecretLookingName(flag)) {
                if (eq < 0) {
                    pending = Pending::Value;
                } else {
                    shown = flag + QLatin1Char('=') + maskGlyph();
                    secret = arg.mid(eq + 1);
                }
            }
        } else if (const QRegularExpressionMatch m = assignment.match(arg);
                   m.hasMatch() && isSecretLookingName(m.capturedView(1))) {
            shown = m.captured(1) + QLatin1Char('=') + maskGlyph();
            secret = m.captured(2);
        }
        if (!secret) {
            const QString text = maskText(arg);
            if (text != arg) {
                shown = text;
                secret = arg;
            }
        }
        masked.args.append(shown);
        masked.secretValues.append(secret);
    }
    return masked;
}

QString maskText(QStringView text)
{
    struct Rule
    {
        QRegularExpression pattern;
        QString replacement;
    };
    const QString glyph = maskGlyph();
    static thread_local const QList<Rule> rules = [glyph = maskGlyph()] {
        const auto ci = QRegularExpression::CaseInsensitiveOption;
        QList<Rule> list;
        list.append({QRegularExpression(QStringLiteral("\\b(bearer)(\\s+)[A-Za-z0-9._~+/=-]{6,}"), ci),
                     QStringLiteral("\\1\\2") + glyph});
        list.append({QRegularExpression(QStringLiteral("\\b(Basic)(\\s+)[A-Za-z0-9+/]{12,}={0,2}")),
                     QStringLiteral("\\1\\2") + glyph});
        list.append({QRegularExpression(QStringLiteral("\\bsk-[A-Za-z0-9_-]{16,}")), QStringLiteral("sk-") + glyph});
        list.append(
            {QRegularExpression(QStringLiteral("\\b(gh[pousr]_)[A-Za-z0-9]{20,}")), QStringLiteral("\\1") + glyph});
        list.append({QRegularExpression(QStringLiteral("\\bgithub_pat_[A-Za-z0-9_]{20,}")),
                     QStringLiteral("github_pat_") + glyph});
        list.append(
            {QRegularExpression(QStringLiteral("\\b(AKIA|ASIA)[0-9A-Z]{16}\\b")), QStringLiteral("\\1") + glyph});
        list.append(
            {QRegularExpression(QStringLiteral("\\beyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}")),
             glyph});
        list.append({QRegularExpression(QStringLiteral("(--(?:auth-token|instance-nonce|api-key|apikey|api_key|token|"
                                                       "access-token|password|passwd|secret|client-secret)(?:=|\\s+))"
                                                       "(\"[^\"]*\"|'[^']*'|[^\\s\"']+)"),
                                        ci),
                     QStringLiteral("\\1") + glyph});
        list.append(
            {QRegularExpression(QStringLiteral("([?&][A-Za-z0-9_.-]*(?:key|token|secret|password|sig|signature|auth|"
                                               "code|nonce)[A-Za-z0-9_.-]*=)([^&\\s#\"'<>]+)"),
                                ci),
             QStringLiteral("\\1") + glyph});
        list.append({QRegularExpression(
                         QStringLiteral("\\b((?:[A-Za-z0-9]+[_-])*(?:password|passwd|pwd|secret|token|api[_-]?key|"
                                        "access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|nonce)"
                                        "[\"']?\\s*[=:]\\s*[\"']?)([^\\s\"'&,;}<>]+)"),
                         ci),
                     QStringLiteral("\\1") + glyph});
        list.append({QRegularExpression(QStringLiteral("\\b([a-z][a-z0-9+.-]*://)([^/\\s:@]+):([^/\\s@]+)@"), ci),
                     QStringLiteral("\\1\\2:") + glyph + QLatin1Char('@')});
        return list;
    }();
    QString out = text.toString();
    for (const Rule &rule : rules)
        out.replace(rule.pattern, rule.replacement);
    // Two rules can hit the same value (a bearer token after "token="): show one glyph.
    out.replace(glyph + glyph, glyph);
    return out;
}

QString maskKnown(QStringView text, QStringList values)
{
    std::sort(values.begin(), values.end(), [](const QString &a, const QString &b) { return a.size() > b.size(); });
    QString masked = text.toString();
    for (const QString &value : std::as_const(values)) {
        if (value.size() >= MinKnownSecret)
            masked.replace(value, maskGlyph());
    }
    return maskText(masked);
}

QString maskValue(const QString &value)
{
    if (value.contains(QStringLiteral("://")))
        return maskText(maskUrl(value));
    return maskText(value);
}

} // namespace Paddock::Inspect
