package io.berth.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link PodControl} over the API server (upstream's {@code RealPodControl}): pods are built from the template as
 * {@code GetPodFromTemplate} does (labels, annotations and finalizers copied, {@code generateName} {@code <owner>-},
 * the spec copied, the controller reference as the only ownerReference), written with the fabric8 client, and every
 * outcome recorded as an Event on the owner with upstream's reasons and messages ({@code Created pod: NAME},
 * {@code Error creating: ERR}, {@code Deleted pod: NAME}, {@code Error deleting: ERR}); no FailedCreate event is
 * recorded when the namespace is terminating. Thread-safe: holds only thread-safe collaborators.
 */
public final class KubernetesPodControl implements PodControl {

  private static final Logger LOG = LoggerFactory.getLogger(KubernetesPodControl.class);

  /** The longest generateName the API server accepts without dropping the trailing dash. */
  private static final int MAX_NAME_LENGTH = 253;

  private final KubernetesClient client;
  private final EventRecorder recorder;

  public KubernetesPodControl(KubernetesClient client, EventRecorder recorder) {
    this.client = Objects.requireNonNull(client, "client");
    this.recorder = Objects.requireNonNull(recorder, "recorder");
  }

  @Override
  public void createPods(String namespace, PodTemplateSpec template, HasMetadata owner,
      OwnerReference controllerRef) {
    validateControllerRef(controllerRef);
    Pod pod = podFromTemplate(template, owner, controllerRef);
    if (pod.getMetadata().getLabels() == null || pod.getMetadata().getLabels().isEmpty()) {
      throw new IllegalArgumentException("unable to create pods, no labels");
    }
    Pod created;
    try {
      created = client.pods().inNamespace(namespace).resource(pod).create();
    } catch (RuntimeException e) {
      if (!KubeApiErrors.hasStatusCause(e, KubeApiErrors.NAMESPACE_TERMINATING_CAUSE)) {
        recorder.event(owner, EventRecorder.WARNING, FAILED_CREATE, "Error creating: %s", KubeApiErrors.message(e));
      }
      throw e;
    }
    LOG.debug("controller {} created pod {}/{}", owner.getMetadata().getName(), namespace,
        created.getMetadata().getName());
    recorder.event(owner, EventRecorder.NORMAL, SUCCESSFUL_CREATE, "Created pod: %s", created.getMetadata().getName());
  }

  @Override
  public void deletePod(String namespace, String podName, HasMetadata owner) {
    LOG.debug("controller {} deleting pod {}/{}", owner.getMetadata().getName(), namespace, podName);
    List<StatusDetails> deleted;
    try {
      deleted = client.pods().inNamespace(namespace).withName(podName).delete();
    } catch (RuntimeException e) {
      if (KubeApiErrors.isNotFound(e)) {
        throw e;
      }
      recorder.event(owner, EventRecorder.WARNING, FAILED_DELETE, "Error deleting: %s", KubeApiErrors.message(e));
      throw wrapDeleteError(e);
    }
    if (deleted == null || deleted.isEmpty()) {
      // fabric8 answers a 404 with an empty result; upstream returns the NotFound error without an event
      Status notFound = new StatusBuilder().withStatus("Failure").withCode(404).withReason("NotFound")
          .withMessage("pods \"" + podName + "\" not found").build();
      throw new KubernetesClientException(notFound);
    }
    recorder.event(owner, EventRecorder.NORMAL, SUCCESSFUL_DELETE, "Deleted pod: %s", podName);
  }

  @Override
  public void patchPod(String namespace, String name, String strategicMergePatch) {
    ApiPatchers.strategicMerge(client, Pod.class, namespace, name, strategicMergePatch);
  }

  private static KubernetesClientException wrapDeleteError(RuntimeException e) {
    String message = "unable to delete pods: " + KubeApiErrors.message(e);
    int code = KubeApiErrors.code(e);
    Status status = e instanceof KubernetesClientException k && k.getStatus() != null
        ? new StatusBuilder(k.getStatus()).withMessage(message).build()
        : new StatusBuilder().withStatus("Failure").withCode(code).withMessage(message).build();
    return new KubernetesClientException(message, e, code, status, null);
  }

  /**
   * The pod {@code GetPodFromTemplate} builds: labels, annotations and finalizers copied from the template,
   * {@code generateName} {@code <owner>-} (the bare owner name if the dash would make it too long), the controller
   * reference, and a copy of the template's spec. Does not modify its arguments.
   */
  public static Pod podFromTemplate(PodTemplateSpec template, HasMetadata owner, OwnerReference controllerRef) {
    String ownerName = owner.getMetadata().getName();
    String prefix = ownerName.length() + 1 > MAX_NAME_LENGTH ? ownerName : ownerName + "-";
    ObjectMetaBuilder meta = new ObjectMetaBuilder().withGenerateName(prefix);
    if (template.getMetadata() != null) {
      Map<String, String> labels = template.getMetadata().getLabels();
      Map<String, String> annotations = template.getMetadata().getAnnotations();
      List<String> finalizers = template.getMetadata().getFinalizers();
      meta.withLabels(labels == null ? null : new LinkedHashMap<>(labels));
      meta.withAnnotations(annotations == null || annotations.isEmpty() ? null : new LinkedHashMap<>(annotations));
      meta.withFinalizers(finalizers == null || finalizers.isEmpty() ? null : new ArrayList<>(finalizers));
    }
    if (controllerRef != null) {
      meta.withOwnerReferences(controllerRef);
    }
    PodBuilder pod = new PodBuilder().withMetadata(meta.build());
    if (template.getSpec() != null) {
      pod.withSpec(new PodSpecBuilder(template.getSpec()).build());
    }
    return pod.build();
  }

  /** Upstream's {@code validateControllerRef}: apiVersion, kind, controller and blockOwnerDeletion set. */
  static void validateControllerRef(OwnerReference ref) {
    if (ref == null) {
      throw new IllegalArgumentException("controllerRef is nil");
    }
    if (ref.getApiVersion() == null || ref.getApiVersion().isEmpty()) {
      throw new IllegalArgumentException("controllerRef has empty APIVersion");
    }
    if (ref.getKind() == null || ref.getKind().isEmpty()) {
      throw new IllegalArgumentException("controllerRef has empty Kind");
    }
    if (!Boolean.TRUE.equals(ref.getController())) {
      throw new IllegalArgumentException("controllerRef.Controller is not set to true");
    }
    if (!Boolean.TRUE.equals(ref.getBlockOwnerDeletion())) {
      throw new IllegalArgumentException("controllerRef.BlockOwnerDeletion is not set");
    }
  }
}
