#include "kubeconfig.h"

#include "../../broadcast.h"
#include "../../tr.h"

#include <QCoroTask>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>
#include <QLoggingCategory>
#include <QNetworkRequest>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSet>

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Paddock::Kubernetes {

namespace {

Q_LOGGING_CATEGORY(lcKubeConfig, "paddock.core.kubernetes.config", QtInfoMsg)

constexpr auto ExecApiV1 = "client.authentication.k8s.io/v1";
constexpr auto ExecApiV1Beta1 = "client.authentication.k8s.io/v1beta1";
constexpr auto ExecExtension = "client.authentication.k8s.io/exec";
// client-go reads a token file again at least this often, changed or not.
constexpr std::chrono::minutes TokenFileRecheck{1};
// What a failing plugin's stderr contributes to its message at most (its end, where the reason is).
constexpr qsizetype MaxStderrInMessage = 4000;

QString filesText(const QStringList &files)
{
    return files.join(QLatin1String(", "));
}

// map[key], or a null node when it is absent: yaml-cpp's "zombie" node for a missing key throws
// from everything but IsDefined().
YAML::Node child(const YAML::Node &map, const char *key)
{
    if (!map.IsMap())
        return YAML::Node();
    const YAML::Node value = map[key];
    return value.IsDefined() ? value : YAML::Node();
}

// A field's path for messages: clusters[prod].cluster.server.
QString field(const QString &where, const char *key)
{
    return where.isEmpty() ? QString::fromLatin1(key) : where + QLatin1Char('.') + QLatin1String(key);
}

// One kubeconfig file being read. Every accessor checks the node's kind first: yaml-cpp throws
// on a subscript of a scalar, and a wrong kind deserves a message that names the field.
struct FileReader
{
    QString file;
    QString dir;

    static int lineOf(const YAML::Node &node)
    {
        const YAML::Mark mark = node.Mark();
        return mark.is_null() ? 0 : mark.line + 1;
    }

    Error invalid(const YAML::Node &node, const QString &field, const QString &expected) const
    {
        return Error::invalidArgument(Tr::tr("the kubeconfig %1 is not valid at line %2: %3 must be %4")
                                          .arg(file)
                                          .arg(lineOf(node))
                                          .arg(field, expected));
    }

    // A string field: absent or null gives an empty string.
    Result<QString> string(const YAML::Node &map, const char *key, const QString &where) const
    {
        const YAML::Node value = child(map, key);
        if (value.IsNull())
            return QString();
        if (!value.IsScalar())
            return fail(invalid(value, field(where, key), Tr::tr("a string")));
        return QString::fromStdString(value.Scalar());
    }

    Result<bool> boolean(const YAML::Node &map, const char *key, const QString &where) const
    {
        const YAML::Node value = child(map, key);
        if (value.IsNull())
            return false;
        bool out = false;
        if (!value.IsScalar() || !YAML::convert<bool>::decode(value, out))
            return fail(invalid(value, field(where, key), Tr::tr("true or false")));
        return out;
    }

    // A *-data field: base64 of PEM text (Go's decoder skips line breaks, so this does too).
    Result<QByteArray> data(const YAML::Node &map, const char *key, const QString &where) const
    {
        auto text = string(map, key, where);
        if (!text)
            return fail(text.error());
        QByteArray encoded = text->toLatin1();
        encoded.replace('\n', QByteArray()).replace('\r', QByteArray()).replace(' ', QByteArray());
        if (encoded.isEmpty())
            return QByteArray();
        auto decoded = QByteArray::fromBase64Encoding(encoded, QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded)
            return fail(invalid(child(map, key), field(where, key), Tr::tr("base64 text")));
        return std::move(*decoded);
    }

    // A path field, made absolute against the folder of this file (client-go's rule).
    Result<QString> path(const YAML::Node &map, const char *key, const QString &where) const
    {
        auto text = string(map, key, where);
        if (!text || text->isEmpty())
            return text;
        return absolute(*text);
    }

    QString absolute(const QString &path) const { return QDir::cleanPath(QDir(dir).absoluteFilePath(path)); }

    Result<YAML::Node> list(const YAML::Node &map, const char *key, const QString &where) const
    {
        const YAML::Node value = child(map, key);
        if (!value.IsNull() && !value.IsSequence())
            return fail(invalid(value, field(where, key), Tr::tr("a list")));
        return value;
    }

    Result<YAML::Node> map(const YAML::Node &parent, const char *key, const QString &where) const
    {
        const YAML::Node value = child(parent, key);
        if (!value.IsNull() && !value.IsMap())
            return fail(invalid(value, field(where, key), Tr::tr("a map")));
        return value;
    }
};

// A YAML value as JSON, for the exec extension handed to plugins: quoted scalars stay strings,
// plain ones become null, booleans and numbers where they read as such.
QJsonValue toJson(const YAML::Node &node)
{
    if (node.IsMap()) {
        QJsonObject object;
        for (auto it = node.begin(); it != node.end(); ++it)
            object.insert(QString::fromStdString(it->first.Scalar()), toJson(it->second));
        return object;
    }
    if (node.IsSequence()) {
        QJsonArray array;
        for (const YAML::Node &item : node)
            array.append(toJson(item));
        return array;
    }
    if (node.IsNull())
        return QJsonValue(QJsonValue::Null);
    const QString text = QString::fromStdString(node.Scalar());
    if (node.Tag() != "!") {
        bool flag = false;
        if (YAML::convert<bool>::decode(node, flag))
            return flag;
        bool isNumber = false;
        const double number = text.toDouble(&isNumber);
        if (isNumber)
            return number;
    }
    return text;
}

// The entries of one file's list (clusters, users or contexts), each as its name, its line and
// its inner map, with a name defined twice refused as client-go refuses it.
struct NamedEntry
{
    QString name;
    int line = 0;
    YAML::Node body;
};

Result<QList<NamedEntry>> namedEntries(const FileReader &reader, const YAML::Node &root, const char *key,
                                       const char *bodyKey)
{
    auto items = reader.list(root, key, QString());
    if (!items)
        return fail(items.error());
    QList<NamedEntry> entries;
    QHash<QString, int> lines;
    if (!items->IsDefined() || items->IsNull())
        return entries;
    for (const YAML::Node &item : *items) {
        const QString where = QLatin1String(key) + QLatin1String("[]");
        if (!item.IsMap())
            return fail(reader.invalid(item, where, Tr::tr("a map with name and %1").arg(QLatin1String(bodyKey))));
        auto name = reader.string(item, "name", where);
        if (!name)
            return fail(name.error());
        if (name->isEmpty()) {
            qCDebug(lcKubeConfig) << "skipping an entry without a name in" << key << "of" << reader.file;
            continue;
        }
        const int line = FileReader::lineOf(item);
        if (lines.contains(*name)) {
            return fail(Error::invalidArgument(Tr::tr("the kubeconfig %1 defines %2 %3 twice (lines %4 and %5)")
                                                   .arg(reader.file, QLatin1String(key), *name)
                                                   .arg(lines.value(*name))
                                                   .arg(line)));
        }
        lines.insert(*name, line);
        auto body = reader.map(item, bodyKey, where);
        if (!body)
            return fail(body.error());
        entries.append(NamedEntry{*name, line, *body});
    }
    return entries;
}

Result<KubeCluster> readCluster(const FileReader &reader, const NamedEntry &entry)
{
    KubeCluster cluster;
    cluster.name = entry.name;
    cluster.file = reader.file;
    const YAML::Node &body = entry.body;
    if (!body.IsDefined() || body.IsNull())
        return cluster;
    const QString where = QStringLiteral("clusters[%1].cluster").arg(entry.name);
    auto server = reader.string(body, "server", where);
    auto ca = reader.path(body, "certificate-authority", where);
    auto caData = reader.data(body, "certificate-authority-data", where);
    auto insecure = reader.boolean(body, "insecure-skip-tls-verify", where);
    auto serverName = reader.string(body, "tls-server-name", where);
    auto proxy = reader.string(body, "proxy-url", where);
    for (const auto *field : {&server, &ca, &serverName, &proxy}) {
        if (!*field)
            return fail(field->error());
    }
    if (!caData)
        return fail(caData.error());
    if (!insecure)
        return fail(insecure.error());
    cluster.server = *server;
    cluster.certificateAuthority = *ca;
    cluster.certificateAuthorityData = *caData;
    cluster.insecureSkipTlsVerify = *insecure;
    cluster.tlsServerName = *serverName;
    cluster.proxyUrl = *proxy;
    auto extensions = reader.list(body, "extensions", where);
    if (!extensions)
        return fail(extensions.error());
    if (extensions->IsSequence()) {
        for (const YAML::Node &extension : *extensions) {
            const YAML::Node name = child(extension, "name");
            const YAML::Node value = child(extension, "extension");
            if (name.IsScalar() && name.Scalar() == ExecExtension && value.IsMap())
                cluster.execConfig = toJson(value).toObject();
        }
    }
    return cluster;
}

Result<ExecPlugin> readExec(const FileReader &reader, const YAML::Node &exec, const QString &where)
{
    ExecPlugin plugin;
    auto apiVersion = reader.string(exec, "apiVersion", where);
    auto command = reader.string(exec, "command", where);
    auto mode = reader.string(exec, "interactiveMode", where);
    auto hint = reader.string(exec, "installHint", where);
    for (const auto *field : {&apiVersion, &command, &mode, &hint}) {
        if (!*field)
            return fail(field->error());
    }
    auto provide = reader.boolean(exec, "provideClusterInfo", where);
    if (!provide)
        return fail(provide.error());
    plugin.apiVersion = *apiVersion;
    plugin.command = *command;
    // A command with a '/' in it is a path, relative to the kubeconfig's folder; a bare name is
    // looked up on PATH (client-go's rule).
    if (plugin.command.contains(QLatin1Char('/')) && QDir::isRelativePath(plugin.command))
        plugin.command = reader.absolute(plugin.command);
    plugin.installHint = *hint;
    plugin.provideClusterInfo = *provide;

    if (plugin.apiVersion != QLatin1String(ExecApiV1) && plugin.apiVersion != QLatin1String(ExecApiV1Beta1)) {
        return fail(Error::unsupported(
            Tr::tr("the kubeconfig %1, line %2: the credential plugin's apiVersion %3 is not supported (use %4 or %5)")
                .arg(reader.file)
                .arg(FileReader::lineOf(exec))
                .arg(plugin.apiVersion.isEmpty() ? Tr::tr("(none)") : plugin.apiVersion, QLatin1String(ExecApiV1),
                     QLatin1String(ExecApiV1Beta1))));
    }
    if (plugin.command.isEmpty())
        return fail(reader.invalid(exec, where + QLatin1String(".command"), Tr::tr("a command to run")));
    if (mode->isEmpty()) {
        // v1 requires it; v1beta1 defaults to IfAvailable (client-go).
        if (plugin.apiVersion == QLatin1String(ExecApiV1)) {
            return fail(reader.invalid(exec, where + QLatin1String(".interactiveMode"),
                                       Tr::tr("set for %1 (Never, IfAvailable or Always)").arg(plugin.apiVersion)));
        }
        plugin.interactiveMode = ExecPlugin::InteractiveMode::IfAvailable;
    } else if (*mode == QLatin1String("Never")) {
        plugin.interactiveMode = ExecPlugin::InteractiveMode::Never;
    } else if (*mode == QLatin1String("IfAvailable")) {
        plugin.interactiveMode = ExecPlugin::InteractiveMode::IfAvailable;
    } else if (*mode == QLatin1String("Always")) {
        plugin.interactiveMode = ExecPlugin::InteractiveMode::Always;
    } else {
        return fail(reader.invalid(child(exec, "interactiveMode"), where + QLatin1String(".interactiveMode"),
                                   Tr::tr("Never, IfAvailable or Always")));
    }

    auto args = reader.list(exec, "args", where);
    if (!args)
        return fail(args.error());
    if (args->IsSequence()) {
        for (const YAML::Node &arg : *args) {
            if (!arg.IsScalar())
                return fail(reader.invalid(arg, where + QLatin1String(".args[]"), Tr::tr("a string")));
            plugin.args.append(QString::fromStdString(arg.Scalar()));
        }
    }
    auto env = reader.list(exec, "env", where);
    if (!env)
        return fail(env.error());
    if (env->IsSequence()) {
        for (const YAML::Node &variable : *env) {
            const QString envWhere = where + QLatin1String(".env[]");
            if (!variable.IsMap())
                return fail(reader.invalid(variable, envWhere, Tr::tr("a map with name and value")));
            auto name = reader.string(variable, "name", envWhere);
            auto value = reader.string(variable, "value", envWhere);
            if (!name)
                return fail(name.error());
            if (!value)
                return fail(value.error());
            plugin.env.append({*name, *value});
        }
    }
    return plugin;
}

// The user entry, with what Paddock does not support recorded so that resolve() can say so.
struct ReadUser
{
    KubeUser user;
    QString authProvider; // auth-provider's name
    bool basicAuth = false;
    bool impersonates = false; // as, as-uid, as-groups, as-user-extra
};

Result<ReadUser> readUser(const FileReader &reader, const NamedEntry &entry)
{
    ReadUser read;
    KubeUser &user = read.user;
    user.name = entry.name;
    user.file = reader.file;
    const YAML::Node &body = entry.body;
    if (!body.IsDefined() || body.IsNull())
        return read;
    const QString where = QStringLiteral("users[%1].user").arg(entry.name);
    auto token = reader.string(body, "token", where);
    auto tokenFile = reader.path(body, "tokenFile", where);
    auto certificate = reader.path(body, "client-certificate", where);
    auto key = reader.path(body, "client-key", where);
    auto username = reader.string(body, "username", where);
    for (const auto *field : {&token, &tokenFile, &certificate, &key, &username}) {
        if (!*field)
            return fail(field->error());
    }
    auto certificateData = reader.data(body, "client-certificate-data", where);
    auto keyData = reader.data(body, "client-key-data", where);
    if (!certificateData)
        return fail(certificateData.error());
    if (!keyData)
        return fail(keyData.error());
    user.token = token->toUtf8();
    user.tokenFile = *tokenFile;
    user.clientCertificate = *certificate;
    user.clientKey = *key;
    user.clientCertificateData = *certificateData;
    user.clientKeyData = *keyData;
    read.basicAuth = !username->isEmpty();
    for (const char *key : {"as", "as-uid", "as-groups", "as-user-extra"}) {
        if (!child(body, key).IsNull())
            read.impersonates = true;
    }

    auto exec = reader.map(body, "exec", where);
    if (!exec)
        return fail(exec.error());
    if (exec->IsMap()) {
        auto plugin = readExec(reader, *exec, where + QLatin1String(".exec"));
        if (!plugin)
            return fail(plugin.error());
        user.exec = std::move(*plugin);
    }
    auto provider = reader.map(body, "auth-provider", where);
    if (!provider)
        return fail(provider.error());
    if (provider->IsMap()) {
        auto name = reader.string(*provider, "name", where + QLatin1String(".auth-provider"));
        read.authProvider = name && !name->isEmpty() ? *name : QStringLiteral("?");
    }
    return read;
}

Result<KubeContext> readContext(const FileReader &reader, const NamedEntry &entry)
{
    KubeContext context;
    context.name = entry.name;
    context.file = reader.file;
    const YAML::Node &body = entry.body;
    if (!body.IsDefined() || body.IsNull())
        return context;
    const QString where = QStringLiteral("contexts[%1].context").arg(entry.name);
    auto cluster = reader.string(body, "cluster", where);
    auto user = reader.string(body, "user", where);
    auto ns = reader.string(body, "namespace", where);
    for (const auto *field : {&cluster, &user, &ns}) {
        if (!*field)
            return fail(field->error());
    }
    context.cluster = *cluster;
    context.user = *user;
    context.namespaceName = *ns;
    return context;
}

struct ParsedFile
{
    QString currentContext;
    QList<KubeCluster> clusters;
    QList<ReadUser> users;
    QList<KubeContext> contexts;
};

Result<ParsedFile> parseDocument(const FileReader &reader, const YAML::Node &root)
{
    ParsedFile parsed;
    if (!root.IsDefined() || root.IsNull())
        return parsed; // an empty file is an empty kubeconfig, as for client-go
    if (!root.IsMap()) {
        return fail(Error::invalidArgument(
            Tr::tr("%1 is not a kubeconfig: it holds no map of clusters, users and contexts (line %2)")
                .arg(reader.file)
                .arg(FileReader::lineOf(root))));
    }
    auto kind = reader.string(root, "kind", QStringLiteral("kind"));
    auto apiVersion = reader.string(root, "apiVersion", QStringLiteral("apiVersion"));
    auto current = reader.string(root, "current-context", QStringLiteral("current-context"));
    for (const auto *field : {&kind, &apiVersion, &current}) {
        if (!*field)
            return fail(field->error());
    }
    if (!kind->isEmpty() && *kind != QLatin1String("Config")) {
        return fail(Error::invalidArgument(
            Tr::tr("%1 is not a kubeconfig: its kind is %2 (a kubeconfig has kind: Config)").arg(reader.file, *kind)));
    }
    if (!apiVersion->isEmpty() && *apiVersion != QLatin1String("v1")) {
        return fail(Error::invalidArgument(
            Tr::tr("%1 is not a kubeconfig Paddock can read: its apiVersion is %2 (a kubeconfig has apiVersion: v1)")
                .arg(reader.file, *apiVersion)));
    }
    parsed.currentContext = *current;

    auto clusters = namedEntries(reader, root, "clusters", "cluster");
    if (!clusters)
        return fail(clusters.error());
    for (const NamedEntry &entry : *clusters) {
        auto cluster = readCluster(reader, entry);
        if (!cluster)
            return fail(cluster.error());
        parsed.clusters.append(std::move(*cluster));
    }
    auto users = namedEntries(reader, root, "users", "user");
    if (!users)
        return fail(users.error());
    for (const NamedEntry &entry : *users) {
        auto user = readUser(reader, entry);
        if (!user)
            return fail(user.error());
        parsed.users.append(std::move(*user));
    }
    auto contexts = namedEntries(reader, root, "contexts", "context");
    if (!contexts)
        return fail(contexts.error());
    for (const NamedEntry &entry : *contexts) {
        auto context = readContext(reader, entry);
        if (!context)
            return fail(context.error());
        parsed.contexts.append(std::move(*context));
    }
    return parsed;
}

// yaml-cpp throws; this is where its exceptions become Errors.
Result<ParsedFile> parseFile(const QString &file, const QByteArray &text)
{
    const FileReader reader{file, QFileInfo(file).absolutePath()};
    try {
        const YAML::Node root = YAML::Load(text.toStdString());
        return parseDocument(reader, root);
    } catch (const YAML::Exception &error) {
        const QString reason = QString::fromStdString(error.msg);
        if (error.mark.is_null())
            return fail(Error::invalidArgument(Tr::tr("the kubeconfig %1 does not parse: %2").arg(file, reason)));
        return fail(Error::invalidArgument(Tr::tr("the kubeconfig %1 does not parse: line %2, column %3: %4")
                                               .arg(file)
                                               .arg(error.mark.line + 1)
                                               .arg(error.mark.column + 1)
                                               .arg(reason)));
    } catch (const std::exception &error) {
        return fail(Error::invalidArgument(
            Tr::tr("the kubeconfig %1 does not parse: %2").arg(file, QString::fromLocal8Bit(error.what()))));
    }
}

// A whole file; the error's message is only the reason, for the caller's sentence.
Result<QByteArray> readWholeFile(const QString &path)
{
    QFile file(path);
    if (QFileInfo(path).isDir())
        return fail(Error::io(Tr::tr("it is a folder")));
    if (!file.open(QIODevice::ReadOnly))
        return fail(Error::io(file.errorString()));
    return file.readAll();
}

// client-go's InClusterConfig and kubeconfig servers alike: a bare host:port gets a scheme, https
// when TLS is configured in any way, else http (DefaultServerURL).
Result<QUrl> serverUrl(const KubeCluster &cluster, bool tlsConfigured)
{
    QUrl url(cluster.server, QUrl::StrictMode);
    if (!url.isValid() || url.scheme().isEmpty() || url.host().isEmpty()) {
        url = QUrl((tlsConfigured ? QLatin1String("https://") : QLatin1String("http://")) + cluster.server,
                   QUrl::StrictMode);
    }
    const QString scheme = url.scheme();
    if (!url.isValid() || url.host().isEmpty()
        || (scheme != QLatin1String("https") && scheme != QLatin1String("http"))) {
        return fail(Error::invalidArgument(Tr::tr("cluster %1 in %2: its server %3 is not an https:// or http:// URL")
                                               .arg(cluster.name, cluster.file, cluster.server)));
    }
    return url;
}

Result<std::optional<QNetworkProxy>> proxyFor(const KubeCluster &cluster)
{
    if (cluster.proxyUrl.isEmpty())
        return std::optional<QNetworkProxy>();
    const QUrl url(cluster.proxyUrl, QUrl::StrictMode);
    const QString scheme = url.scheme();
    if (!url.isValid() || url.host().isEmpty()) {
        return fail(Error::invalidArgument(
            Tr::tr("cluster %1 in %2: its proxy-url is not a URL").arg(cluster.name, cluster.file)));
    }
    QNetworkProxy proxy;
    if (scheme == QLatin1String("http")) {
        proxy = QNetworkProxy(QNetworkProxy::HttpProxy, url.host(), quint16(url.port(80)));
    } else if (scheme == QLatin1String("socks5")) {
        proxy = QNetworkProxy(QNetworkProxy::Socks5Proxy, url.host(), quint16(url.port(1080)));
    } else {
        // Qt speaks plain text to an HTTP proxy; a TLS connection to the proxy itself it cannot make.
        return fail(Error::unsupported(Tr::tr("cluster %1 in %2: its proxy-url has the scheme %3; Paddock supports "
                                              "http:// and socks5:// proxies")
                                           .arg(cluster.name, cluster.file, scheme)));
    }
    proxy.setUser(url.userName(QUrl::FullyDecoded));
    proxy.setPassword(url.password(QUrl::FullyDecoded));
    return std::optional<QNetworkProxy>(proxy);
}

QString withoutUserInfo(const QUrl &url)
{
    return url.adjusted(QUrl::RemoveUserInfo).toDisplayString();
}

Error httpRefused(const QString &what, const QUrl &server)
{
    return Error::invalidArgument(Tr::tr("%1: the server %2 is http://, and Paddock sends no credentials without TLS "
                                         "(kubectl does not either): use the server's https:// address")
                                      .arg(what, withoutUserInfo(server)));
}

Error closedError(const QString &what)
{
    return Error{Error::Kind::Cancelled, Tr::tr("cancelled: the Kubernetes connection (%1) was closed").arg(what)};
}

// RFC 3339 as Go writes it: seconds, or up to nine fractional digits (Qt reads three at most).
QDateTime parseRfc3339(const QString &text)
{
    static const QRegularExpression fraction(QStringLiteral("(\\.\\d{3})\\d+"));
    QString normalised = text;
    normalised.replace(fraction, QStringLiteral("\\1"));
    const QDateTime time = QDateTime::fromString(normalised, Qt::ISODateWithMs);
    const bool hasZone = normalised.endsWith(QLatin1Char('Z')) || normalised.endsWith(QLatin1Char('z'))
        || QRegularExpression(QStringLiteral("[+-]\\d\\d:\\d\\d$")).match(normalised).hasMatch();
    return hasZone ? time : QDateTime();
}

QString tail(const QByteArray &bytes)
{
    QString text = QString::fromUtf8(bytes).trimmed();
    if (text.size() > MaxStderrInMessage)
        text = QStringLiteral("…") + text.right(MaxStderrInMessage);
    return text;
}

} // namespace

// ---- Connection and Authorization ----------------------------------------------------------

void Connection::prepare(QNetworkRequest &request) const
{
    request.setSslConfiguration(ssl);
    if (!peerVerifyName.isEmpty())
        request.setPeerVerifyName(peerVerifyName);
}

QByteArray Authorization::headerValue() const
{
    return bearerToken.isEmpty() ? QByteArray() : QByteArray("Bearer ") + bearerToken;
}

Result<> Authorization::applyTo(QNetworkRequest &request) const
{
    if (isEmpty())
        return {};
    const QString scheme = request.url().scheme();
    if (scheme != QLatin1String("https") && scheme != QLatin1String("wss")) {
        return fail(Error::invalidArgument(
            Tr::tr("refusing to send credentials to %1: it is not https").arg(withoutUserInfo(request.url()))));
    }
    if (!bearerToken.isEmpty())
        request.setRawHeader("Authorization", headerValue());
    if (!pluginIdentity.isNull()) {
        QSslConfiguration ssl = request.sslConfiguration();
        applyTo(ssl);
        request.setSslConfiguration(ssl);
    }
    return {};
}

void Authorization::applyTo(QSslConfiguration &ssl) const
{
    if (pluginIdentity.isNull())
        return;
    ssl.setLocalCertificateChain(pluginIdentity.chain);
    ssl.setPrivateKey(pluginIdentity.key);
}

// ---- Credentials ---------------------------------------------------------------------------

Credentials::Credentials(Spec spec)
    : m_spec(std::move(spec))
{
    switch (m_spec.source) {
    case Source::None:
        m_current = Authorization{};
        break;
    case Source::Token:
    case Source::Caller:
        m_current = made(m_spec.token, {});
        break;
    case Source::TokenFile:
    case Source::ServiceAccount:
    case Source::ExecPlugin:
        break;
    }
}

Credentials::~Credentials()
{
    close();
}

void Credentials::close()
{
    m_waits.close();
}

Authorization Credentials::made(QByteArray token, ClientIdentity identity)
{
    Authorization authorization;
    authorization.bearerToken = std::move(token);
    authorization.pluginIdentity = std::move(identity);
    authorization.generation = ++m_generation;
    return authorization;
}

// Every co_return below hands over a Result prvalue: QCoro 0.8's return_value(U &&) moves from an
// lvalue it is given, which would empty m_current.
QCoro::Task<Result<Authorization>> Credentials::authorization()
{
    if (m_waits.isClosed())
        co_return fail(closedError(m_spec.what));
    switch (m_spec.source) {
    case Source::None:
    case Source::Token:
    case Source::Caller:
        co_return Result<Authorization>(*m_current);
    case Source::TokenFile:
    case Source::ServiceAccount:
        co_return readTokenFile(false);
    case Source::ExecPlugin:
        break;
    }
    if (m_current && (!m_expiry.isValid() || QDateTime::currentDateTimeUtc() < m_expiry))
        co_return Result<Authorization>(*m_current);
    if (const auto running = m_running)
        co_return co_await running->wait();
    const auto running = std::make_shared<Broadcast<Result<Authorization>>>();
    m_running = running;
    Result<Authorization> result = co_await runPlugin();
    // Also when closed: close() runs while this object still exists, and the waiters must end.
    m_running.reset();
    running->set(result);
    co_return result;
}

bool Credentials::reportUnauthorized(const Authorization &used)
{
    switch (m_spec.source) {
    case Source::None:
    case Source::Token:
    case Source::Caller:
        return false;
    case Source::TokenFile:
    case Source::ServiceAccount: {
        if (m_waits.isClosed())
            return false;
        if (m_current && m_current->generation == used.generation)
            (void)readTokenFile(true);
        return m_current && m_current->bearerToken != used.bearerToken;
    }
    case Source::ExecPlugin:
        if (m_waits.isClosed())
            return false;
        if (m_current && m_current->generation == used.generation) {
            m_current.reset();
            m_expiry = {};
        }
        return true;
    }
    return false;
}

Result<Authorization> Credentials::readTokenFile(bool force)
{
    const QString &path = m_spec.tokenFile;
    const auto keepOrFail = [&](const QString &reason) -> Result<Authorization> {
        // Mid-rotation the file can be missing or empty for a moment; the token read before
        // still works until the server says otherwise (client-go keeps it too).
        if (m_current) {
            qCWarning(lcKubeConfig) << "cannot read the token file" << path
                                    << "again, keeping the token read before:" << reason;
            return *m_current;
        }
        return fail(Error::io(Tr::tr("cannot read the token file %1 of %2: %3").arg(path, m_spec.what, reason)));
    };
    struct stat info = {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return keepOrFail(QString::fromLocal8Bit(std::strerror(errno)));
    const FileStamp stamp{quint64(info.st_dev), quint64(info.st_ino),
                          qint64(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec, qint64(info.st_size)};
    const auto now = std::chrono::steady_clock::now();
    if (!force && m_current && stamp == m_stamp && now - m_readAt < TokenFileRecheck)
        return *m_current;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return keepOrFail(file.errorString());
    ++m_tokenFileReads;
    const QByteArray token = file.readAll().trimmed();
    if (token.isEmpty())
        return keepOrFail(Tr::tr("it is empty"));
    m_stamp = stamp;
    m_readAt = now;
    if (!m_current || m_current->bearerToken != token)
        m_current = made(token, {});
    return *m_current;
}

QCoro::Task<Result<Authorization>> Credentials::runPlugin()
{
    const ExecPlugin plugin = *m_spec.exec;
    const QString what = m_spec.what;
    ++m_pluginRuns;
    qCDebug(lcKubeConfig) << "running the credential plugin" << plugin.command << "for" << what;

    QJsonObject spec{{QStringLiteral("interactive"), false}};
    if (plugin.provideClusterInfo)
        spec.insert(QStringLiteral("cluster"), m_spec.clusterInfo);
    const QJsonObject info{{QStringLiteral("apiVersion"), plugin.apiVersion},
                           {QStringLiteral("kind"), QStringLiteral("ExecCredential")},
                           {QStringLiteral("spec"), spec}};
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const auto &[name, value] : plugin.env)
        environment.insert(name, value);
    environment.insert(QStringLiteral("KUBERNETES_EXEC_INFO"),
                       QString::fromUtf8(QJsonDocument(info).toJson(QJsonDocument::Compact)));

    QProcess process;
    process.setProgram(plugin.command);
    process.setArguments(plugin.args);
    process.setProcessEnvironment(environment);
    process.setProcessChannelMode(QProcess::SeparateChannels);
    // Not interactive: Paddock has no terminal to lend it (client-go gives stdin only then).
    process.setStandardInputFile(QProcess::nullDevice());
    process.setChildProcessModifier([] {
        ::setsid(); // its own process group, so that a timeout or a close stops its children too
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    });

    // A close stops the plugin (its process group) and ends the wait at once.
    const WaitSet::ProcessEnd end = co_await m_waits.run(process, m_pluginTimeout);
    if (end == WaitSet::ProcessEnd::Closed)
        co_return fail(closedError(what));
    const bool timedOut = end == WaitSet::ProcessEnd::TimedOut;

    const QString hint = plugin.installHint.trimmed();
    const auto withHint = [&hint](QString message) {
        if (!hint.isEmpty())
            message += u'\n' + hint;
        return message;
    };
    if (end == WaitSet::ProcessEnd::FailedToStart) {
        co_return fail(Error::notFound(withHint(
            Tr::tr("cannot run the credential plugin %1 of %2: %3").arg(plugin.command, what, process.errorString()))));
    }
    const QString stderrText = tail(process.readAllStandardError());
    const auto withStderr = [&stderrText](QString message) {
        if (!stderrText.isEmpty())
            message += u'\n' + Tr::tr("stderr: %1").arg(stderrText);
        return message;
    };
    if (timedOut) {
        co_return fail(Error::timeout(withStderr(Tr::tr("the credential plugin %1 of %2 did not finish within %3 s")
                                                     .arg(plugin.command, what)
                                                     .arg(double(m_pluginTimeout.count()) / 1000.0))));
    }
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        const QString status = process.exitStatus() == QProcess::NormalExit ? Tr::tr("exit %1").arg(process.exitCode())
                                                                            : Tr::tr("it crashed");
        co_return fail(Error::backend(withHint(
            withStderr(Tr::tr("the credential plugin %1 of %2 failed (%3)").arg(plugin.command, what, status)))));
    }

    // Its stdout holds the credentials: it never goes into a message or a log.
    QByteArray out = process.readAllStandardOutput();
    const auto wipe = qScopeGuard([&out] { out.fill('\0'); });
    const auto bad = [&](const QString &reason) {
        return fail(
            Error::backend(withStderr(Tr::tr("the credential plugin %1 of %2 printed no usable ExecCredential: %3")
                                          .arg(plugin.command, what, reason))));
    };
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(out, &parseError);
    if (!document.isObject())
        co_return bad(parseError.error != QJsonParseError::NoError ? parseError.errorString()
                                                                   : Tr::tr("not a JSON object"));
    const QJsonObject credential = document.object();
    if (credential.value(QLatin1String("kind")).toString() != QLatin1String("ExecCredential"))
        co_return bad(Tr::tr("its kind is not ExecCredential"));
    const QString apiVersion = credential.value(QLatin1String("apiVersion")).toString();
    if (apiVersion != plugin.apiVersion)
        co_return bad(
            Tr::tr("its apiVersion is %1, but the kubeconfig asks for %2").arg(apiVersion, plugin.apiVersion));
    const QJsonObject status = credential.value(QLatin1String("status")).toObject();
    if (status.isEmpty())
        co_return bad(Tr::tr("it has no status"));
    const QByteArray token = status.value(QLatin1String("token")).toString().toUtf8();
    const QByteArray certificate = status.value(QLatin1String("clientCertificateData")).toString().toUtf8();
    const QByteArray key = status.value(QLatin1String("clientKeyData")).toString().toUtf8();
    if (token.isEmpty() && (certificate.isEmpty() || key.isEmpty()))
        co_return bad(Tr::tr("it gives neither a token nor a client certificate and key"));
    ClientIdentity identity;
    if (!certificate.isEmpty() && !key.isEmpty()) {
        auto parsed =
            parseClientIdentity(certificate, key, Tr::tr("the credential plugin %1 of %2").arg(plugin.command, what));
        if (!parsed)
            co_return fail(parsed.error());
        identity = std::move(*parsed);
    }
    QDateTime expiry;
    if (const QString text = status.value(QLatin1String("expirationTimestamp")).toString(); !text.isEmpty()) {
        expiry = parseRfc3339(text);
        if (!expiry.isValid())
            co_return bad(Tr::tr("its expirationTimestamp %1 is not an RFC 3339 time").arg(text));
    }
    m_current = made(token, std::move(identity));
    m_expiry = expiry;
    co_return Result<Authorization>(*m_current);
}

// ---- KubeConfig ----------------------------------------------------------------------------

Environment Environment::system()
{
    Environment environment;
    if (qEnvironmentVariableIsSet("KUBECONFIG"))
        environment.kubeconfig = qEnvironmentVariable("KUBECONFIG");
    environment.home = QDir::homePath();
    environment.serviceHost = qEnvironmentVariable("KUBERNETES_SERVICE_HOST");
    environment.servicePort = qEnvironmentVariable("KUBERNETES_SERVICE_PORT");
    return environment;
}

QStringList KubeConfig::defaultFiles(const Environment &environment)
{
    if (environment.kubeconfig && !environment.kubeconfig->isEmpty()) {
        QStringList files;
        for (const QString &entry : environment.kubeconfig->split(QLatin1Char(':'), Qt::SkipEmptyParts)) {
            const QString file = QDir::cleanPath(QFileInfo(entry).absoluteFilePath());
            if (!files.contains(file))
                files.append(file);
        }
        return files;
    }
    return {QDir(environment.home).filePath(QStringLiteral(".kube/config"))};
}

Result<KubeConfig> KubeConfig::loadFile(const QString &file)
{
    if (!QFileInfo::exists(file))
        return fail(Error::notFound(Tr::tr("the kubeconfig %1 does not exist").arg(file)));
    return load({file});
}

Result<KubeConfig> KubeConfig::load(const QStringList &files)
{
    KubeConfig config;
    QSet<QString> seen;
    QSet<QString> clusterNames, userNames, contextNames;
    for (const QString &given : files) {
        const QString file = QDir::cleanPath(QFileInfo(given).absoluteFilePath());
        if (given.isEmpty() || seen.contains(file))
            continue;
        seen.insert(file);
        if (!QFileInfo::exists(file))
            continue; // client-go skips a missing file of the list
        auto text = readWholeFile(file);
        if (!text)
            return fail(Error::io(Tr::tr("cannot read the kubeconfig %1: %2").arg(file, text.error().message)));
        auto parsed = parseFile(file, *text);
        if (!parsed)
            return fail(parsed.error());
        config.m_files.append(file);
        if (config.m_currentContext.isEmpty())
            config.m_currentContext = parsed->currentContext;
        // The first file that defines a name wins, entirely.
        for (KubeCluster &cluster : parsed->clusters) {
            if (!clusterNames.contains(cluster.name)) {
                clusterNames.insert(cluster.name);
                config.m_clusters.append(std::move(cluster));
            }
        }
        for (ReadUser &read : parsed->users) {
            if (!userNames.contains(read.user.name)) {
                userNames.insert(read.user.name);
                config.m_users.append(std::move(read.user));
                config.m_unsupported.append({read.authProvider, read.basicAuth, read.impersonates});
            }
        }
        for (KubeContext &context : parsed->contexts) {
            if (!contextNames.contains(context.name)) {
                contextNames.insert(context.name);
                config.m_contexts.append(std::move(context));
            }
        }
    }
    if (config.m_files.isEmpty()) {
        return fail(Error::notFound(Tr::tr("no kubeconfig found: none of %1 exists")
                                        .arg(filesText(files.isEmpty() ? QStringList{Tr::tr("(no files)")} : files))));
    }
    return config;
}

QStringList KubeConfig::contextNames() const
{
    QStringList names;
    for (const KubeContext &context : m_contexts)
        names.append(context.name);
    return names;
}

const KubeContext *KubeConfig::context(const QString &name) const
{
    for (const KubeContext &context : m_contexts) {
        if (context.name == name)
            return &context;
    }
    return nullptr;
}

const KubeCluster *KubeConfig::cluster(const QString &name) const
{
    for (const KubeCluster &cluster : m_clusters) {
        if (cluster.name == name)
            return &cluster;
    }
    return nullptr;
}

const KubeUser *KubeConfig::user(const QString &name) const
{
    for (const KubeUser &user : m_users) {
        if (user.name == name)
            return &user;
    }
    return nullptr;
}

ContextList KubeConfig::summary() const
{
    ContextList list;
    list.currentContext = m_currentContext;
    list.files = m_files;
    for (const KubeContext &context : m_contexts) {
        const KubeCluster *cluster = this->cluster(context.cluster);
        list.contexts.append(ContextSummary{context.name, context.cluster, cluster ? cluster->server : QString(),
                                            context.user, context.namespaceName, context.file});
    }
    return list;
}

Result<ContextList> contextsIn(const QStringList &files)
{
    auto config = KubeConfig::load(files);
    if (!config)
        return fail(config.error());
    return config->summary();
}

Result<Connection> KubeConfig::resolve(const QString &contextName, const ResolveOptions &options) const
{
    const QString name = contextName.isEmpty() ? m_currentContext : contextName;
    const QString names = m_contexts.isEmpty() ? Tr::tr("it has none")
                                               : Tr::tr("it has %1").arg(contextNames().join(QLatin1String(", ")));
    if (name.isEmpty()) {
        return fail(Error::invalidArgument(Tr::tr("no context chosen, and %1 sets no current-context: choose one (%2)")
                                               .arg(filesText(m_files), names)));
    }
    const KubeContext *context = this->context(name);
    if (!context)
        return fail(Error::notFound(Tr::tr("there is no context %1 in %2; %3").arg(name, filesText(m_files), names)));
    const QString what = Tr::tr("context %1 in %2").arg(name, context->file);

    if (context->cluster.isEmpty())
        return fail(Error::invalidArgument(Tr::tr("%1 names no cluster").arg(what)));
    const KubeCluster *cluster = this->cluster(context->cluster);
    if (!cluster) {
        return fail(Error::notFound(Tr::tr("%1 names the cluster %2, which %3 does not define")
                                        .arg(what, context->cluster, filesText(m_files))));
    }
    const KubeUser *user = nullptr;
    qsizetype userIndex = -1;
    if (!context->user.isEmpty()) {
        for (qsizetype i = 0; i < m_users.size(); ++i) {
            if (m_users.at(i).name == context->user)
                userIndex = i;
        }
        if (userIndex < 0) {
            return fail(Error::notFound(
                Tr::tr("%1 names the user %2, which %3 does not define").arg(what, context->user, filesText(m_files))));
        }
        user = &m_users.at(userIndex);
    }
    if (cluster->server.isEmpty())
        return fail(Error::invalidArgument(Tr::tr("cluster %1 in %2 has no server").arg(cluster->name, cluster->file)));

    Connection connection;
    connection.contextName = name;
    connection.namespaceName = context->namespaceName;
    connection.description = what;
    connection.peerVerifyName = cluster->tlsServerName;

    // TLS: the cluster's CA alone when it names one.
    const bool hasCa = !cluster->certificateAuthorityData.isEmpty() || !cluster->certificateAuthority.isEmpty();
    if (cluster->insecureSkipTlsVerify && hasCa) {
        return fail(
            Error::invalidArgument(Tr::tr("cluster %1 in %2 sets both insecure-skip-tls-verify and a certificate "
                                          "authority; keep one of them (kubectl refuses this too)")
                                       .arg(cluster->name, cluster->file)));
    }
    connection.ssl = QSslConfiguration::defaultConfiguration();
    QByteArray caPem;
    if (hasCa) {
        QString source;
        if (!cluster->certificateAuthorityData.isEmpty()) {
            caPem = cluster->certificateAuthorityData;
            source = Tr::tr("the certificate-authority-data of cluster %1 in %2").arg(cluster->name, cluster->file);
        } else {
            auto read = readWholeFile(cluster->certificateAuthority);
            if (!read) {
                return fail(Error::io(
                    Tr::tr("cannot read the certificate authority %1 of cluster %2 in %3: %4")
                        .arg(cluster->certificateAuthority, cluster->name, cluster->file, read.error().message)));
            }
            caPem = *read;
            source = Tr::tr("the certificate authority %1 of cluster %2 in %3")
                         .arg(cluster->certificateAuthority, cluster->name, cluster->file);
        }
        auto certificates = parseCertificates(caPem, source);
        if (!certificates)
            return fail(certificates.error());
        connection.ssl.setCaCertificates(*certificates);
    }
    if (cluster->insecureSkipTlsVerify)
        connection.ssl.setPeerVerifyMode(QSslSocket::VerifyNone);

    // The user's client certificate and key, unless the caller's token replaces the user.
    const bool callerToken = !options.token.isEmpty();
    bool hasCertificate = false;
    if (user && !callerToken) {
        const bool hasCert = !user->clientCertificateData.isEmpty() || !user->clientCertificate.isEmpty();
        const bool hasKey = !user->clientKeyData.isEmpty() || !user->clientKey.isEmpty();
        const QString userWhat = Tr::tr("user %1 in %2").arg(user->name, user->file);
        if (hasCert != hasKey) {
            return fail(Error::invalidArgument(
                hasCert ? Tr::tr("%1 has a client certificate but no client key").arg(userWhat)
                        : Tr::tr("%1 has a client key but no client certificate").arg(userWhat)));
        }
        if (hasCert) {
            QByteArray certificatePem = user->clientCertificateData;
            if (certificatePem.isEmpty()) {
                auto read = readWholeFile(user->clientCertificate);
                if (!read) {
                    return fail(Error::io(Tr::tr("cannot read the client certificate %1 of %2: %3")
                                              .arg(user->clientCertificate, userWhat, read.error().message)));
                }
                certificatePem = *read;
            }
            QByteArray keyPem = user->clientKeyData;
            if (keyPem.isEmpty()) {
                auto read = readWholeFile(user->clientKey);
                if (!read) {
                    return fail(Error::io(Tr::tr("cannot read the client key %1 of %2: %3")
                                              .arg(user->clientKey, userWhat, read.error().message)));
                }
                keyPem = *read;
            }
            auto identity = parseClientIdentity(certificatePem, keyPem, userWhat);
            keyPem.fill('\0');
            if (!identity)
                return fail(identity.error());
            connection.ssl.setLocalCertificateChain(identity->chain);
            connection.ssl.setPrivateKey(identity->key);
            hasCertificate = true;
        }
    }

    auto server = serverUrl(
        *cluster, hasCa || hasCertificate || cluster->insecureSkipTlsVerify || !cluster->tlsServerName.isEmpty());
    if (!server)
        return fail(server.error());
    connection.server = *server;
    auto proxy = proxyFor(*cluster);
    if (!proxy)
        return fail(proxy.error());
    connection.proxy = *proxy;

    Credentials::Spec spec;
    spec.what = what;
    if (callerToken) {
        spec.source = Credentials::Source::Caller;
        spec.token = options.token;
    } else if (user) {
        const QString userWhat = Tr::tr("user %1 in %2").arg(user->name, user->file);
        const Unsupported &unsupported = m_unsupported.at(userIndex);
        // Acting as the user itself instead would quietly use other (usually wider) rights.
        if (unsupported.impersonates) {
            return fail(Error::unsupported(
                Tr::tr("%1 impersonates another user (as, as-groups), which Paddock does not support: use a "
                       "context whose user has the rights itself, or give the profile that user's token")
                    .arg(userWhat)));
        }
        // client-go's precedence: a token (or token file) or a client certificate, when there
        // is one, and the plugin only without them.
        if (!user->token.isEmpty()) {
            spec.source = Credentials::Source::Token;
            spec.token = user->token;
        } else if (!user->tokenFile.isEmpty()) {
            auto read = readWholeFile(user->tokenFile);
            if (!read) {
                return fail(Error::io(Tr::tr("cannot read the token file %1 of %2: %3")
                                          .arg(user->tokenFile, userWhat, read.error().message)));
            }
            if (read->trimmed().isEmpty()) {
                return fail(
                    Error::invalidArgument(Tr::tr("the token file %1 of %2 is empty").arg(user->tokenFile, userWhat)));
            }
            read->fill('\0');
            spec.source = Credentials::Source::TokenFile;
            spec.tokenFile = user->tokenFile;
        } else if (user->exec && !hasCertificate) {
            if (user->exec->interactiveMode == ExecPlugin::InteractiveMode::Always) {
                return fail(Error::unsupported(
                    Tr::tr("the credential plugin %1 of %2 has interactiveMode: Always, which cannot work in Paddock: "
                           "it runs plugins without a terminal. Set interactiveMode: IfAvailable or Never (the plugin "
                           "must then get its credentials without asking), or give the profile a token")
                        .arg(user->exec->command, userWhat)));
            }
            spec.source = Credentials::Source::ExecPlugin;
            spec.exec = user->exec;
            if (user->exec->provideClusterInfo) {
                QJsonObject info{{QStringLiteral("server"), connection.server.toString()}};
                if (!cluster->tlsServerName.isEmpty())
                    info.insert(QStringLiteral("tls-server-name"), cluster->tlsServerName);
                if (cluster->insecureSkipTlsVerify)
                    info.insert(QStringLiteral("insecure-skip-tls-verify"), true);
                if (!caPem.isEmpty())
                    info.insert(QStringLiteral("certificate-authority-data"), QString::fromLatin1(caPem.toBase64()));
                if (!cluster->proxyUrl.isEmpty())
                    info.insert(QStringLiteral("proxy-url"), cluster->proxyUrl);
                if (!cluster->execConfig.isEmpty())
                    info.insert(QStringLiteral("config"), cluster->execConfig);
                spec.clusterInfo = info;
            }
        } else if (!hasCertificate && !unsupported.authProvider.isEmpty()) {
            return fail(Error::unsupported(
                Tr::tr("%1 signs in with the auth-provider %2, which Paddock does not support (kubectl dropped it "
                       "too): use the provider's exec credential plugin (gke-gcloud-auth-plugin, kubelogin), or "
                       "give the profile a token")
                    .arg(userWhat, unsupported.authProvider)));
        } else if (!hasCertificate && unsupported.basicAuth) {
            return fail(Error::unsupported(
                Tr::tr("%1 signs in with a username and password, which the Kubernetes API server no longer accepts: "
                       "use a token or a client certificate")
                    .arg(userWhat)));
        }
    }
    if (connection.server.scheme() == QLatin1String("http")
        && (spec.source != Credentials::Source::None || hasCertificate))
        return fail(httpRefused(what, connection.server));
    connection.credentials = std::make_shared<Credentials>(std::move(spec));
    return connection;
}

// ---- In-cluster and the lookup order -------------------------------------------------------

Result<Connection> inClusterConnection(const Environment &environment, const ResolveOptions &options)
{
    if (environment.serviceHost.isEmpty() || environment.servicePort.isEmpty()) {
        return fail(Error::notFound(Tr::tr(
            "not running in a Kubernetes cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)")));
    }
    const QDir dir(environment.serviceAccountDir);
    QString host = environment.serviceHost;
    if (host.contains(QLatin1Char(':')) && !host.startsWith(QLatin1Char('[')))
        host = QLatin1Char('[') + host + QLatin1Char(']');
    const QUrl server(QStringLiteral("https://%1:%2").arg(host, environment.servicePort), QUrl::StrictMode);
    if (!server.isValid() || server.port() <= 0) {
        return fail(
            Error::invalidArgument(Tr::tr("KUBERNETES_SERVICE_HOST %1 and KUBERNETES_SERVICE_PORT %2 make no valid "
                                          "server address")
                                       .arg(environment.serviceHost, environment.servicePort)));
    }
    const QString what = Tr::tr("the in-cluster service account (%1)").arg(dir.absolutePath());

    Connection connection;
    connection.server = server;
    connection.description = what;
    connection.ssl = QSslConfiguration::defaultConfiguration();

    const QString tokenFile = dir.filePath(QStringLiteral("token"));
    if (options.token.isEmpty()) {
        auto token = readWholeFile(tokenFile);
        if (!token) {
            return fail(Error::io(
                Tr::tr("cannot read the service account token %1: %2").arg(tokenFile, token.error().message)));
        }
        if (token->trimmed().isEmpty())
            return fail(Error::invalidArgument(Tr::tr("the service account token %1 is empty").arg(tokenFile)));
        token->fill('\0');
    }
    const QString caFile = dir.filePath(QStringLiteral("ca.crt"));
    if (QFileInfo::exists(caFile)) {
        auto pem = readWholeFile(caFile);
        if (!pem) {
            return fail(Error::io(Tr::tr("cannot read the service account's certificate authority %1: %2")
                                      .arg(caFile, pem.error().message)));
        }
        auto certificates =
            parseCertificates(*pem, Tr::tr("the service account's certificate authority %1").arg(caFile));
        if (!certificates)
            return fail(certificates.error());
        connection.ssl.setCaCertificates(*certificates);
    } else {
        // client-go goes on with the system's CAs, and says so.
        qCWarning(lcKubeConfig) << "no" << caFile
                                << "- checking the API server against the system's certificate authorities";
    }
    QFile namespaceFile(dir.filePath(QStringLiteral("namespace")));
    if (namespaceFile.open(QIODevice::ReadOnly))
        connection.namespaceName = QString::fromUtf8(namespaceFile.readAll().trimmed());

    Credentials::Spec spec;
    spec.what = what;
    if (!options.token.isEmpty()) {
        spec.source = Credentials::Source::Caller;
        spec.token = options.token;
    } else {
        spec.source = Credentials::Source::ServiceAccount;
        spec.tokenFile = tokenFile;
    }
    connection.credentials = std::make_shared<Credentials>(std::move(spec));
    return connection;
}

Result<Connection> lookupConnection(const QString &explicitFile, const QString &contextName,
                                    const ResolveOptions &options, const Environment &environment)
{
    if (!explicitFile.isEmpty()) {
        auto config = KubeConfig::loadFile(explicitFile);
        if (!config)
            return fail(config.error());
        return config->resolve(contextName, options);
    }
    QString inCluster;
    if (contextName.isEmpty()) {
        auto connection = inClusterConnection(environment, options);
        if (connection)
            return connection;
        inCluster = connection.error().message;
        if (connection.error().kind != Error::Kind::NotFound)
            qCWarning(lcKubeConfig) << "in-cluster config unusable, trying the default kubeconfig:" << inCluster;
    } else {
        inCluster = Tr::tr("not tried, since a context was named");
    }
    const QStringList files = KubeConfig::defaultFiles(environment);
    const bool any =
        std::any_of(files.cbegin(), files.cend(), [](const QString &file) { return QFileInfo::exists(file); });
    if (!any) {
        const QString kubeconfig = environment.kubeconfig && !environment.kubeconfig->isEmpty()
            ? Tr::tr("none of the files in KUBECONFIG (%1) exists").arg(*environment.kubeconfig)
            : Tr::tr("KUBECONFIG is not set and %1 does not exist").arg(files.value(0));
        return fail(Error::notFound(Tr::tr("no Kubernetes configuration found: %1; in-cluster: %2. Choose a kubeconfig "
                                           "file, or set KUBECONFIG")
                                        .arg(kubeconfig, inCluster)));
    }
    auto config = KubeConfig::load(files);
    if (!config)
        return fail(config.error());
    return config->resolve(contextName, options);
}

} // namespace Paddock::Kubernetes
