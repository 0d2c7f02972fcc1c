package io.berth.plugins.coscheduling;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link PodGroupLister} over a fabric8 informer of {@code podgroups.scheduling.x-k8s.io} in every namespace,
 * started (without waiting for its first list) when the plugin is created; list and watch failures, such as the CRD
 * not being installed yet, are retried. Every added or updated PodGroup is handed to {@code onChange} on the
 * informer's thread (the plugin activates the group's pending pods, standing in for a PodGroup cluster event).
 * Thread-safe: reads the informer's store.
 */
final class PodGroupInformer implements PodGroupLister, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PodGroupInformer.class);

  static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
      .withGroup("scheduling.x-k8s.io").withVersion("v1alpha1").withPlural("podgroups").withKind(PodGroup.KIND)
      .withNamespaced(true).build();

  private final SharedIndexInformer<GenericKubernetesResource> informer;

  PodGroupInformer(KubernetesClient client, Consumer<GenericKubernetesResource> onChange) {
    informer = client.genericKubernetesResources(CONTEXT).inAnyNamespace().runnableInformer(0);
    informer.exceptionHandler((started, t) -> {
      LOG.warn("PodGroup informer: {}; retrying", t.toString());
      return true;
    });
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource obj) {
        onChange.accept(obj);
      }

      @Override
      public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
        onChange.accept(newObj);
      }

      @Override
      public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {
      }
    });
    informer.start();
  }

  @Override
  public Optional<PodGroup> get(String namespace, String name) {
    GenericKubernetesResource r = informer.getStore().getByKey(namespace + "/" + name);
    return r == null ? Optional.empty() : Optional.of(PodGroup.from(r));
  }

  /** Whether the informer has listed PodGroups at least once. */
  boolean hasSynced() {
    return informer.hasSynced();
  }

  @Override
  public void close() {
    informer.close();
  }
}
