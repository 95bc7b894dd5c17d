// kubeconfig files (Kubernetes::KubeConfig, src/core/backends/kubernetes/kubeconfig.h; YAML read
// by yaml-cpp): the bytes written to a file that KubeConfig::loadFile reads, as a user's
// ~/.kube/config. A file that loads has every name it lists findable and once only, a summary
// of the same contexts in the same order, and a current context that is empty or one it sets;
// every context that refers to no file (no CA, certificate, key or token file) is resolved too,
// so the certificates and keys given inline are read (an error is fine, a crash is not).
#include "backends/kubernetes/kubeconfig.h"

#include <QFile>
#include <QSet>
#include <QTemporaryDir>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace Paddock;
using namespace Paddock::Kubernetes;

namespace {

bool refersToFiles(const KubeConfig &config, const KubeContext &context)
{
    const KubeCluster *cluster = config.cluster(context.cluster);
    const KubeUser *user = config.user(context.user);
    return (cluster && !cluster->certificateAuthority.isEmpty())
        || (user && (!user->tokenFile.isEmpty() || !user->clientCertificate.isEmpty() || !user->clientKey.isEmpty()));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static QTemporaryDir folder;
    static const QString path = folder.filePath(QStringLiteral("config"));
    {
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)
            || file.write(reinterpret_cast<const char *>(data), qint64(size)) != qint64(size))
            std::abort();
    }
    const Result<KubeConfig> config = KubeConfig::loadFile(path);
    if (!config) {
        if (config.error().message.isEmpty())
            std::abort();
        return 0;
    }
    const QStringList names = config->contextNames();
    if (QSet<QString>(names.cbegin(), names.cend()).size() != names.size())
        std::abort();
    const ContextList summary = config->summary();
    if (summary.contexts.size() != names.size())
        std::abort();
    for (qsizetype i = 0; i < names.size(); ++i) {
        if (summary.contexts.at(i).name != names.at(i) || !config->context(names.at(i)))
            std::abort();
    }
    if (!config->currentContext().isEmpty() && summary.currentContext != config->currentContext())
        std::abort();
    for (const KubeContext &context : config->contexts()) {
        if (refersToFiles(*config, context))
            continue;
        const Result<Connection> connection = config->resolve(context.name);
        if (!connection && connection.error().message.isEmpty())
            std::abort();
    }
    return 0;
}
