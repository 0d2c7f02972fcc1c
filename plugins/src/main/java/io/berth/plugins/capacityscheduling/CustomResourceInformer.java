package io.berth.plugins.capacityscheduling;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fabric8 informer over one custom resource kind in every namespace (ElasticQuotas, PodGroups), started without
 * waiting for its first list; list and watch failures, such as the CRD not being installed yet, are logged and
 * retried. The handler runs on the informer's thread. Thread-safe: reads go to the informer's store.
 */
final class CustomResourceInformer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CustomResourceInformer.class);

  private final SharedIndexInformer<GenericKubernetesResource> informer;

  CustomResourceInformer(KubernetesClient client, ResourceDefinitionContext context,
      ResourceEventHandler<GenericKubernetesResource> handler) {
    informer = client.genericKubernetesResources(context).inAnyNamespace().runnableInformer(0);
    informer.exceptionHandler((started, t) -> {
      LOG.warn("{} informer: {}; retrying", context.getKind(), t.toString());
      return true;
    });
    informer.addEventHandler(handler);
    informer.start();
  }

  /** The context of a namespaced {@code scheduling.x-k8s.io/v1alpha1} kind. */
  static ResourceDefinitionContext context(String kind, String plural) {
    return new ResourceDefinitionContext.Builder().withGroup(ElasticQuota.GROUP).withVersion(ElasticQuota.VERSION)
        .withPlural(plural).withKind(kind).withNamespaced(true).build();
  }

  Optional<GenericKubernetesResource> get(String namespace, String name) {
    return Optional.ofNullable(informer.getStore().getByKey(namespace + "/" + name));
  }

  List<GenericKubernetesResource> list() {
    return informer.getStore().list();
  }

  boolean hasSynced() {
    return informer.hasSynced();
  }

  @Override
  public void close() {
    informer.close();
  }
}
