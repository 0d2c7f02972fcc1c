package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.member;
import static io.berth.plugins.coscheduling.GangFixtures.node;
import static io.berth.plugins.coscheduling.GangFixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** A group's member summary: what it counts, when it is reused (the same pod objects) and when recounted. */
class MemberSummaryTest {
  private static final GroupRef PG = new GroupRef(GroupRef.Api.SCHEDULER_PLUGINS, "ns", "pg");
  private static final NodeInfo N1 = NodeInfo.of(node("n1", "8"));

  private static PodGroup group(int minMember) {
    return PodGroup.from(podGroup("pg", minMember));
  }

  @Test
  void countsMembersGatedAndDeletingApartAndSumsTheFirstMinMemberByName() {
    Pod b = member("b", "pg", "2");
    Pod a = member("a", "pg", "1");
    Pod c = member("c", "pg", "4");
    Pod gated = new PodBuilder(member("d", "pg", "8")).editSpec().addNewSchedulingGate().withName("x")
        .endSchedulingGate().endSpec().build();
    Pod deleting = new PodBuilder(member("e", "pg", "8")).editMetadata()
        .withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata().build();
    MemberSummary s = MemberSummary.of(group(2), List.of(b, c, gated, a, deleting));
    assertThat(s.counted()).isEqualTo(3);
    assertThat(s.gated()).isEqualTo(1);
    assertThat(s.requests()).containsEntry("cpu", 3000L); // a and b, the first two by name
  }

  @Test
  void membersOfTheOtherApiAreLeftOut() {
    Pod label = member("a", "pg", "1");
    Pod workload = new PodBuilder(member("w", null, "1")).editSpec().withNewSchedulingGroup()
        .withPodGroupName("pg").endSchedulingGroup().endSpec().build();
    MemberSummary s = MemberSummary.of(group(1), List.of(label, workload));
    assertThat(s.counted()).isEqualTo(1);
    assertThat(s.requests()).containsEntry("cpu", 1000L);
  }

  @Test
  void matchesOnlyTheSamePodObjectsInTheSameOrderForTheSameMinMember() {
    Pod a = member("a", "pg", "1");
    Pod b = member("b", "pg", "1");
    MemberSummary s = MemberSummary.of(group(2), List.of(a, b));
    assertThat(s.matches(new ArrayList<>(List.of(a, b)), 2)).isTrue();
    assertThat(s.matches(List.of(a, new PodBuilder(b).build()), 2)).as("b replaced by an equal copy").isFalse();
    assertThat(s.matches(List.of(b, a), 2)).isFalse();
    assertThat(s.matches(List.of(a), 2)).isFalse();
    assertThat(s.matches(List.of(a, b), 3)).isFalse();
  }

  @Test
  void preFilterReusesTheSummaryWhileTheMembersAreUnchangedAndRecountsAChange() {
    Pod a = member("a", "pg", "1");
    Pod b = member("b", "pg", "1");
    SwappableMembers index = new SwappableMembers(List.of(a, b));
    Coscheduling plugin = plugin(index, podGroup("pg", 2), NodeInfo.of(node("n1", "3")));
    assertThat(plugin.preFilter(new CycleState(), a, List.of(NodeInfo.of(node("n1", "3")))).status().isSuccess())
        .isTrue();
    MemberSummary first = plugin.rememberedMembers(PG);
    assertThat(first).isNotNull();
    plugin.preFilter(new CycleState(), b, List.of(NodeInfo.of(node("n1", "3"))));
    assertThat(plugin.rememberedMembers(PG)).as("the second member of a cycle").isSameAs(first);

    // b grows to 4 cpu (a new object in the informer): the next PreFilter counts it
    Pod bigger = member("b", "pg", "4");
    index.set(List.of(a, bigger));
    Status s = plugin.preFilter(new CycleState(), a, List.of(NodeInfo.of(node("n1", "3")))).status();
    assertThat(s.isSuccess()).isFalse();
    assertThat(s.message()).contains("cpu: needs 5, 3 free, short by 2");
    assertThat(plugin.rememberedMembers(PG)).isNotSameAs(first);
  }

  @Test
  void preEnqueueDoesNotCreateGroupState() {
    Pod a = member("a", "pg", "1");
    Coscheduling plugin = plugin(new SwappableMembers(List.of(a)), podGroup("pg", 2), N1);
    assertThat(plugin.preEnqueue(a).message()).contains("1 missing");
    assertThat(plugin.rememberedGroups()).isZero();
  }

  /**
   * PreFilter and PreEnqueue from many threads while the member list flips between a complete group and one short
   * of a member: every answer is one of the two right ones (never a count of one list with the requests of the
   * other), and once the list stays complete every answer is Success.
   */
  @Test
  void concurrentPreFiltersSeeOneMemberListOrTheOther() throws Exception {
    List<Pod> complete = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      complete.add(member("p" + i, "pg", "2"));
    }
    List<Pod> short1 = complete.subList(0, 3);
    SwappableMembers index = new SwappableMembers(complete);
    Coscheduling plugin = plugin(index, podGroup("pg", 4), N1);
    String shortMessage = "PodGroup \"ns/pg\" has 3 of its minMember 4 pods: 1 missing";
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    CountDownLatch go = new CountDownLatch(1);
    AtomicBoolean stop = new AtomicBoolean();
    Future<?> writer = pool.submit(() -> {
      go.await();
      for (int i = 0; i < 5_000; i++) {
        index.set(i % 2 == 0 ? short1 : List.copyOf(complete));
      }
      index.set(complete);
      stop.set(true);
      return null;
    });
    List<Future<List<String>>> readers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int seed = t;
      readers.add(pool.submit(() -> {
        go.await();
        List<String> wrong = new ArrayList<>();
        int i = 0;
        while (!stop.get() || i < 200) {
          Pod p = complete.get((i + seed) % 3);
          Status s = (i++ % 3 == 0) ? plugin.preEnqueue(p)
              : plugin.preFilter(new CycleState(), p, List.of(N1)).status();
          if (!s.isSuccess() && !s.message().equals(shortMessage)) {
            wrong.add(s.message());
          }
        }
        return wrong;
      }));
    }
    go.countDown();
    writer.get(60, TimeUnit.SECONDS);
    for (Future<List<String>> r : readers) {
      assertThat(r.get(60, TimeUnit.SECONDS)).isEmpty();
    }
    pool.shutdown();
    for (Pod p : complete) {
      assertThat(plugin.preFilter(new CycleState(), p, List.of(N1)).status().isSuccess()).isTrue();
    }
    assertThat(plugin.rememberedMembers(PG).counted()).isEqualTo(4);
  }

  private static Coscheduling plugin(SwappableMembers index, io.fabric8.kubernetes.api.model.GenericKubernetesResource pg,
      NodeInfo... nodes) {
    GangFixtures.Gang gang = new GangFixtures.Gang().groups(pg).nodes(nodes);
    PodGroupLister lister = (ns, name) -> Optional.ofNullable(gang.groups.get(ns + "/" + name)).map(PodGroup::from);
    return new Coscheduling(CoschedulingArgs.parse(Map.of()), gang.testHandle, lister, new GroupMembers(index),
        Clock.systemUTC(), Executors.newSingleThreadScheduledExecutor());
  }

  /** The member index's answer, replaced whole (as the informer replaces objects). Thread-safe: volatile. */
  private static final class SwappableMembers implements io.berth.framework.ObjectIndex<Pod> {
    private volatile List<Pod> pods;

    SwappableMembers(List<Pod> pods) {
      this.pods = pods;
    }

    void set(List<Pod> now) {
      pods = now;
    }

    @Override
    public List<Pod> get(String key) {
      return key.equals("ns/pg") ? new ArrayList<>(pods) : List.of();
    }
  }
}
