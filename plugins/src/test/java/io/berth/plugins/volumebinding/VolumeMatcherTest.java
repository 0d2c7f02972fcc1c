package io.berth.plugins.volumebinding;

import static io.berth.plugins.volumebinding.VolumeFixtures.HOSTNAME;
import static io.berth.plugins.volumebinding.VolumeFixtures.node;
import static io.berth.plugins.volumebinding.VolumeFixtures.pv;
import static io.berth.plugins.volumebinding.VolumeFixtures.pvc;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.LabelSelectors;
import io.berth.plugins.volumebinding.PodVolumeClaims.CandidateVolume;
import io.berth.plugins.volumebinding.PodVolumeClaims.UnboundClaim;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.TopologySelectorTerm;
import io.fabric8.kubernetes.api.model.TopologySelectorTermBuilder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Upstream's FindMatchingVolume on the scheduler path, one rule per case. */
class VolumeMatcherTest {
  private static final Node NODE_A = node("node-a");

  static UnboundClaim claim(PersistentVolumeClaim pvc, long request) {
    Optional<io.berth.framework.LabelMatcher> selector =
        Optional.ofNullable(pvc.getSpec().getSelector())
            .map(s -> LabelSelectors.compile(s, "spec.selector"));
    return new UnboundClaim(pvc, request, VolumeHelpers.claimClass(pvc), selector);
  }

  static CandidateVolume candidate(PersistentVolume pv, long capacity) {
    return new CandidateVolume(pv, capacity, VolumeAffinity.of(pv));
  }

  static Optional<String> match(UnboundClaim claim, Set<String> excluded, CandidateVolume... pvs) {
    return VolumeMatcher.findMatchingVolume(claim, Arrays.asList(pvs), NODE_A, excluded)
        .map(CandidateVolume::name);
  }

  static Stream<Arguments> cases() {
    UnboundClaim rwo5 = claim(pvc("c", "sc").accessModes("ReadWriteOnce").build(), 5);
    CandidateVolume small = candidate(pv("small", "sc").available().accessModes("ReadWriteOnce")
        .build(), 5);
    CandidateVolume big = candidate(pv("big", "sc").available().accessModes("ReadWriteOnce")
        .build(), 50);
    CandidateVolume tooSmall = candidate(pv("tiny", "sc").available()
        .accessModes("ReadWriteOnce").build(), 4);
    return Stream.of(
        Arguments.of("the smallest that fits", rwo5, Set.of(), List.of(big, small, tooSmall),
            Optional.of("small")),
        Arguments.of("nothing big enough", rwo5, Set.of(), List.of(tooSmall), Optional.empty()),
        Arguments.of("excluded volumes are skipped", rwo5, Set.of("small"),
            List.of(big, small), Optional.of("big")),
        Arguments.of("another class", rwo5, Set.of(),
            List.of(candidate(pv("x", "other").available().accessModes("ReadWriteOnce").build(),
                9)), Optional.empty()),
        Arguments.of("not available yet", rwo5, Set.of(),
            List.of(candidate(pv("x", "sc").phase("Pending").accessModes("ReadWriteOnce")
                .build(), 9)), Optional.empty()),
        Arguments.of("claimed by another claim", rwo5, Set.of(),
            List.of(candidate(pv("x", "sc").available().claimRef("default", "other")
                .accessModes("ReadWriteOnce").build(), 9)), Optional.empty()),
        Arguments.of("missing access mode", claim(pvc("c", "sc")
                .accessModes("ReadWriteOnce", "ReadOnlyMany").build(), 1), Set.of(),
            List.of(big), Optional.empty()),
        Arguments.of("block claim, filesystem volume", claim(pvc("c", "sc").volumeMode("Block")
            .build(), 1), Set.of(), List.of(big), Optional.empty()),
        Arguments.of("filesystem is the default mode", rwo5, Set.of(),
            List.of(candidate(pv("fs", "sc").available().accessModes("ReadWriteOnce")
                .volumeMode("Filesystem").build(), 9)), Optional.of("fs")),
        Arguments.of("being deleted", rwo5, Set.of(),
            List.of(candidate(pv("x", "sc").available().accessModes("ReadWriteOnce").deleting()
                .build(), 9)), Optional.empty()),
        Arguments.of("selector mismatch", claim(pvc("c", "sc").selector("tier", "fast").build(),
            1), Set.of(), List.of(big), Optional.empty()),
        Arguments.of("selector match", claim(pvc("c", "sc").selector("tier", "fast").build(), 1),
            Set.of(), List.of(big, candidate(pv("fast", "sc").available().labels("tier", "fast")
                .build(), 90)), Optional.of("fast")),
        Arguments.of("unreachable from the node", rwo5, Set.of(),
            List.of(candidate(pv("x", "sc").available().accessModes("ReadWriteOnce")
                .nodeAffinity(HOSTNAME, "node-b").build(), 9)), Optional.empty()),
        Arguments.of("pre-bound volume wins even if bigger and not available", rwo5, Set.of(),
            List.of(small, candidate(pv("mine", "sc").phase("Bound").claimRef("default", "c")
                .build(), 500)), Optional.of("mine")),
        Arguments.of("unreachable pre-bound volume means no match", rwo5, Set.of(),
            List.of(candidate(pv("mine", "sc").claimRef("default", "c")
                .nodeAffinity(HOSTNAME, "node-b").build(), 500), small), Optional.empty()),
        Arguments.of("too small pre-bound volume is passed over", rwo5, Set.of(),
            List.of(candidate(pv("mine", "sc").claimRef("default", "c").build(), 1), small),
            Optional.of("small")),
        Arguments.of("unparseable capacity is skipped", rwo5, Set.of(),
            List.of(candidate(pv("bad", "sc").available().build(), -1)), Optional.empty()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void findMatchingVolume(String name, UnboundClaim claim, Set<String> excluded,
      List<CandidateVolume> pvs, Optional<String> want) {
    assertThat(match(claim, excluded, pvs.toArray(CandidateVolume[]::new))).isEqualTo(want);
  }

  @Test
  void topologyTermsNeedEveryRequirementOfOneTerm() {
    TopologySelectorTerm zoneA = new TopologySelectorTermBuilder().addNewMatchLabelExpression()
        .withKey("zone").withValues("a", "b").endMatchLabelExpression()
        .addNewMatchLabelExpression().withKey("rack").withValues("1").endMatchLabelExpression()
        .build();
    TopologySelectorTerm empty = new TopologySelectorTerm();

    assertThat(VolumeMatcher.topologyAllows(null, Map.of())).isTrue();
    assertThat(VolumeMatcher.topologyAllows(List.of(zoneA), Map.of("zone", "b", "rack", "1")))
        .isTrue();
    assertThat(VolumeMatcher.topologyAllows(List.of(zoneA), Map.of("zone", "b"))).isFalse();
    assertThat(VolumeMatcher.topologyAllows(List.of(empty), Map.of("zone", "b"))).isFalse();
    assertThat(VolumeMatcher.topologyAllows(List.of(empty, zoneA),
        Map.of("zone", "a", "rack", "1"))).isTrue();
  }
}
