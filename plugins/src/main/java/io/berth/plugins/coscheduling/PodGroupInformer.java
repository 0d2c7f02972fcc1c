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
 * A {@link PodGroupLister} over a fabric8 informer of one group API's {@code podgroups} ({@code scheduling.x-k8s.io}
 * by default, or {@code scheduling.k8s.io/v1alpha2} with {@link WorkloadPodGroups#from} as parser) in every namespace,
 * started (without waiting for its first list) when the plugin is created; list and watch failures, such as the CRD
 * not being installed yet, are retried. Every added or updated PodGroup is handed to {@code onChange} on the
 * informer's thread (the plugin activates the group's pending pods, standing in for a PodGroup cluster event), and
 * every deleted one to {@code onDelete} (the plugin forgets what it kept of the group).
 * Parsed PodGroups are cached per resourceVersion, so QueueSort does not re-parse them on every comparison.
 * Thread-safe: reads the informer's store; the parse cache is a concurrent map whose entries are immutable.
 */
final class PodGroupInformer implements PodGroupLister, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PodGroupInformer.class);

  static final ResourceDefinitionContext CONTEXT = context(GroupRef.Api.SCHEDULER_PLUGINS);

  static ResourceDefinitionContext context(GroupRef.Api api) {
    return new ResourceDefinitionContext.Builder().withGroup(api.group()).withVersion(api.version())
        .withPlural("podgroups").withKind(PodGroup.KIND).withNamespaced(true).build();
  }

  private final SharedIndexInformer<GenericKubernetesResource> informer;
  private final java.util.function.Function<GenericKubernetesResource, PodGroup> parser;
  // key -> the PodGroup parsed from one resourceVersion (or why it is malformed); entries replaced whole
  private final java.util.Map<String, Parsed> parsed = new java.util.concurrent.ConcurrentHashMap<>();

  /** One resourceVersion of a PodGroup, parsed: the group, or the error naming its bad field. */
  private record Parsed(String resourceVersion, PodGroup group, String error) {
  }

  PodGroupInformer(KubernetesClient client, Consumer<GenericKubernetesResource> onChange) {
    this(client, CONTEXT, PodGroup::from, onChange, g -> { });
  }

  PodGroupInformer(KubernetesClient client, ResourceDefinitionContext context,
      java.util.function.Function<GenericKubernetesResource, PodGroup> parser,
      Consumer<GenericKubernetesResource> onChange, Consumer<GenericKubernetesResource> onDelete) {
    this.parser = parser;
    informer = client.genericKubernetesResources(context).inAnyNamespace().runnableInformer(0);
    informer.exceptionHandler((started, t) -> {
      LOG.warn("PodGroup informer ({}): {}; retrying", context.getGroup(), t.toString());
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
        parsed.remove(obj.getMetadata().getNamespace() + "/" + obj.getMetadata().getName());
        onDelete.accept(obj);
      }
    });
    informer.start();
  }

  @Override
  public Optional<PodGroup> get(String namespace, String name) {
    String key = namespace + "/" + name;
    GenericKubernetesResource r = informer.getStore().getByKey(key);
    if (r == null) {
      return Optional.empty();
    }
    String rv = r.getMetadata().getResourceVersion();
    Parsed p = parsed.get(key);
    if (p == null || !java.util.Objects.equals(p.resourceVersion(), rv)) {
      try {
        p = new Parsed(rv, parser.apply(r), null);
      } catch (IllegalArgumentException malformed) {
        LOG.warn("{}", malformed.getMessage());
        p = new Parsed(rv, null, malformed.getMessage());
      }
      parsed.put(key, p);
    }
    if (p.error() != null) {
      throw new IllegalArgumentException(p.error());
    }
    return Optional.of(p.group());
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
