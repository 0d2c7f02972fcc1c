package io.berth.embedded.server;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The resource types one API server serves because a CustomResourceDefinition asks for them: registered when the
 * CRD is stored, replaced when it is updated, dropped when it is deleted. It listens to the {@link ObjectStore}, so
 * a type is served from the resourceVersion of its CRD on; the request paths resolve types through
 * {@link #find(String, String, String)}, which also answers the built-in types of {@link ResourceTypes}.
 *
 * <p>Thread-safe: listener callbacks run under the store's write lock; readers see the concurrent map without it.
 */
public final class CustomResourceTypes implements StoreListener {

  private static final Logger LOG = LoggerFactory.getLogger(CustomResourceTypes.class);

  // written under the store's write lock (listener callbacks), read anywhere; key: CRD name
  private final Map<String, ResourceType> byCrdName = new ConcurrentHashMap<>();

  @Override
  public void onEvent(WatchEvent event) {
    if (!event.object().type().equals(ResourceTypes.CUSTOM_RESOURCE_DEFINITIONS)) {
      return;
    }
    String crd = event.object().name();
    if (event.type() == WatchEvent.Type.DELETED) {
      byCrdName.remove(crd);
      return;
    }
    try {
      byCrdName.put(crd, CustomResourceDefinitionSpec.parse(event.object().tree()));
    } catch (ApiException e) {
      // Validation rejects such CRDs before they are stored; never fail the writer here.
      LOG.warn("customresourcedefinition {} is not served: {}", crd, e.getMessage());
      byCrdName.remove(crd);
    }
  }

  /** The type a CRD named {@code crdName} currently defines. */
  public Optional<ResourceType> byCrd(String crdName) {
    return Optional.ofNullable(byCrdName.get(crdName));
  }

  /** The built-in or custom type served at {@code group}/{@code version}/{@code resource}, if any. */
  public Optional<ResourceType> find(String group, String version, String resource) {
    Optional<ResourceType> builtIn = ResourceTypes.find(group, version, resource);
    if (builtIn.isPresent()) {
      return builtIn;
    }
    return byCrdName.values().stream()
        .filter(t -> t.group().equals(group) && t.version().equals(version) && t.resource().equals(resource))
        .findFirst();
  }

  /** The custom types served now, ordered by group then resource. */
  public List<ResourceType> all() {
    return byCrdName.values().stream()
        .sorted(java.util.Comparator.comparing(ResourceType::group).thenComparing(ResourceType::resource))
        .toList();
  }
}
