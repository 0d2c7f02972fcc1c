package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rollout revisions: the {@value #REVISION_ANNOTATION} annotation each ReplicaSet carries (1, 2, 3... in rollout
 * order), the {@value #REVISION_HISTORY_ANNOTATION} of a ReplicaSet re-used by a later revision, and the
 * annotations a new ReplicaSet copies from its Deployment (upstream deploymentutil.Revision, MaxRevision,
 * LastRevision, SetNewReplicaSetAnnotations, copyDeploymentAnnotationsToReplicaSet, SetDeploymentRevision).
 *
 * <p>Stateless and thread-safe; setters return modified copies and leave their arguments untouched.
 */
public final class Revisions {

  public static final String REVISION_ANNOTATION = "deployment.kubernetes.io/revision";
  public static final String REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history";
  public static final String LAST_APPLIED_CONFIG_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";
  /** Annotation by which the deprecated extensions/v1beta1 and apps/v1beta1 rollbackTo reaches apps/v1. */
  public static final String DEPRECATED_ROLLBACK_TO_ANNOTATION = "deprecated.deployment.rollback.to";
  /** Upper bound on the length of the revision-history annotation (upstream maxRevHistoryLengthInChars). */
  public static final int MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000;

  private static final Set<String> ANNOTATIONS_TO_SKIP = Set.of(
      LAST_APPLIED_CONFIG_ANNOTATION,
      REVISION_ANNOTATION,
      REVISION_HISTORY_ANNOTATION,
      ProportionalScaling.DESIRED_REPLICAS_ANNOTATION,
      ProportionalScaling.MAX_REPLICAS_ANNOTATION,
      DEPRECATED_ROLLBACK_TO_ANNOTATION);

  private static final Logger LOG = LoggerFactory.getLogger(Revisions.class);

  private Revisions() {
  }

  /**
   * A ReplicaSet after {@link #setNewReplicaSetAnnotations}.
   *
   * @param replicaSet the annotated copy
   * @param changed    whether the annotations differ from the input's (upstream's return value: write it)
   */
  public record AnnotatedReplicaSet(ReplicaSet replicaSet, boolean changed) {
  }

  /**
   * The revision of an object: 0 without the annotation, empty when the annotation does not parse as an
   * int64 (upstream Revision returns an error there, and callers skip the object).
   */
  public static Optional<Long> revision(HasMetadata obj) {
    Map<String, String> annotations = obj.getMetadata() == null ? null : obj.getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(REVISION_ANNOTATION);
    if (value == null) {
      return Optional.of(0L);
    }
    try {
      return Optional.of(Long.parseLong(value));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** The highest revision among the ReplicaSets (0 if none); unparsable revisions are skipped. */
  public static long maxRevision(List<ReplicaSet> rss) {
    long max = 0;
    for (ReplicaSet rs : rss) {
      Optional<Long> v = revision(rs);
      if (v.isEmpty()) {
        LOG.debug("Skipping ReplicaSet {} with an unparsable revision", ReplicaSetUtil.name(rs));
      } else if (v.get() > max) {
        max = v.get();
      }
    }
    return max;
  }

  /**
   * The second-highest revision among the ReplicaSets (the one before the current rollout); 0 if none.
   * A revision equal to the maximum counts again, as upstream ({@code >=} pushes the old max down).
   */
  public static long lastRevision(List<ReplicaSet> rss) {
    long max = 0;
    long secondMax = 0;
    for (ReplicaSet rs : rss) {
      Optional<Long> v = revision(rs);
      if (v.isEmpty()) {
        continue;
      }
      if (v.get() >= max) {
        secondMax = max;
        max = v.get();
      } else if (v.get() > secondMax) {
        secondMax = v.get();
      }
    }
    return secondMax;
  }

  /**
   * Whether a Deployment annotation stays off its ReplicaSets: kubectl's last-applied configuration, the
   * revision bookkeeping, the replicas annotations and the deprecated rollback request.
   */
  public static boolean skipCopyAnnotation(String key) {
    return ANNOTATIONS_TO_SKIP.contains(key);
  }

  /**
   * Annotates the new ReplicaSet of a Deployment (upstream SetNewReplicaSetAnnotations):
   * <ol>
   *   <li>copies every Deployment annotation except {@link #skipCopyAnnotation skipped} ones;</li>
   *   <li>raises {@value #REVISION_ANNOTATION} to {@code newRevision} when it is lower (never lowers it: old
   *   ReplicaSets may have been deleted since the new one got its revision);</li>
   *   <li>when an existing revision is raised, the ReplicaSet is being re-used by a later rollout (a
   *   rollback to its template): the revision it had is appended to {@value #REVISION_HISTORY_ANNOTATION},
   *   dropping the oldest entries to stay within {@code revHistoryLimitInChars};</li>
   *   <li>when the ReplicaSet does not exist yet ({@code exists == false}), sets the desired-replicas and
   *   max-replicas annotations.</li>
   * </ol>
   * An existing revision that is not an integer leaves the revision alone and reports "unchanged", as
   * upstream (the copied annotations are still on the returned copy).
   *
   * @param newRevision maxRevision(old ReplicaSets) + 1, in decimal
   */
  public static AnnotatedReplicaSet setNewReplicaSetAnnotations(Deployment d, ReplicaSet newRS,
                                  String newRevision, boolean exists,
                                  int revHistoryLimitInChars) {
    Map<String, String> before = annotations(newRS);
    Map<String, String> after = new LinkedHashMap<>(before);
    boolean changed = false;
    Map<String, String> deploymentAnnotations = d.getMetadata() == null ? null
        : d.getMetadata().getAnnotations();
    if (deploymentAnnotations != null) {
      for (Map.Entry<String, String> e : deploymentAnnotations.entrySet()) {
        if (skipCopyAnnotation(e.getKey()) || e.getValue().equals(after.get(e.getKey()))) {
          continue;
        }
        after.put(e.getKey(), e.getValue());
        changed = true;
      }
    }

    String oldRevision = after.get(REVISION_ANNOTATION);
    boolean hadRevision = oldRevision != null;
    long oldRevisionNumber;
    try {
      oldRevisionNumber = hadRevision ? Long.parseLong(oldRevision) : 0;
    } catch (NumberFormatException e) {
      if (!oldRevision.isEmpty()) {
        LOG.info("ReplicaSet {} has a revision that is not an integer: {}", ReplicaSetUtil.name(newRS),
            oldRevision);
        return new AnnotatedReplicaSet(withAnnotations(newRS, after), false);
      }
      oldRevisionNumber = 0;
    }
    long newRevisionNumber;
    try {
      newRevisionNumber = Long.parseLong(newRevision);
    } catch (NumberFormatException e) {
      LOG.info("New revision {} for ReplicaSet {} is not an integer", newRevision, ReplicaSetUtil.name(newRS));
      return new AnnotatedReplicaSet(withAnnotations(newRS, after), false);
    }

    if (oldRevisionNumber < newRevisionNumber) {
      after.put(REVISION_ANNOTATION, newRevision);
      changed = true;
      if (hadRevision) {
        appendRevisionHistory(after, oldRevision, revHistoryLimitInChars);
      }
    }

    if (!exists) {
      int replicas = ReplicaSetUtil.deploymentReplicas(d);
      int max = replicas + RollingUpdateMath.maxSurge(d);
      Map<String, String> withReplicas = ProportionalScaling.withReplicasAnnotations(after, replicas, max);
      if (!withReplicas.equals(after)) {
        changed = true;
      }
      after = withReplicas;
    }
    return new AnnotatedReplicaSet(withAnnotations(newRS, after), changed);
  }

  /*
   * The history is a comma-separated list, oldest first. When appending would exceed the limit, entries are
   * dropped from the front (each costs its length plus a comma) until it fits; if even an empty history
   * cannot hold the new entry, the history is left as it was.
   */
  private static void appendRevisionHistory(Map<String, String> annotations, String oldRevision, int limit) {
    String history = annotations.getOrDefault(REVISION_HISTORY_ANNOTATION, "");
    if (history.isEmpty()) {
      annotations.put(REVISION_HISTORY_ANNOTATION, oldRevision);
      return;
    }
    List<String> entries = new ArrayList<>(Arrays.asList(history.split(",", -1)));
    int totalLength = history.length() + oldRevision.length() + 1;
    int start = 0;
    while (totalLength > limit && start < entries.size()) {
      totalLength -= entries.get(start).length() + 1;
      start++;
    }
    if (totalLength <= limit) {
      List<String> kept = new ArrayList<>(entries.subList(start, entries.size()));
      kept.add(oldRevision);
      annotations.put(REVISION_HISTORY_ANNOTATION, String.join(",", kept));
    } else {
      LOG.info("Not appending revision {}: revision history length limit {} reached", oldRevision, limit);
    }
  }

  /**
   * A copy of the Deployment with {@value #REVISION_ANNOTATION} set to {@code revision}, or empty when it
   * already has it (upstream SetDeploymentRevision returning false).
   */
  public static Optional<Deployment> setDeploymentRevision(Deployment d, String revision) {
    Map<String, String> current = annotations(d);
    if (revision.equals(current.get(REVISION_ANNOTATION))) {
      return Optional.empty();
    }
    Map<String, String> updated = new LinkedHashMap<>(current);
    updated.put(REVISION_ANNOTATION, revision);
    return Optional.of(new DeploymentBuilder(d).editOrNewMetadata().withAnnotations(updated).endMetadata()
        .build());
  }

  private static Map<String, String> annotations(HasMetadata obj) {
    Map<String, String> a = obj.getMetadata() == null ? null : obj.getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }

  private static ReplicaSet withAnnotations(ReplicaSet rs, Map<String, String> annotations) {
    return new ReplicaSetBuilder(rs).editOrNewMetadata().withAnnotations(new LinkedHashMap<>(annotations))
        .endMetadata().build();
  }
}
