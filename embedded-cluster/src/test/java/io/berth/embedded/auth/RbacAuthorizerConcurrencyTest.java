package io.berth.embedded.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.embedded.server.ApiServer;
import io.berth.embedded.server.DefaultServerHooks;
import io.berth.embedded.server.DeleteOptions;
import io.berth.embedded.server.Json;
import io.berth.embedded.server.ResourceOperations;
import io.berth.embedded.server.ResourceTypes;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * Many threads authorizing against the server's store while roles and bindings are created, updated and deleted:
 * no exceptions, a stable grant is never lost, a churning grant is only ever attributed to its own rule, and the
 * final decisions follow the final objects.
 */
class RbacAuthorizerConcurrencyTest {

  private static final UserInfo STABLE = new UserInfo("stable", "", List.of(UserInfo.AUTHENTICATED));
  private static final UserInfo CHURN = new UserInfo("churn", "", List.of(UserInfo.AUTHENTICATED));

  private final Clock clock = Clock.systemUTC();
  private final ApiServer server = new ApiServer(ApiServer.Settings.defaults(), new DefaultServerHooks(clock), clock,
      new ApiServer.Security(true, 1_000_000));
  private final ResourceOperations ops = server.operations();

  private static ObjectNode json(String s) {
    return Json.parseObject(s.getBytes(StandardCharsets.UTF_8));
  }

  private static String role(String name, String resource) {
    return "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"Role\",\"metadata\":{\"name\":\"" + name
        + "\",\"namespace\":\"ns\"},\"rules\":[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"" + resource
        + "\"]}]}";
  }

  private static String binding(String name, String role, String user) {
    return "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\",\"metadata\":{\"name\":\""
        + name + "\",\"namespace\":\"ns\"},\"roleRef\":{\"kind\":\"Role\",\"name\":\"" + role + "\"},"
        + "\"subjects\":[{\"kind\":\"User\",\"name\":\"" + user + "\"}]}";
  }

  private AuthorizationDecision get(UserInfo user) {
    return server.authorizer().authorize(AuthorizationAttributes.resource(user, "get", "", "ns", "pods", "", "p"),
        AuthorizationDecision.Origin.REQUEST);
  }

  @Test
  void authorizingWhileRolesAndBindingsChange() throws Exception {
    ops.create(ResourceTypes.NAMESPACES, "", json("{\"metadata\":{\"name\":\"ns\"}}"));
    ops.create(ResourceTypes.ROLES, "ns", json(role("stable", "pods")));
    ops.create(ResourceTypes.ROLE_BINDINGS, "ns", json(binding("stable", "stable", "stable")));
    int readers = 4;
    int writers = 2;
    ExecutorService pool = Executors.newFixedThreadPool(readers + writers);
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch start = new CountDownLatch(1);
    ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    List<Future<Integer>> futures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int id = w;
      futures.add(pool.submit(() -> {
        start.await();
        int rounds = 0;
        while (!stop.get()) {
          String role = "churn-" + id;
          ops.create(ResourceTypes.ROLES, "ns", json(role(role, "pods")));
          ops.create(ResourceTypes.ROLE_BINDINGS, "ns", json(binding(role, role, "churn")));
          ops.update(ResourceTypes.ROLES, "ns", role, json(role(role, "services")), false);
          ops.delete(ResourceTypes.ROLE_BINDINGS, "ns", role, DeleteOptions.DEFAULT);
          ops.delete(ResourceTypes.ROLES, "ns", role, DeleteOptions.DEFAULT);
          rounds++;
        }
        return rounds;
      }));
    }
    for (int r = 0; r < readers; r++) {
      futures.add(pool.submit(() -> {
        start.await();
        int decisions = 0;
        while (!stop.get()) {
          AuthorizationDecision s = get(STABLE);
          if (!s.allowed() || !s.rules().equals(List.of(RuleRef.role("ns", "stable", 0)))) {
            problems.add("stable: " + s);
          }
          AuthorizationDecision c = get(CHURN);
          if (c.allowed() && !c.rules().stream().allMatch(rule -> rule.roleName().startsWith("churn-")
              && rule.ruleIndex() == 0)) {
            problems.add("churn: " + c);
          }
          decisions += 2;
        }
        return decisions;
      }));
    }
    start.countDown();
    TimeUnit.MILLISECONDS.sleep(1500);
    stop.set(true);
    pool.shutdown();
    assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    long made = 0;
    for (int i = 0; i < futures.size(); i++) {
      int n = futures.get(i).get();
      assertThat(n).as("thread %d made progress", i).isPositive();
      if (i >= writers) {
        made += n;
      }
    }
    assertThat(problems).isEmpty();
    assertThat(server.authorizer().decisions()).hasSize((int) made);
    assertThat(server.authorizer().decisions(d -> d.user().equals(CHURN) && d.allowed())).as("churn was granted")
        .isNotEmpty();
    assertThat(get(CHURN).allowed()).as("every churn binding is gone").isFalse();
    assertThat(get(STABLE).allowed()).isTrue();
    ops.create(ResourceTypes.ROLES, "ns", json(role("final", "pods")));
    ops.create(ResourceTypes.ROLE_BINDINGS, "ns", json(binding("final", "final", "churn")));
    assertThat(get(CHURN).rules()).containsExactly(RuleRef.role("ns", "final", 0));
  }
}
