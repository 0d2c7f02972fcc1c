package io.berth.controller;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds pods for unit tests, as the informer would hold them. Not thread-safe; one per pod. */
public final class PodFixture {

  /** The default creation time of fixture pods. */
  public static final Instant CREATED = Instant.parse("2025-01-01T00:00:00Z");

  private final String name;
  private String namespace = "default";
  private String uid;
  private String node = "";
  private String phase = Pods.PHASE_PENDING;
  private Instant readySince;
  private boolean readyConditionFalse;
  private Instant created = CREATED;
  private int restarts;
  private boolean deleting;
  private final Map<String, String> labels = new LinkedHashMap<>(Map.of("app", "web"));
  private final Map<String, String> annotations = new LinkedHashMap<>();
  private final List<OwnerReference> owners = new ArrayList<>();
  private String resourceVersion = "1";

  private PodFixture(String name) {
    this.name = name;
    this.uid = "uid-" + name;
  }

  public static PodFixture pod(String name) {
    return new PodFixture(name);
  }

  public PodFixture namespace(String ns) {
    this.namespace = ns;
    return this;
  }

  public PodFixture uid(String uid) {
    this.uid = uid;
    return this;
  }

  public PodFixture onNode(String node) {
    this.node = node;
    return this;
  }

  public PodFixture phase(String phase) {
    this.phase = phase;
    return this;
  }

  /** Running on {@code node} and ready since {@code since}. */
  public PodFixture runningReady(String node, Instant since) {
    this.node = node;
    this.phase = Pods.PHASE_RUNNING;
    this.readySince = since;
    return this;
  }

  public PodFixture readySince(Instant since) {
    this.readySince = since;
    return this;
  }

  public PodFixture notReady() {
    this.readySince = null;
    this.readyConditionFalse = true;
    return this;
  }

  public PodFixture created(Instant created) {
    this.created = created;
    return this;
  }

  public PodFixture restarts(int restarts) {
    this.restarts = restarts;
    return this;
  }

  public PodFixture deleting() {
    this.deleting = true;
    return this;
  }

  public PodFixture label(String key, String value) {
    labels.put(key, value);
    return this;
  }

  public PodFixture labels(Map<String, String> replacement) {
    labels.clear();
    labels.putAll(replacement);
    return this;
  }

  public PodFixture annotation(String key, String value) {
    annotations.put(key, value);
    return this;
  }

  public PodFixture deletionCost(String cost) {
    return annotation(ActivePodsWithRanks.POD_DELETION_COST_ANNOTATION, cost);
  }

  public PodFixture controlledBy(HasMetadata owner, GroupVersionKind kind) {
    owners.add(OwnerReferences.newControllerRef(owner, kind));
    return this;
  }

  public PodFixture resourceVersion(String rv) {
    this.resourceVersion = rv;
    return this;
  }

  public Pod build() {
    PodBuilder b = new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .withUid(uid)
        .withResourceVersion(resourceVersion)
        .withCreationTimestamp(created == null ? null : ApiTimes.format(created))
        .withDeletionTimestamp(deleting ? ApiTimes.format(CREATED.plusSeconds(3600)) : null)
        .withLabels(new LinkedHashMap<>(labels))
        .withAnnotations(annotations.isEmpty() ? null : new LinkedHashMap<>(annotations))
        .withOwnerReferences(owners)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node.isEmpty() ? null : node)
        .addNewContainer().withName("c").withImage("nginx").endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase(phase)
        .addToContainerStatuses(new ContainerStatusBuilder().withName("c").withRestartCount(restarts)
            .withReady(readySince != null).build())
        .endStatus();
    if (readySince != null) {
      b.editStatus().addToConditions(new PodConditionBuilder().withType("Ready").withStatus("True")
          .withLastTransitionTime(ApiTimes.format(readySince)).build()).endStatus();
    } else if (readyConditionFalse) {
      b.editStatus().addToConditions(new PodConditionBuilder().withType("Ready").withStatus("False")
          .withLastTransitionTime(ApiTimes.format(CREATED)).build()).endStatus();
    }
    return b.build();
  }
}
