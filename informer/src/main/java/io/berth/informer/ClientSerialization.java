package io.berth.informer;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.jackson.Jackson2JdkTypesModule;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * fabric8's {@link KubernetesSerialization}, configured exactly as fabric8's default one (the same Jackson modules,
 * unknown-field handling and inclusion rules), that also hands out its configured mapper's {@link ObjectReader}s,
 * one per class, so that the hot decoding paths (every watch event of every informer) bind straight from the
 * received text: fabric8's {@code unmarshal} re-encodes a String to bytes, wraps it in a fresh 8 KiB buffered
 * stream to sniff JSON from YAML and builds a new reader for every call.
 *
 * <p>{@link #reader(Class, boolean)} with {@code skipManagedFields} returns a reader that skips
 * {@code metadata.managedFields} while parsing (nothing of it is allocated), the decode-time form of the informer
 * transform kube-scheduler and kube-controller-manager install to drop managed fields from their caches.
 *
 * <p>One instance may serve every client and thread of a JVM ({@link #shared()}); the daemons' clients are built
 * with it (component-base {@code KubeClients}) so that their informers decode with the client's own mapper. Thread
 * safety: the mappers are immutable after construction; the reader caches are {@link ConcurrentHashMap}s filled
 * with {@code computeIfAbsent} (an {@link ObjectReader} is immutable and thread-safe).
 */
public final class ClientSerialization extends KubernetesSerialization {

  /** Skips {@code managedFields} in {@link ObjectMeta}, wherever the class occurs. */
  @JsonIgnoreProperties({"managedFields"})
  private abstract static class SkipManagedFields {
  }

  private static final class Holder {
    static final ClientSerialization SHARED = new ClientSerialization();
  }

  // Written by configureMapper, which fabric8's constructor calls before this class's own constructor body runs;
  // read only by that body (so no initializer here: it would overwrite the value).
  private ObjectMapper configuredBySuper;
  private final ObjectMapper mapper;
  private final ObjectMapper skippingMapper;
  private final ConcurrentMap<Class<?>, ObjectReader> readers = new ConcurrentHashMap<>();
  private final ConcurrentMap<Class<?>, ObjectReader> skippingReaders = new ConcurrentHashMap<>();

  /** A new instance with fabric8's default mapper configuration and model-class discovery. */
  public ClientSerialization() {
    super(JsonMapper.builderWithJackson2Defaults().addModule(new Jackson2JdkTypesModule()).build(), true);
    this.mapper = Objects.requireNonNull(configuredBySuper, "fabric8 did not configure the mapper");
    this.skippingMapper = mapper.rebuild().addMixIn(ObjectMeta.class, SkipManagedFields.class).build();
    this.configuredBySuper = null;
  }

  /** The instance shared by this JVM's clients and informers; created on first use. */
  public static ClientSerialization shared() {
    return Holder.SHARED;
  }

  /** {@code client}'s serialization if it is one of these, otherwise {@link #shared()}. */
  public static ClientSerialization of(KubernetesClient client) {
    return client.getKubernetesSerialization() instanceof ClientSerialization s ? s : shared();
  }

  @Override
  protected ObjectMapper configureMapper(ObjectMapper base) {
    ObjectMapper configured = super.configureMapper(base);
    configuredBySuper = configured;
    return configured;
  }

  /** The reader binding JSON to {@code type} as fabric8 would, optionally skipping {@code managedFields}. */
  public <T> ObjectReader reader(Class<T> type, boolean skipManagedFields) {
    Objects.requireNonNull(type, "type");
    return skipManagedFields
        ? skippingReaders.computeIfAbsent(type, skippingMapper::readerFor)
        : readers.computeIfAbsent(type, mapper::readerFor);
  }
}
