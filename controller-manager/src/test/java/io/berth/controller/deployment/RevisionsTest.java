package io.berth.controller.deployment;

import static io.berth.controller.deployment.Fixtures.rolling;
import static io.berth.controller.deployment.Fixtures.rs;
import static io.berth.controller.deployment.Fixtures.withAnnotations;
import static io.berth.controller.deployment.Fixtures.withRevision;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RevisionsTest {

  private static List<ReplicaSet> withRevisions(String... revisions) {
    List<ReplicaSet> out = new ArrayList<>();
    for (int i = 0; i < revisions.length; i++) {
      ReplicaSet r = rs("rs-" + i, 1, i);
      out.add(revisions[i] == null ? r : withRevision(r, revisions[i]));
    }
    return out;
  }

  static Stream<Arguments> maxAndLast() {
    return Stream.of(
        Arguments.of("no ReplicaSets", withRevisions(), 0L, 0L),
        Arguments.of("one", withRevisions("3"), 3L, 0L),
        Arguments.of("unordered", withRevisions("2", "5", "3"), 5L, 3L),
        Arguments.of("missing annotation counts as 0", withRevisions(null, "4"), 4L, 0L),
        Arguments.of("unparsable revisions are skipped", withRevisions("x", "7", "2"), 7L, 2L),
        Arguments.of("a repeated maximum is also the last revision", withRevisions("4", "4"), 4L, 4L));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void maxAndLast(String name, List<ReplicaSet> rss, long max, long last) {
    assertThat(Revisions.maxRevision(rss)).isEqualTo(max);
    assertThat(Revisions.lastRevision(rss)).isEqualTo(last);
  }

  @Test
  void revisionParsing() {
    assertThat(Revisions.revision(rs("a", 1, 0))).contains(0L);
    assertThat(Revisions.revision(withRevision(rs("a", 1, 0), "12"))).contains(12L);
    assertThat(Revisions.revision(withRevision(rs("a", 1, 0), "twelve"))).isEmpty();
  }

  private static Deployment annotated(Map<String, String> annotations) {
    return new DeploymentBuilder(rolling(10, 2, 1)).editMetadata().withAnnotations(annotations).endMetadata()
        .build();
  }

  @Test
  void newReplicaSetCopiesDeploymentAnnotationsExceptSkippedOnes() {
    Deployment d = annotated(Map.of(
        "team", "payments",
        Revisions.LAST_APPLIED_CONFIG_ANNOTATION, "{...}",
        Revisions.REVISION_ANNOTATION, "9",
        Revisions.REVISION_HISTORY_ANNOTATION, "1,2",
        ProportionalScaling.DESIRED_REPLICAS_ANNOTATION, "99",
        ProportionalScaling.MAX_REPLICAS_ANNOTATION, "99",
        Revisions.DEPRECATED_ROLLBACK_TO_ANNOTATION, "1"));
    ReplicaSet fresh = rs("new", 0, 0);
    Revisions.AnnotatedReplicaSet result = Revisions.setNewReplicaSetAnnotations(d, fresh, "3", false,
        Revisions.MAX_REV_HISTORY_LENGTH_IN_CHARS);
    assertThat(result.changed()).isTrue();
    assertThat(result.replicaSet().getMetadata().getAnnotations()).containsOnly(
        Map.entry("team", "payments"),
        Map.entry(Revisions.REVISION_ANNOTATION, "3"),
        Map.entry(ProportionalScaling.DESIRED_REPLICAS_ANNOTATION, "10"),
        Map.entry(ProportionalScaling.MAX_REPLICAS_ANNOTATION, "12"));
    assertThat(fresh.getMetadata().getAnnotations()).as("input untouched").isNullOrEmpty();
  }

  @Test
  void existingReplicaSetWithCurrentRevisionIsUnchanged() {
    Deployment d = annotated(Map.of("team", "payments"));
    ReplicaSet current = withAnnotations(rs("new", 10, 0), Map.of("team", "payments",
        Revisions.REVISION_ANNOTATION, "3"));
    Revisions.AnnotatedReplicaSet result = Revisions.setNewReplicaSetAnnotations(d, current, "3", true, 2000);
    assertThat(result.changed()).isFalse();
    assertThat(result.replicaSet().getMetadata().getAnnotations())
        .doesNotContainKey(ProportionalScaling.DESIRED_REPLICAS_ANNOTATION);
  }

  @Test
  void revisionIsNeverLowered() {
    ReplicaSet ahead = withRevision(rs("new", 10, 0), "8");
    Revisions.AnnotatedReplicaSet result = Revisions.setNewReplicaSetAnnotations(annotated(Map.of()), ahead,
        "5", true, 2000);
    assertThat(result.changed()).isFalse();
    assertThat(result.replicaSet().getMetadata().getAnnotations())
        .containsEntry(Revisions.REVISION_ANNOTATION, "8")
        .doesNotContainKey(Revisions.REVISION_HISTORY_ANNOTATION);
  }

  static Stream<Arguments> revisionHistory() {
    return Stream.of(
        Arguments.of("first re-use starts the history", null, "2", 2000, "2"),
        Arguments.of("later re-use appends", "1,3", "5", 2000, "1,3,5"),
        Arguments.of("oldest entry dropped to fit the limit", "1,3,5", "7", 5, "3,5,7"),
        Arguments.of("as many oldest entries dropped as needed", "1,3,5", "7", 4, "5,7"),
        Arguments.of("exact fit keeps everything", "1,3", "5", 5, "1,3,5"),
        Arguments.of("entry longer than the limit leaves the history as it was", "1", "12345", 3, "1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void revisionHistory(String name, String history, String oldRevision, int limit, String expected) {
    ReplicaSet reused = withRevision(rs("new", 0, 0), oldRevision);
    if (history != null) {
      reused = withAnnotations(reused, Map.of(Revisions.REVISION_HISTORY_ANNOTATION, history));
    }
    Revisions.AnnotatedReplicaSet result = Revisions.setNewReplicaSetAnnotations(annotated(Map.of()), reused,
        "100000", true, limit);
    assertThat(result.changed()).isTrue();
    assertThat(result.replicaSet().getMetadata().getAnnotations())
        .containsEntry(Revisions.REVISION_ANNOTATION, "100000")
        .containsEntry(Revisions.REVISION_HISTORY_ANNOTATION, expected);
  }

  @Test
  void nonIntegerExistingRevisionReportsUnchanged() {
    ReplicaSet odd = withRevision(rs("new", 0, 0), "abc");
    Revisions.AnnotatedReplicaSet result = Revisions.setNewReplicaSetAnnotations(
        annotated(Map.of("team", "x")), odd, "4", true, 2000);
    assertThat(result.changed()).isFalse();
    assertThat(result.replicaSet().getMetadata().getAnnotations())
        .containsEntry(Revisions.REVISION_ANNOTATION, "abc").containsEntry("team", "x");
  }

  @Test
  void deploymentRevisionIsSetOnACopyOnlyWhenDifferent() {
    Deployment d = rolling(3, 1, 0);
    Optional<Deployment> revised = Revisions.setDeploymentRevision(d, "4");
    assertThat(revised).isPresent();
    assertThat(revised.get().getMetadata().getAnnotations()).containsEntry(Revisions.REVISION_ANNOTATION, "4");
    assertThat(d.getMetadata().getAnnotations()).as("input untouched").isNullOrEmpty();
    assertThat(Revisions.setDeploymentRevision(revised.get(), "4")).isEmpty();
  }

  @Test
  void skipListIsUpstreams() {
    assertThat(Stream.of(Revisions.LAST_APPLIED_CONFIG_ANNOTATION, Revisions.REVISION_ANNOTATION,
        Revisions.REVISION_HISTORY_ANNOTATION, ProportionalScaling.DESIRED_REPLICAS_ANNOTATION,
        ProportionalScaling.MAX_REPLICAS_ANNOTATION, Revisions.DEPRECATED_ROLLBACK_TO_ANNOTATION))
        .allMatch(Revisions::skipCopyAnnotation);
    assertThat(Revisions.skipCopyAnnotation("app.kubernetes.io/version")).isFalse();
  }
}
