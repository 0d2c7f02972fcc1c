package io.berth.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditLogTest {

  private static final String USER = "system:serviceaccount:kube-system:berth-scheduler";

  @TempDir
  Path dir;

  private static String event(String stage, String user, String verb, String uri, int code, String message) {
    return "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Metadata\",\"stage\":\"" + stage
        + "\",\"requestURI\":\"" + uri + "\",\"verb\":\"" + verb + "\",\"user\":{\"username\":\"" + user
        + "\",\"groups\":[\"system:serviceaccounts\"]},\"objectRef\":{\"resource\":\"pods\",\"namespace\":\"ns\","
        + "\"subresource\":\"binding\"},\"responseStatus\":{\"metadata\":{},"
        + (message == null ? "" : "\"status\":\"Failure\",\"message\":\"" + message + "\",") + "\"code\":" + code
        + "}}";
  }

  @Test
  void leavesOutALastLineTheServerIsStillWriting() throws Exception {
    Path file = dir.resolve("audit.log");
    String whole = event("ResponseComplete", USER, "create", "/api/v1/namespaces/ns/pods/a/binding", 201, null);
    String next = event("ResponseComplete", USER, "create", "/api/v1/namespaces/ns/pods/b/binding", 201, null);
    Files.writeString(file, whole + "\n" + next.substring(0, next.length() / 2));

    assertThat(new AuditLog(file).entries(e -> true)).extracting(AuditLog.Entry::uri)
        .containsExactly("/api/v1/namespaces/ns/pods/a/binding");
  }

  @Test
  void readsCompletedRequestsAndTellsRejectionsFromRaces() throws Exception {
    Path file = dir.resolve("audit.log");
    Files.write(file, List.of(
        event("ResponseStarted", USER, "watch", "/api/v1/pods?watch=true", 200, null),
        event("ResponseComplete", USER, "watch", "/api/v1/pods?watch=true", 200, null),
        event("ResponseComplete", USER, "create", "/api/v1/namespaces/ns/pods/a/binding", 201, null),
        event("ResponseComplete", USER, "get", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x", 404,
            "leases.coordination.k8s.io \\\"x\\\" not found"),
        event("ResponseComplete", USER, "update", "/api/v1/namespaces/ns/pods/a/status", 409, "conflict"),
        event("ResponseComplete", USER, "create", "/api/v1/namespaces/ns/events", 422, "invalid: reportingInstance"),
        event("ResponseComplete", "admin", "create", "/api/v1/namespaces", 403, "forbidden"),
        ""));
    AuditLog log = new AuditLog(file);

    assertThat(log.count(USER)).as("ResponseStarted is not a second request").isEqualTo(5);
    assertThat(log.refused(USER)).extracting(AuditLog.Entry::code).containsExactly(404, 409, 422);
    assertThat(log.rejected(USER)).singleElement().satisfies(e -> {
      assertThat(e.verb()).isEqualTo("create");
      assertThat(e.uri()).isEqualTo("/api/v1/namespaces/ns/events");
      assertThat(e.message()).isEqualTo("invalid: reportingInstance");
      assertThat(e.resource()).isEqualTo("pods");
      assertThat(e.toString()).startsWith("422 create /api/v1/namespaces/ns/events (invalid: reportingInstance)");
    });
    assertThat(log.rejected("admin")).extracting(AuditLog.Entry::code).containsExactly(403);
  }

  @Test
  void groupsAWindowsRequestsByVerbAndResource() throws Exception {
    Path file = dir.resolve("audit.log");
    Files.write(file, List.of(
        event("ResponseComplete", USER, "list", "/api/v1/pods", 200, null),
        event("ResponseStarted", USER, "watch", "/api/v1/pods?watch=true", 200, null),
        event("ResponseComplete", USER, "create", "/api/v1/namespaces/ns/pods/a/binding", 201, null),
        event("ResponseComplete", USER, "create", "/api/v1/namespaces/ns/pods/b/binding", 201, null),
        event("ResponseComplete", USER, "patch", "/api/v1/namespaces/ns/pods/b/binding", 200, null),
        event("ResponseComplete", "admin", "create", "/api/v1/namespaces/ns/pods/c/binding", 201, null),
        "{\"stage\":\"ResponseComplete\",\"verb\":\"create\",\"requestURI\":\"/apis/events.k8s.io/v1/namespaces/ns/"
            + "events\",\"user\":{\"username\":\"admin\"},\"objectRef\":{\"resource\":\"events\",\"apiGroup\":"
            + "\"events.k8s.io\",\"namespace\":\"ns\"},\"responseStatus\":{\"code\":201}}",
        ""));
    AuditLog log = new AuditLog(file);

    assertThat(log.kinds(USER, 1)).as("the user's first request is before the window")
        .containsExactly(Map.entry("create core/pods/binding", 2L), Map.entry("patch core/pods/binding", 1L));
    assertThat(log.kinds(USER, 0)).containsEntry("list core/pods/binding", 1L).hasSize(3);
    assertThat(log.kinds("admin", 0)).containsOnlyKeys("create core/pods/binding", "create events.k8s.io/events");
  }

  @Test
  void aMissingFileHasNoEntries() {
    assertThat(new AuditLog(dir.resolve("absent.log")).entries(e -> true)).isEmpty();
  }

  @Test
  void readsWhenTheServerCompletedEachRequest() throws Exception {
    Path file = dir.resolve("audit.log");
    String stamped = event("ResponseComplete", USER, "create", "/api/v1/namespaces/ns/pods/a/binding", 201, null)
        .replace("\"stage\":", "\"stageTimestamp\":\"2026-12-02T19:20:01.123456Z\",\"stage\":");
    String unstamped = event("ResponseComplete", USER, "create", "/api/v1/namespaces/ns/pods/b/binding", 201, null);
    Files.write(file, List.of(stamped, unstamped, ""));

    assertThat(new AuditLog(file).entries(e -> true)).extracting(AuditLog.Entry::completed).containsExactly(
        java.time.Instant.parse("2026-12-02T19:20:01.123456Z"), java.time.Instant.EPOCH);
  }
}
