package io.berth.scheduler.explain;

import io.berth.scheduler.explain.Attempt.PluginVerdict;
import io.berth.scheduler.explain.FilterTable.NodeVerdict;
import io.berth.scheduler.explain.ScoreTable.NodeScores;
import io.berth.scheduler.explain.ScoreTable.PluginScore;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code --record-results-annotations}: writes each attempt onto its pod under
 * kube-scheduler-simulator's annotation keys and value shapes, so that tools made for the
 * simulator read Berth's decisions: per extension point a JSON object of plugin → "success",
 * "wait" or the status message; {@code filter-result} node → plugin → "passed" or the reason
 * (the plugins after the rejecting one did not run and are absent, as in the simulator);
 * {@code score-result} node → plugin → raw score and {@code finalscore-result} node → plugin →
 * normalized score × weight, as strings; {@code postfilter-result} node → plugin →
 * "preemption victim" for the nominated node; {@code selected-node}. One JSON merge patch of
 * {@code metadata.annotations} per attempt (needs {@code patch} on {@code pods}); a value that
 * would push the pod's annotations past the API server's 256 KiB limit is written as {@code {}}
 * (a 5,000-node filter result does not fit) and counted. {@code result-history} holds, as the
 * simulator's, a JSON list of every attempt's result annotations, oldest first, the current one
 * last (an attempt whose results equal the one before it is not listed again, so that writing
 * the annotations of a pod that keeps failing alike does not change the pod and requeue it); it
 * is kept in memory per pod UID (at most {@link #HISTORY_MEMORY} characters over all
 * pods, the pods recorded least recently dropped first), so it restarts with the scheduler, and
 * its oldest attempts are left out when the list would push the values past the budget.
 * Called on the recorder thread only (the history map is confined to it); failures are logged
 * and counted, never retried.
 */
public final class ResultAnnotations {
  private static final Logger LOG = LoggerFactory.getLogger(ResultAnnotations.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();
  /** The simulator's annotation key prefix. */
  public static final String PREFIX = "kube-scheduler-simulator.sigs.k8s.io/";
  public static final String PRE_FILTER_STATUS = PREFIX + "prefilter-result-status";
  public static final String PRE_FILTER = PREFIX + "prefilter-result";
  public static final String FILTER = PREFIX + "filter-result";
  public static final String POST_FILTER = PREFIX + "postfilter-result";
  public static final String PRE_SCORE = PREFIX + "prescore-result";
  public static final String SCORE = PREFIX + "score-result";
  public static final String FINAL_SCORE = PREFIX + "finalscore-result";
  public static final String RESERVE = PREFIX + "reserve-result";
  public static final String PERMIT = PREFIX + "permit-result";
  public static final String PERMIT_TIMEOUT = PREFIX + "permit-result-timeout";
  public static final String PRE_BIND = PREFIX + "prebind-result";
  public static final String BIND = PREFIX + "bind-result";
  public static final String SELECTED_NODE = PREFIX + "selected-node";
  /** Every attempt's annotations so far, as the simulator's storereflector keeps them. */
  public static final String HISTORY = PREFIX + "result-history";
  /** The characters of result history kept in memory over all pods. */
  static final long HISTORY_MEMORY = 32L * 1024 * 1024;
  /** The budget for all of these values together, under the API server's 256 KiB. */
  static final int BUDGET = 200 * 1024;

  private final KubernetesClient client;
  private final Counter failures;
  private final Counter truncated;
  // pod UID -> its earlier attempts' annotations as JSON objects, least recently written first;
  // confined to the recorder thread
  private final LinkedHashMap<String, ArrayDeque<String>> history =
      new LinkedHashMap<>(16, 0.75f, true);
  private long historyChars;

  public ResultAnnotations(KubernetesClient client, MeterRegistry metrics) {
    this.client = client;
    this.failures = Counter.builder("berth_scheduler_result_annotation_failures_total")
        .description("Result annotation patches that failed").register(metrics);
    this.truncated = Counter.builder("berth_scheduler_result_annotation_truncated_total")
        .description("Result annotation values left empty because they were too large")
        .register(metrics);
  }

  /** Patches the attempt's annotations onto its pod. */
  public void write(Attempt a) {
    Map<String, String> values = annotations(a);
    if (values.values().stream().mapToInt(String::length).sum() > BUDGET) {
      for (String key : List.of(FILTER, SCORE, FINAL_SCORE)) {
        values.put(key, "{}");
      }
      truncated.increment();
    }
    values.put(HISTORY, appendHistory(a.uid().isEmpty() ? a.namespace() + "/" + a.name()
        : a.uid(), values));
    Map<String, Object> patch = Map.of("metadata", Map.of("annotations", values));
    try {
      client.pods().inNamespace(a.namespace()).withName(a.name())
          .patch(PatchContext.of(PatchType.JSON_MERGE), JSON.writeValueAsString(patch));
    } catch (KubernetesClientException e) {
      failures.increment();
      if (e.getCode() != 404) {
        LOG.warn("writing the result annotations of pod {}/{} failed: {}", a.namespace(),
            a.name(), e.getMessage());
      }
    }
  }

  /**
   * Appends this attempt's {@code values} to the pod's history and returns the history's
   * annotation value, its oldest attempts left out as far as needed to stay within the budget
   * with {@code values}.
   */
  String appendHistory(String pod, Map<String, String> values) {
    ArrayDeque<String> entries = history.computeIfAbsent(pod, k -> new ArrayDeque<>());
    String entry = json(values);
    // an attempt that ended as the previous one did is not listed twice: the patch then changes
    // nothing, so the pod's own update does not requeue it and set off another attempt
    if (!entry.equals(entries.peekLast())) {
      entries.addLast(entry);
      historyChars += entry.length();
    }
    int room = BUDGET - values.values().stream().mapToInt(String::length).sum();
    String out = historyValue(entries, room);
    while (historyChars > HISTORY_MEMORY && !history.isEmpty()) {
      Map.Entry<String, ArrayDeque<String>> eldest = history.entrySet().iterator().next();
      for (String e : eldest.getValue()) {
        historyChars -= e.length();
      }
      history.remove(eldest.getKey());
    }
    return out;
  }

  /**
   * The history value: {@code entries} as a JSON list, the oldest dropped from {@code entries}
   * while the list is longer than {@code room} characters (an empty list when even the newest
   * does not fit).
   */
  String historyValue(ArrayDeque<String> entries, int room) {
    long length = 2 + entries.stream().mapToLong(e -> e.length() + 1L).sum();
    while (length > room && !entries.isEmpty()) {
      String dropped = entries.removeFirst();
      historyChars -= dropped.length();
      length -= dropped.length() + 1L;
    }
    return "[" + String.join(",", entries) + "]";
  }

  /** The annotations of one attempt, keys as the simulator's. */
  public static Map<String, String> annotations(Attempt a) {
    Map<String, String> out = new LinkedHashMap<>();
    out.put(PRE_FILTER_STATUS, json(statuses(a.preFilter())));
    Map<String, List<String>> preFilterNodes = new TreeMap<>();
    for (PluginVerdict v : a.preFilter()) {
      v.nodeNames().ifPresent(n -> preFilterNodes.put(v.plugin(), n));
    }
    out.put(PRE_FILTER, json(preFilterNodes));
    out.put(FILTER, json(filter(a.filter())));
    Map<String, Map<String, String>> post = new TreeMap<>();
    a.preemption().ifPresent(p -> {
      for (Attempt.Candidate c : p.candidates()) {
        post.put(c.node(), new TreeMap<>());
      }
    });
    a.nominatedNode().ifPresent(n -> {
      for (PluginVerdict v : a.postFilter()) {
        if (v.success()) {
          post.computeIfAbsent(n, k -> new TreeMap<>()).put(v.plugin(), "preemption victim");
        }
      }
    });
    out.put(POST_FILTER, json(post));
    out.put(PRE_SCORE, json(statuses(a.preScore())));
    Map<String, Map<String, String>> raw = new TreeMap<>();
    Map<String, Map<String, String>> fin = new TreeMap<>();
    for (NodeScores row : a.scores().rows()) {
      Map<String, String> r = new TreeMap<>();
      Map<String, String> f = new TreeMap<>();
      for (PluginScore c : row.plugins()) {
        r.put(c.plugin(), Long.toString(c.raw()));
        f.put(c.plugin(), Long.toString(c.weighted()));
      }
      raw.put(row.node(), r);
      fin.put(row.node(), f);
    }
    out.put(SCORE, json(raw));
    out.put(FINAL_SCORE, json(fin));
    out.put(RESERVE, json(statuses(a.reserve())));
    out.put(PERMIT, json(statuses(a.permit())));
    out.put(PERMIT_TIMEOUT, "{}");
    out.put(PRE_BIND, json(statuses(a.preBind())));
    out.put(BIND, json(statuses(a.bind())));
    out.put(SELECTED_NODE, a.selectedNode().orElse(""));
    return out;
  }

  private static Map<String, Map<String, String>> filter(FilterTable f) {
    Map<String, Map<String, String>> out = new TreeMap<>();
    for (String node : f.feasible()) {
      Map<String, String> m = new TreeMap<>();
      f.plugins().forEach(p -> m.put(p, "passed"));
      out.put(node, m);
    }
    for (NodeVerdict v : f.rejected()) {
      Map<String, String> m = new TreeMap<>();
      for (String p : f.plugins()) {
        if (p.equals(v.plugin())) {
          break;
        }
        m.put(p, "passed");
      }
      m.put(v.plugin().isEmpty() ? "unknown" : v.plugin(), v.reason());
      out.put(v.node(), m);
    }
    return out;
  }

  private static Map<String, String> statuses(List<PluginVerdict> list) {
    Map<String, String> out = new TreeMap<>();
    for (PluginVerdict v : list) {
      out.put(v.plugin(), v.success() ? "success" : v.code().equals("Wait") ? "wait"
          : v.code().equals("Skip") ? "skip" : v.message());
    }
    return out;
  }

  private static String json(Object value) {
    return JSON.writeValueAsString(value);
  }
}
