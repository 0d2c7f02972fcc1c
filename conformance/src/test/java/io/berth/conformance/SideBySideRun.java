package io.berth.conformance;

import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import tools.jackson.databind.json.JsonMapper;

/**
 * Side-by-side throughput on one real control plane, in one run: scheduler_perf's SchedulingBasic shape (N kwok nodes
 * of 4 CPU / 32Gi / 110 pods in three zones, P pods of one pause container requesting 100m / 500Mi) scheduled by
 * kube-scheduler v1.36 and then by Berth's scheduler jar, each from the same {@code KubeSchedulerConfiguration}
 * (default plugins, clientConnection qps/burst 5000 as scheduler_perf sets them, no leader election; only the
 * profile's schedulerName and the identity differ); then a Deployment of R replicas rolled out by
 * kube-controller-manager's deployment and replicaset controllers and then by Berth's controller manager (same
 * {@code --kube-api-qps/--kube-api-burst}; the pods placed by the same kube-scheduler, one started for this half at
 * qps 5000 with its own schedulerName, and run by the same kwok).
 *
 * <p>Per scheduler: pods/s from the first create to the last binding seen, p50/p99 from each pod's create call to
 * its binding (seen on a watch), the scheduler process's CPU seconds and its API requests per pod (from the audit
 * log). Per controller manager: seconds from the Deployment's create to {@code availableReplicas == R} and the
 * controllers' API requests per pod. Rounds alternate the two (kube, Berth, kube, Berth...) so that the shared
 * machine's load falls on both alike. The table is printed and written to {@code DIR/side-by-side.md}.
 *
 * <p>Run it with {@code conformance/bench} (which builds what it needs); a CLI main, so it prints to stdout. It
 * starts its own control plane with {@code conformance/up} in {@code DIR} and stops it with {@code conformance/down}.
 * Not thread-safe; one run per process.
 */
public final class SideBySideRun {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String KCM_DEPLOYMENT = "system:serviceaccount:kube-system:deployment-controller";
  private static final String KCM_REPLICASET = "system:serviceaccount:kube-system:replicaset-controller";
  private static final String KUBE_SCHEDULER = "system:kube-scheduler";
  private static final String BERTH_SCHEDULER = "system:serviceaccount:kube-system:berth-scheduler";
  /** The floor contestant, {@link NullBinder}; it runs as Berth's scheduler identity, with the same grants. */
  private static final String BIND_ONLY = "bind-only";
  private static final String BERTH_CM = "system:serviceaccount:kube-system:berth-controller-manager";
  /** The controller managers' default --kube-api-qps here ({@code --rollout-qps} changes it); the burst is twice it. */
  private static final int API_QPS = 100;
  /** The schedulerName of the rollouts' pods, placed by a kube-scheduler started for the Deployment half. */
  private static final String ROLLOUT_SCHEDULER = "bench-rollout";

  private final Path scripts;
  private final Path dir;
  private final Path schedulerJar;
  private final Path controllerManagerJar;
  private final List<String> table = new ArrayList<>();
  /** One line per measured scheduler run: its requests per pod by kind. */
  private final List<String> requestKinds = new ArrayList<>();
  private final List<String> rolloutShares = new ArrayList<>();
  private KubernetesClient admin;
  private Path bin;
  private boolean backlog;
  /** Pods each scheduler binds before the measured ones (scheduler_perf's initPods; warms caches and the JIT). */
  private int initPods;
  /**
   * {@code --keep-pods true}: a scheduling round's pods are not deleted after it, so the next scheduler meets them
   * bound on the nodes. For large runs, where the API server's collection delete (one worker) takes longer than the
   * run itself: 11,000 pods took over 10 minutes on the loaded 2-core machine.
   */
  private boolean keepPods;
  /**
   * {@code --floor true}: each round also runs {@link NullBinder} (bind-only, no scheduling) after Berth, the bound on
   * pods/s that the control plane and this machine leave for any scheduler making the same two writes per pod.
   */
  private boolean floor;
  // the replicas of the Deployment each controller manager makes available before the measured one (1: synced only)
  private int rolloutWarmup = 1;
  // both controller managers' --kube-api-qps; the burst is twice it
  private int rolloutQps = API_QPS;
  // the process id of the Deployment half's kube-scheduler while it runs, else -1
  private long placerPid = -1;
  /** kwok's node Lease duration ({@code conformance/up --node-lease-seconds}). */
  private int leaseSeconds;

  private SideBySideRun(Path scripts, Path dir, Path schedulerJar, Path controllerManagerJar) {
    this.scripts = scripts;
    this.dir = dir;
    this.schedulerJar = schedulerJar;
    this.controllerManagerJar = controllerManagerJar;
  }

  /** One scheduler's measured run. */
  record SchedulingResult(String who, int pods, double podsPerSecond, double p50Ms, double p99Ms, double cpuSeconds,
      long requests, double withEventsPerSecond) {}

  /** One controller manager's measured rollout. */
  record RolloutResult(String who, int replicas, double secondsToAvailable, long requests, double cpuSeconds) {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new LinkedHashMap<>(Map.of("--nodes", "500", "--pods", "2000", "--replicas", "1000",
        "--rounds", "1", "--dir", "conformance/target/side-by-side", "--scripts", "conformance",
        "--scheduler-jar", "scheduler/target/berth-scheduler.jar",
        "--controller-manager-jar", "controller-manager/target/berth-controller-manager.jar",
        "--skip", "", "--mode", "stream"));
    opts.put("--init-pods", "auto");
    opts.put("--node-lease-seconds", "auto");
    opts.put("--keep-pods", "false");
    opts.put("--floor", "false");
    opts.put("--rollout-warmup", "1");
    opts.put("--rollout-qps", String.valueOf(API_QPS));
    for (int i = 0; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      if (!opts.containsKey(kv[0])) {
        System.err.println("unknown option " + kv[0] + "; options: " + opts.keySet());
        System.exit(2);
      }
      opts.put(kv[0], kv.length == 2 ? kv[1] : args[++i]);
    }
    SideBySideRun run = new SideBySideRun(Path.of(opts.get("--scripts")).toAbsolutePath(),
        Path.of(opts.get("--dir")).toAbsolutePath(), Path.of(opts.get("--scheduler-jar")).toAbsolutePath(),
        Path.of(opts.get("--controller-manager-jar")).toAbsolutePath());
    Set<String> skip = Set.of(opts.get("--skip").split(","));
    run.backlog = switch (opts.get("--mode")) {
      case "stream" -> false;
      case "backlog" -> true;
      default -> {
        System.err.println("--mode is stream or backlog, not " + opts.get("--mode"));
        System.exit(2);
        yield false;
      }
    };
    String init = opts.get("--init-pods");
    // scheduler_perf's SchedulingBasic: 500Nodes binds 500 init pods first, 5000Nodes_10000Pods 1,000
    run.initPods = init.equals("auto") ? (Integer.parseInt(opts.get("--nodes")) <= 500 ? 500 : 1000)
        : Integer.parseInt(init);
    run.keepPods = Boolean.parseBoolean(opts.get("--keep-pods"));
    run.floor = Boolean.parseBoolean(opts.get("--floor"));
    run.rolloutWarmup = Integer.parseInt(opts.get("--rollout-warmup"));
    run.rolloutQps = Integer.parseInt(opts.get("--rollout-qps"));
    String lease = opts.get("--node-lease-seconds");
    run.leaseSeconds = lease.equals("auto") ? autoLeaseSeconds(Integer.parseInt(opts.get("--nodes")))
        : Integer.parseInt(lease);
    int rc = run.run(Integer.parseInt(opts.get("--nodes")), Integer.parseInt(opts.get("--pods")),
        Integer.parseInt(opts.get("--replicas")), Integer.parseInt(opts.get("--rounds")), skip);
    System.exit(rc);
  }

  /**
   * kwok renews every node's Lease each quarter of its duration: at the kubelet's 40 s that is 0.1 writes per node
   * per second, 500/s for 5,000 nodes, more than this machine's etcd and API server serve next to a benchmark. Up to
   * 500 nodes the kubelet's 40 s stands; above, the duration grows with the nodes (N/10 s: 40 Lease writes/s, 500 s
   * for 5,000 nodes), and {@code conformance/up} lengthens kube-controller-manager's grace period to match.
   */
  static int autoLeaseSeconds(int nodes) {
    return nodes <= 500 ? 40 : nodes / 10;
  }

  private int run(int nodes, int pods, int replicas, int rounds, Set<String> skip) throws Exception {
    Instant started = Instant.now();
    exec(List.of(scripts.resolve("up").toString(), "--nodes", "0", "--node-lease-seconds",
        Integer.toString(leaseSeconds), "--dir", dir.toString()), 300);
    try {
      bin = Path.of(env("BERTH_K8S_BIN"));
      admin = client("admin");
      ChartRbac.apply(admin);
      say("creating %d kwok nodes", nodes);
      createNodes(nodes);
      table.add(String.format("Side by side on one kube-apiserver v1.36.3 + etcd v3.6.8 + kwok v0.8.0, %d nodes "
          + "(node Leases of %d s); started %s; %d init pods bound by each scheduler before its measured pods%s",
          nodes, leaseSeconds, started, initPods,
          backlog ? " (backlog: the scheduler is stopped while the measured pods are created)" : ""));
      if (!skip.contains("scheduling")) {
        table.add("");
        table.add("| scheduler | pods | pods/s | pods/s with their Scheduled events | p50 create→bind (ms) | p99 (ms) "
            + "| scheduler CPU s | API requests/pod |");
        table.add("| --- | --- | --- | --- | --- | --- | --- | --- |");
        List<SchedulingResult> kube = new ArrayList<>();
        List<SchedulingResult> berth = new ArrayList<>();
        List<SchedulingResult> bindOnly = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
          // ABBA: odd rounds put Berth first, so a drift of the machine's speed over the run (seen: the same
          // window costing 2.5 times the CPU per pod an hour later) falls on both schedulers alike
          if (r % 2 == 0) {
            kube.add(row(schedule("kube-scheduler", r, pods)));
            berth.add(row(schedule("berth", r, pods)));
          } else {
            berth.add(row(schedule("berth", r, pods)));
            kube.add(row(schedule("kube-scheduler", r, pods)));
          }
          if (floor) {
            bindOnly.add(row(schedule(BIND_ONLY, r, pods)));
          }
        }
        table.add("");
        table.add(String.format("Berth / kube-scheduler: pods/s %.2f× (with their Scheduled events %.2f×), p50 %.2f×, "
            + "p99 %.2f×, CPU per pod %.2f×",
            mean(berth, SchedulingResult::podsPerSecond) / mean(kube, SchedulingResult::podsPerSecond),
            mean(berth, SchedulingResult::withEventsPerSecond) / mean(kube, SchedulingResult::withEventsPerSecond),
            mean(berth, SchedulingResult::p50Ms) / mean(kube, SchedulingResult::p50Ms),
            mean(berth, SchedulingResult::p99Ms) / mean(kube, SchedulingResult::p99Ms),
            mean(berth, SchedulingResult::cpuSeconds) / mean(kube, SchedulingResult::cpuSeconds)));
        if (rounds > 1) {
          table.add(RoundRatios.describe(RoundRatios.of(berth, kube, SchedulingResult::podsPerSecond)));
        }
        if (floor) {
          table.add(String.format("bind-only (no scheduling) / kube-scheduler: pods/s %.2f× (with their Scheduled "
              + "events %.2f×), CPU per pod %.2f×",
              mean(bindOnly, SchedulingResult::podsPerSecond) / mean(kube, SchedulingResult::podsPerSecond),
              mean(bindOnly, SchedulingResult::withEventsPerSecond)
                  / mean(kube, SchedulingResult::withEventsPerSecond),
              mean(bindOnly, SchedulingResult::cpuSeconds) / mean(kube, SchedulingResult::cpuSeconds)));
        }
      }
      if (!requestKinds.isEmpty()) {
        table.add("");
        table.add("API requests per measured pod by kind (audit log, the measured window):");
        table.add("");
        requestKinds.forEach(line -> table.add("- " + line));
      }
      if (!skip.contains("deployment")) {
        table.add("");
        table.add("| controller manager | replicas | s to available | API requests/pod | controllers' CPU s |");
        table.add("| --- | --- | --- | --- | --- |");
        List<RolloutResult> kcm = new ArrayList<>();
        List<RolloutResult> berth = new ArrayList<>();
        // the rollouts' pods are placed by a kube-scheduler of their own at qps 5000 (conformance/up's default
        // scheduler keeps client-go's 50 qps, which would bound both rollouts alike)
        Path work = dir.resolve("bench");
        Files.createDirectories(work);
        Process placer = startScheduler("kube-scheduler", 0,
            schedulerConfig(work, ROLLOUT_SCHEDULER, "kube-scheduler"), work.resolve(ROLLOUT_SCHEDULER + ".log"),
            ROLLOUT_SCHEDULER);
        placerPid = placer.pid();
        try {
          for (int r = 0; r < rounds; r++) {
            kcm.add(row(rollout("kube-controller-manager", r, replicas)));
            berth.add(row(rollout("berth", r, replicas)));
          }
        } finally {
          stop(placer);
          placerPid = -1;
        }
        table.add("");
        table.add(String.format("Berth / kube-controller-manager: time to available %.2f×, requests per pod %.2f×",
            mean(berth, RolloutResult::secondsToAvailable) / mean(kcm, RolloutResult::secondsToAvailable),
            mean(berth, x -> (double) x.requests()) / mean(kcm, x -> (double) x.requests())));
        table.add("");
        table.add("Where the CPU went in each rollout (process CPU seconds, /proc):");
        table.add("");
        rolloutShares.forEach(line -> table.add("- " + line));
      }
      String out = String.join("\n", table) + "\n";
      Files.writeString(dir.resolveSibling(dir.getFileName() + ".md"), out);
      System.out.println(out);
      return 0;
    } finally {
      if (admin != null) {
        admin.close();
      }
      exec(List.of(scripts.resolve("down").toString(), "--dir", dir.toString()), 180);
    }
  }

  private SchedulingResult row(SchedulingResult r) {
    table.add(String.format("| %s | %d | %.1f | %s | %s | %s | %.1f | %.2f |", r.who(), r.pods(), r.podsPerSecond(),
        Double.isNaN(r.withEventsPerSecond()) ? "n/a" : String.format("%.1f", r.withEventsPerSecond()),
        ms(r.p50Ms()), ms(r.p99Ms()), r.cpuSeconds(), (double) r.requests() / r.pods()));
    say("%s", table.get(table.size() - 1));
    return r;
  }

  private RolloutResult row(RolloutResult r) {
    table.add(String.format("| %s | %d | %.1f | %.2f | %.1f |", r.who(), r.replicas(), r.secondsToAvailable(),
        (double) r.requests() / r.replicas(), r.cpuSeconds()));
    say("%s", table.get(table.size() - 1));
    return r;
  }

  private static String ms(double value) {
    return Double.isNaN(value) ? "n/a" : String.format("%.0f", value);
  }

  private static <T> double mean(List<T> list, java.util.function.ToDoubleFunction<T> f) {
    return list.stream().mapToDouble(f).average().orElse(Double.NaN);
  }

  // --- scheduling ------------------------------------------------------------------------------------------------

  private SchedulingResult schedule(String who, int round, int pods) throws Exception {
    boolean kube = who.equals("kube-scheduler");
    String profile = "bench-" + (kube ? "kube" : who.equals(BIND_ONLY) ? "bindonly" : "berth");
    String ns = profile + "-" + round;
    namespace(ns);
    Path work = dir.resolve("bench");
    Files.createDirectories(work);
    Path config = schedulerConfig(work, profile, kube ? "kube-scheduler" : "berth-scheduler");
    Path log = work.resolve(profile + "-" + round + ".log");
    if (backlog) {
      return scheduleBacklog(who, round, pods, ns, profile, config, log);
    }
    Process process = startScheduler(who, round, config, log, profile);
    String user = kube ? KUBE_SCHEDULER : BERTH_SCHEDULER;
    try {
      // warm up: one pod bound means the scheduler has synced and is placing
      Map<String, Long> bound = new ConcurrentHashMap<>();
      try (Watch watch = watchBindings(ns, bound)) {
        createPod(ns, "warmup", profile);
        waitFor(() -> bound.containsKey("warmup"), 180, who + " binds its first pod (see " + log + ")");
        bindInitPods(who, round, ns, profile, bound, log);
        long requestsBefore = audit(user);
        double cpuBefore = cpuSeconds(process.pid());
        Map<String, Long> created = new ConcurrentHashMap<>();
        say("%s round %d: creating %d pods", who, round, pods);
        long start = System.nanoTime();
        createPods(ns, profile, pods, created);
        waitFor(() -> bound.size() >= pods + 1 + initPods, 1800, who + " binds " + pods + " pods (see " + log + ")");
        double cpu = cpuSeconds(process.pid()) - cpuBefore;
        long last = created.keySet().stream().mapToLong(bound::get).max().orElseThrow();
        double[] latencies = created.entrySet().stream()
            .mapToDouble(e -> (bound.get(e.getKey()) - e.getValue()) / 1e6).sorted().toArray();
        long requests = audit(user) - requestsBefore;
        requestKinds(who, pods, user, requestsBefore, Map.of(), Map.of());
        return new SchedulingResult(who, pods, pods / ((last - start) / 1e9), percentile(latencies, 50),
            percentile(latencies, 99), cpu, requests, Double.NaN);
      }
    } finally {
      stop(process);
      if (!keepPods) {
        deletePodsOf(ns);
      }
    }
  }

  /** Stops a daemon of the run: SIGTERM, then SIGKILL after 30 s. */
  private static void stop(Process process) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** The run's {@code KubeSchedulerConfiguration} for one profile: qps/burst 5000, no leader election. */
  private Path schedulerConfig(Path work, String profile, String identity) throws IOException {
    Path config = work.resolve(profile + ".yaml");
    Files.writeString(config, String.join("\n",
        "apiVersion: kubescheduler.config.k8s.io/v1",
        "kind: KubeSchedulerConfiguration",
        "clientConnection:",
        "  kubeconfig: " + kubeconfig(identity),
        "  qps: 5000",
        "  burst: 5000",
        "leaderElection:",
        "  leaderElect: false",
        "profiles:",
        "- schedulerName: " + profile,
        ""));
    return config;
  }

  private Process startScheduler(String who, int round, Path config, Path log, String profile) throws IOException {
    if (who.equals(BIND_ONLY)) {
      List<String> command = berthJava(null, round);
      String classes = Path.of(NullBinder.class.getProtectionDomain().getCodeSource().getLocation().getPath())
          .toString();
      command.addAll(List.of("-cp", classes + java.io.File.pathSeparator + schedulerJar, NullBinder.class.getName(),
          "--kubeconfig", kubeconfig("berth-scheduler").toString(), "--scheduler-name", profile));
      ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
      b.environment().remove("KUBECONFIG");
      return b.start();
    }
    if (who.equals("kube-scheduler")) {
      String kc = kubeconfig("kube-scheduler").toString();
      return new ProcessBuilder(bin.resolve("kube-scheduler").toString(), "--config", config.toString(),
          "--authentication-kubeconfig", kc, "--authorization-kubeconfig", kc, "--bind-address=127.0.0.1",
          "--secure-port=0", "--v=1").redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }
    List<String> command = berthJava(schedulerJar, round);
    command.addAll(List.of("--port", "0", "--kubeconfig", kubeconfig("berth-scheduler").toString(), "--config",
        config.toString(), "--leader-elect=false"));
    ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    b.environment().remove("KUBECONFIG");
    return b.start();
  }

  /**
   * {@code --mode backlog}: the rate is the measured pods over the span from their first binding to their last, which
   * creation does not bound; there is no create-to-bind latency to report (NaN). With init pods (the default) the
   * scheduler starts, binds them (warm: caches filled, the JVM's JIT done with the hot paths), is then stopped with
   * SIGSTOP while the measured pods are created and continued with SIGCONT, so both schedulers meet the same backlog
   * warm; with {@code --init-pods 0} the backlog exists before the scheduler starts (cold: JIT warm-up included).
   * CPU and API requests are counted from the SIGCONT (or the start).
   */
  private SchedulingResult scheduleBacklog(String who, int round, int pods, String ns, String profile, Path config,
      Path log) throws Exception {
    boolean kube = who.equals("kube-scheduler");
    String user = kube ? KUBE_SCHEDULER : BERTH_SCHEDULER;
    Map<String, Long> bound = new ConcurrentHashMap<>();
    Process process = null;
    Map<String, Double> threadsBefore = Map.of();
    Map<String, Double> serverBefore;
    MachineCpu machineBefore;
    double harnessBefore;
    try (Watch watch = watchBindings(ns, bound)) {
      long requestsBefore;
      double cpuBefore;
      if (initPods > 0) {
        // warm first, as scheduler_perf's initPods; then freeze the process while the backlog is created
        process = startScheduler(who, round, config, log, profile);
        bindInitPods(who, round, ns, profile, bound, log);
        signal(process, "STOP");
        say("%s round %d: stopped; creating a backlog of %d pods", who, round, pods);
        createPods(ns, profile, pods, new ConcurrentHashMap<>());
        requestsBefore = audit(user);
        cpuBefore = cpuSeconds(process.pid());
        threadsBefore = threadCpu(process.pid());
        serverBefore = controlPlaneCpu();
        machineBefore = MachineCpu.read();
        harnessBefore = cpuSeconds(ProcessHandle.current().pid());
        signal(process, "CONT");
      } else {
        say("%s round %d: creating a backlog of %d pods", who, round, pods);
        createPods(ns, profile, pods, new ConcurrentHashMap<>());
        requestsBefore = audit(user);
        cpuBefore = 0;
        serverBefore = controlPlaneCpu();
        machineBefore = MachineCpu.read();
        harnessBefore = cpuSeconds(ProcessHandle.current().pid());
        process = startScheduler(who, round, config, log, profile);
      }
      waitFor(() -> bound.size() >= pods + initPods, 1800, who + " binds " + pods + " pods (see " + log + ")");
      double cpu = cpuSeconds(process.pid()) - cpuBefore;
      Map<String, Double> serverAfter = controlPlaneCpu();
      MachineCpu machine = MachineCpu.read().minus(machineBefore);
      double harness = cpuSeconds(ProcessHandle.current().pid()) - harnessBefore;
      if (!kube) {
        reportThreadCpu(who, pods, threadsBefore, threadCpu(process.pid()));
      }
      long[] times = bound.entrySet().stream().filter(e -> e.getKey().startsWith("p-"))
          .mapToLong(Map.Entry::getValue).sorted().toArray();
      long requests = audit(user) - requestsBefore;
      requestKinds(who + flagsTag(kube, round), pods, user, requestsBefore, serverBefore, serverAfter);
      machineShare(who + flagsTag(kube, round), pods, machine, cpu, harness);
      double withEvents = withScheduledEvents(ns, user, pods);
      return new SchedulingResult(who + " (backlog)" + flagsTag(kube, round), pods,
          (pods - 1) / ((times[times.length - 1] - times[0]) / 1e9), Double.NaN, Double.NaN, cpu, requests,
          withEvents);
    } finally {
      if (process != null) {
        signal(process, "CONT");
        stop(process);
      }
      if (!keepPods) {
        deletePodsOf(ns);
      }
    }
  }

  /** Creates {@link #initPods} pods named {@code init-N} and waits until the scheduler has bound them all. */
  private void bindInitPods(String who, int round, String ns, String profile, Map<String, Long> bound, Path log)
      throws Exception {
    if (initPods == 0) {
      return;
    }
    say("%s round %d: binding %d init pods", who, round, initPods);
    createPods(ns, profile, initPods, new ConcurrentHashMap<>(), "init-");
    waitFor(() -> bound.keySet().stream().filter(k -> k.startsWith("init-")).count() >= initPods, 1800,
        who + " binds " + initPods + " init pods (see " + log + ")");
  }

  private static void signal(Process process, String signal) throws Exception {
    if (process.isAlive()) {
      new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start().waitFor();
    }
  }

  private void createPods(String ns, String profile, int count, Map<String, Long> created) throws Exception {
    createPods(ns, profile, count, created, "p-");
  }

  private void createPods(String ns, String profile, int count, Map<String, Long> created, String prefix)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      int offset = t;
      futures.add(pool.submit(() -> {
        for (int i = offset; i < count; i += 8) {
          String name = prefix + i;
          created.put(name, System.nanoTime());
          createPod(ns, name, profile);
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
  }

  private Watch watchBindings(String ns, Map<String, Long> bound) {
    return admin.pods().inNamespace(ns).watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, Pod pod) {
        if (pod.getSpec().getNodeName() != null) {
          bound.putIfAbsent(pod.getMetadata().getName(), System.nanoTime());
        }
      }

      @Override
      public void onClose(WatcherException cause) {
        say("watch of %s closed: %s", ns, cause.getMessage());
      }
    });
  }

  /** scheduler_perf's default pod (pod-default.yaml): one pause container, 100m cpu and 500Mi requested. */
  private void createPod(String ns, String name, String schedulerName) {
    // a loaded server may answer late: retry a create that timed out (409: the first attempt made it)
    for (int attempt = 1; ; attempt++) {
      try {
        createPodOnce(ns, name, schedulerName);
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() == 409) {
          return;
        }
        if (attempt == 5) {
          throw e;
        }
      }
    }
  }

  private void createPodOnce(String ns, String name, String schedulerName) {
    admin.pods().inNamespace(ns).resource(new PodBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withSchedulerName(schedulerName).withTerminationGracePeriodSeconds(0L).addNewContainer()
        .withName("pause").withImage("registry.k8s.io/pause:3.10").withNewResources()
        .addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("500Mi")).endResources()
        .endContainer().endSpec().build()).create();
  }

  private static double percentile(double[] sorted, int p) {
    int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  // --- deployments -----------------------------------------------------------------------------------------------

  private RolloutResult rollout(String who, int round, int replicas) throws Exception {
    boolean kcm = who.equals("kube-controller-manager");
    String ns = "bench-" + (kcm ? "kcm" : "berth-cm") + "-" + round;
    namespace(ns);
    Path log = dir.resolve("bench").resolve(ns + ".log");
    Files.createDirectories(log.getParent());
    Process process;
    if (kcm) {
      String kc = kubeconfig("kube-controller-manager").toString();
      process = new ProcessBuilder(bin.resolve("kube-controller-manager").toString(), "--kubeconfig", kc,
          "--authentication-kubeconfig", kc, "--authorization-kubeconfig", kc,
          "--controllers=deployment-controller,replicaset-controller", "--use-service-account-credentials=true",
          "--leader-elect=false", "--bind-address=127.0.0.1", "--secure-port=0",
          "--kube-api-qps=" + rolloutQps, "--kube-api-burst=" + 2 * rolloutQps, "--v=1")
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    } else {
      List<String> command = berthJava(controllerManagerJar(round), round);
      command.addAll(List.of("--port", "0", "--kubeconfig", kubeconfig("berth-controller-manager").toString(),
          "--leader-elect=false", "--kube-api-qps=" + rolloutQps, "--kube-api-burst=" + 2 * rolloutQps));
      ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
      b.environment().remove("KUBECONFIG");
      process = b.start();
    }
    List<String> users = kcm ? List.of(KCM_DEPLOYMENT, KCM_REPLICASET) : List.of(BERTH_CM);
    try {
      // warm up: a Deployment available means the controllers have synced; with --rollout-warmup R it is a rollout
      // of R replicas (left in place), so that the measured one meets a warm process
      admin.apps().deployments().inNamespace(ns).resource(deployment("warmup", rolloutWarmup)).create();
      waitFor(() -> available(ns, "warmup") >= rolloutWarmup, 1800,
          who + " makes a Deployment available (see " + log + ")");
      long requestsBefore = users.stream().mapToLong(this::audit).sum();
      double cpuBefore = cpuSeconds(process.pid());
      Map<String, Double> serverBefore = controlPlaneCpu();
      double placerBefore = placerPid > 0 ? cpuSeconds(placerPid) : 0;
      double harnessBefore = cpuSeconds(ProcessHandle.current().pid());
      MachineCpu machineBefore = MachineCpu.read();
      Map<String, Double> threadsBefore = kcm ? Map.of() : threadCpu(process.pid());
      say("%s round %d: Deployment of %d replicas", who, round, replicas);
      long start = System.nanoTime();
      admin.apps().deployments().inNamespace(ns).resource(deployment("big", replicas)).create();
      waitFor(() -> available(ns, "big") >= replicas, 1800, who + " makes " + replicas + " replicas available");
      double seconds = (System.nanoTime() - start) / 1e9;
      double cpu = cpuSeconds(process.pid()) - cpuBefore;
      MachineCpu machine = MachineCpu.read().minus(machineBefore);
      rolloutShare(who + (kcm ? "" : jarTag(round)), seconds, machine, cpu, serverBefore, controlPlaneCpu(),
          placerPid > 0 ? cpuSeconds(placerPid) - placerBefore : Double.NaN,
          cpuSeconds(ProcessHandle.current().pid()) - harnessBefore);
      if (!kcm) {
        reportThreadCpu(who + " controller manager", replicas, threadsBefore, threadCpu(process.pid()));
      }
      long requests = users.stream().mapToLong(this::audit).sum() - requestsBefore;
      return new RolloutResult(who + (kcm ? "" : jarTag(round)), replicas, seconds, requests, cpu);
    } finally {
      stop(process);
      // the garbage collector (the main kube-controller-manager) removes the ReplicaSets' pods
      admin.apps().deployments().inNamespace(ns).delete();
      admin.apps().replicaSets().inNamespace(ns).delete();
      deletePodsOf(ns);
    }
  }

  private static Deployment deployment(String name, int replicas) {
    return new DeploymentBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
        .withReplicas(replicas).withNewSelector().addToMatchLabels("app", name).endSelector().withNewTemplate()
        .withNewMetadata().addToLabels("app", name).endMetadata().withNewSpec()
        .withSchedulerName(ROLLOUT_SCHEDULER).withTerminationGracePeriodSeconds(0L).addNewContainer().withName("pause")
        .withImage("registry.k8s.io/pause:3.10").withNewResources().addToRequests("cpu", new Quantity("10m"))
        .addToRequests("memory", new Quantity("10Mi")).endResources().endContainer().endSpec().endTemplate()
        .endSpec().build();
  }

  private int available(String ns, String name) {
    Deployment d = admin.apps().deployments().inNamespace(ns).withName(name).get();
    if (d == null || d.getStatus() == null || d.getStatus().getAvailableReplicas() == null) {
      return 0;
    }
    return d.getStatus().getAvailableReplicas();
  }

  // --- plumbing --------------------------------------------------------------------------------------------------

  private void createNodes(int count) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      int offset = t;
      futures.add(pool.submit(() -> {
        for (int i = offset; i < count; i += 8) {
          admin.nodes().resource(node("bench-node-" + i, "zone-" + (i % 3))).create();
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    // a list of thousands of nodes is megabytes: poll it every 2 s, not every 200 ms, and from the watch cache
    ListOptions fromCache = new ListOptionsBuilder().withResourceVersion("0").build();
    waitFor(() -> admin.nodes().list(fromCache).getItems().stream()
        .filter(n -> n.getStatus().getConditions() != null && n.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"))).count() >= count,
        Math.max(600, count / 5), count + " nodes Ready", 2000);
  }

  /** scheduler_perf's node-default.yaml shape, as conformance/nodes prints it: 4 CPU, 32Gi, 110 pods, a zone. */
  private static Node node(String name, String zone) {
    Map<String, Quantity> capacity = Map.of("cpu", new Quantity("4"), "memory", new Quantity("32Gi"), "pods",
        new Quantity("110"));
    return new NodeBuilder().withNewMetadata().withName(name).addToAnnotations("kwok.x-k8s.io/node", "fake")
        .addToLabels("kubernetes.io/hostname", name).addToLabels("kubernetes.io/os", "linux")
        .addToLabels("topology.kubernetes.io/zone", zone).addToLabels("type", "kwok").endMetadata()
        .withNewStatus().withCapacity(capacity).withAllocatable(capacity).withNewNodeInfo()
        .withArchitecture("amd64").withOperatingSystem("linux").withKubeletVersion("fake").endNodeInfo()
        .endStatus().build();
  }

  private void namespace(String ns) {
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
    waitFor(() -> admin.serviceAccounts().inNamespace(ns).withName("default").get() != null, 60,
        "the default ServiceAccount of " + ns);
  }

  /**
   * Deletes a run's pods and waits until they are gone. A failure (a loaded server timing the deletes out) is logged,
   * not thrown: it runs in a {@code finally} and must not discard the measurement just taken; later runs use
   * namespaces of their own.
   */
  private void deletePodsOf(String ns) {
    try {
      deletePodsOrThrow(ns);
    } catch (RuntimeException e) {
      say("cleaning up %s failed (its pods stay): %s", ns, e.getMessage());
    }
  }

  private void deletePodsOrThrow(String ns) {
    waitFor(() -> {
      admin.pods().inNamespace(ns).withGracePeriod(0).delete();
      return true;
    }, 300, "deleting the pods of " + ns);
    ListOptions one = new ListOptionsBuilder().withLimit(1L).build();
    waitFor(() -> admin.pods().inNamespace(ns).list(one).getItems().isEmpty(), 900, "the pods of " + ns + " gone",
        1000);
  }

  /**
   * Prints (and keeps for the table) {@code user}'s requests in the measured window by kind (verb and resource,
   * {@link AuditLog.Entry#kind()}), per measured pod: where two schedulers' API traffic differs.
   */
  private void requestKinds(String who, int pods, String user, long requestsBefore, Map<String, Double> serverBefore,
      Map<String, Double> serverAfter) {
    StringBuilder line = new StringBuilder(who + ":");
    new AuditLog(dir.resolve("logs").resolve("audit.log")).kinds(user, requestsBefore)
        .forEach((kind, n) -> line.append(String.format(" %s %.3f;", kind, (double) n / pods)));
    serverAfter.forEach((name, seconds) -> line.append(String.format(" %s CPU %.2f ms/pod;", name,
        1000 * (seconds - serverBefore.getOrDefault(name, seconds)) / pods)));
    requestKinds.add(line.toString());
    say("requests per pod by kind: %s", line);
  }

  /**
   * Prints (and keeps for the table) where the whole machine's CPU went in one measured window: how busy its cores
   * were, the CPU per pod of the scheduler against everything else (the control plane, the harness, the rest of the
   * machine), and the pods/s a scheduler costing no CPU at all would reach on these cores if everything else cost
   * the same per pod. That ceiling holds only while the cores are saturated (busy near 100%); it bounds what any
   * scheduler can show against another on this machine.
   */
  private void machineShare(String who, int pods, MachineCpu machine, double schedulerCpu, double harnessCpu) {
    double busyMs = 1000 * machine.busySeconds() / pods;
    double schedulerMs = 1000 * schedulerCpu / pods;
    double restMs = busyMs - schedulerMs;
    String line = String.format("%s: machine %.0f%% busy on %d cores; CPU per pod %.2f ms, of which the scheduler "
        + "%.2f, the harness %.2f, everything else %.2f; a scheduler costing no CPU: at most %.0f pods/s",
        who, 100 * machine.busySeconds() / machine.totalSeconds(), machine.cores(), busyMs, schedulerMs,
        1000 * harnessCpu / pods, restMs, machine.cores() * 1000 / restMs);
    requestKinds.add(line);
    say("%s", line);
  }

  /**
   * Prints (and keeps for the table) where the machine's CPU went during one measured rollout: how busy the cores
   * were and the CPU seconds of the controllers, of each control-plane process (kube-apiserver, etcd, kwok, the main
   * kube-controller-manager), of the rollout's kube-scheduler and of the harness. kwok makes the pods Running and
   * Ready, the rollout's last step, on the same cores as the controllers.
   */
  private void rolloutShare(String who, double seconds, MachineCpu machine, double controllersCpu,
      Map<String, Double> serverBefore, Map<String, Double> serverAfter, double placerCpu, double harnessCpu) {
    StringBuilder line = new StringBuilder(String.format(
        "%s rollout: %.1f s, machine %.0f%% busy on %d cores (%.1f CPU s); controllers %.1f s", who, seconds,
        100 * machine.busySeconds() / machine.totalSeconds(), machine.cores(), machine.busySeconds(),
        controllersCpu));
    serverAfter.forEach((name, after) -> line.append(String.format(", %s %.1f s", name,
        after - serverBefore.getOrDefault(name, after))));
    line.append(String.format(", rollout kube-scheduler %.1f s, harness %.1f s", placerCpu, harnessCpu));
    rolloutShares.add(line.toString());
    say("%s", line);
  }

  /**
   * The backlog's rate counting each pod's {@code Scheduled} Event as part of its work: measured pods over the span
   * from the first measured binding the server completed to the last Event of a measured pod it created (both from
   * the audit log's {@code stageTimestamp}, one clock). Both schedulers write events asynchronously, behind the
   * bindings; the plain rate ends at the last binding, this one when the events have caught up. Waits up to 120 s
   * for {@code pods} such Events; NaN (and a line saying so) if fewer came.
   */
  private double withScheduledEvents(String ns, String user, int pods) {
    AuditLog log = new AuditLog(dir.resolve("logs").resolve("audit.log"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      List<AuditLog.Entry> writes = log.entries(e -> e.user().equals(user) && e.namespace().equals(ns)
          && e.verb().equals("create") && e.code() < 300 && e.name().startsWith("p-"));
      List<java.time.Instant> events = writes.stream().filter(e -> e.resource().equals("events"))
          .map(AuditLog.Entry::completed).sorted().toList();
      if (events.size() >= pods) {
        java.time.Instant first = writes.stream().filter(e -> e.subresource().equals("binding"))
            .map(AuditLog.Entry::completed).min(java.util.Comparator.naturalOrder()).orElseThrow();
        return (pods - 1) / (java.time.Duration.between(first, events.get(events.size() - 1)).toNanos() / 1e9);
      }
      if (System.nanoTime() > deadline) {
        say("%s: %d of %d Scheduled events of the measured pods after 120 s", ns, events.size(), pods);
        return Double.NaN;
      }
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Double.NaN;
      }
    }
  }

  /** How many requests {@code user} has made so far, from the audit log. */
  private long audit(String user) {
    Path file = dir.resolve("logs").resolve("audit.log");
    try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
      String needle = "\"username\":\"" + user + "\"";
      return lines.filter(l -> l.contains(needle)).map(JSON::readTree)
          .filter(e -> !"ResponseStarted".equals(e.path("stage").asString())).count();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * CPU seconds (utime + stime) of a process's live threads by group, from {@code /proc/PID/task/TID/}: the thread
   * name ({@code comm}, which the JVM sets to the Java thread's name cut to 15 characters) with its digits dropped,
   * so that {@code vert.x-eventloop-thread-3} and {@code C2 CompilerThre} each stand for their kind. Threads that
   * ended are missing; their CPU is in {@link #cpuSeconds} only.
   */
  private static Map<String, Double> threadCpu(long pid) {
    Map<String, Double> groups = new java.util.TreeMap<>();
    Path tasks = Path.of("/proc", String.valueOf(pid), "task");
    try (var list = Files.list(tasks)) {
      for (Path task : (Iterable<Path>) list::iterator) {
        try {
          String name = Files.readString(task.resolve("comm")).trim().replaceAll("[0-9]+", "N");
          String stat = Files.readString(task.resolve("stat"));
          String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          groups.merge(name, (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0, Double::sum);
        } catch (IOException e) {
          // the thread ended while being read
        }
      }
    } catch (IOException e) {
      say("cannot read the threads of %d: %s", pid, e.getMessage());
    }
    return groups;
  }

  /** Prints the CPU each thread group used between two {@link #threadCpu} snapshots, in ms per pod, largest first. */
  private static void reportThreadCpu(String who, int pods, Map<String, Double> before, Map<String, Double> after) {
    StringBuilder line = new StringBuilder(who + ": CPU ms per pod by thread group:");
    after.entrySet().stream()
        .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0.0)))
        .filter(e -> e.getValue() > 0)
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .forEach(e -> line.append(String.format(" %s=%.2f", e.getKey(), 1000 * e.getValue() / pods)));
    say("%s", line);
  }

  /**
   * CPU seconds so far of the control plane's processes (kube-apiserver, etcd, kwok, kube-controller-manager, from
   * {@code DIR/pids/}), by name:
   * what the API server side spends while one scheduler's measured window runs (the harness's own watch and the
   * node Lease renewals included, alike for both schedulers).
   */
  private Map<String, Double> controlPlaneCpu() {
    Map<String, Double> cpu = new java.util.TreeMap<>();
    for (String name : List.of("kube-apiserver", "etcd", "kwok", "kube-controller-manager")) {
      try {
        cpu.put(name, cpuSeconds(Long.parseLong(Files.readString(dir.resolve("pids").resolve(name + ".pid")).trim())));
      } catch (IOException | RuntimeException e) {
        say("cannot read the CPU of %s: %s", name, e.getMessage());
      }
    }
    return cpu;
  }

  /** utime + stime of a process, from /proc. */
  private static double cpuSeconds(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // fields[0] is state (field 3); utime is field 14, stime field 15
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
  }

  private KubernetesClient client(String identity) throws IOException {
    Config config = Config.fromKubeconfig(Files.readString(kubeconfig(identity), StandardCharsets.UTF_8));
    config.setMaxConcurrentRequests(64);
    config.setRequestTimeout(120_000);
    config.setMaxConcurrentRequestsPerHost(64);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  private Path kubeconfig(String identity) {
    return dir.resolve("kubeconfigs").resolve(identity + ".kubeconfig");
  }

  private String env(String key) throws IOException {
    for (String line : Files.readAllLines(dir.resolve("env"))) {
      if (line.startsWith(key + "=")) {
        return line.substring(key.length() + 1);
      }
    }
    throw new IllegalStateException(dir.resolve("env") + " names no " + key);
  }

  /**
   * The controller manager jar of a Berth round: {@code $BERTH_BENCH_CM_JAR_ALT} in odd rounds when it is set (another
   * build, say the commit before a change, interleaved with this one on one control plane), else this tree's.
   */
  private Path controllerManagerJar(int round) {
    String alt = System.getenv("BERTH_BENCH_CM_JAR_ALT");
    Path jar = round % 2 == 1 && alt != null && !alt.isBlank() ? Path.of(alt) : controllerManagerJar;
    say("round %d: Berth's controller manager jar: %s", round, jar);
    return jar;
  }

  /** Which of the two controller manager jars a Berth round ran, when {@code $BERTH_BENCH_CM_JAR_ALT} is set. */
  private static String jarTag(int round) {
    String alt = System.getenv("BERTH_BENCH_CM_JAR_ALT");
    return alt == null || alt.isBlank() ? "" : round % 2 == 1 ? " [ALT jar]" : " [jar]";
  }

  /** Which of the two flag sets a Berth round ran with, when {@code $BERTH_BENCH_JAVA_OPTS_ALT} is set. */
  private static String flagsTag(boolean kube, int round) {
    return kube || System.getenv("BERTH_BENCH_JAVA_OPTS_ALT") == null ? ""
        : round % 2 == 1 ? " [ALT flags]" : " [flags]";
  }

  /**
   * The command line that starts one of Berth's jars: this JVM's {@code java} (or {@code $BERTH_BENCH_JAVA}),
   * {@code -Xmx1g}, then {@code $BERTH_BENCH_JAVA_OPTS} split at spaces (JVM flags to compare, e.g.
   * {@code -XX:TieredStopAtLevel=1}; they reach only Berth's daemons, not this harness), then {@code -jar jar}
   * (nothing for a null {@code jar}: the caller adds its class path and main class).
   * With {@code $BERTH_BENCH_JAVA_OPTS_ALT} set, odd rounds (the second, fourth...) use it instead: two sets of flags
   * interleaved on one control plane ({@code --rounds 4}: A, B, A, B, each after its own kube-scheduler round).
   */
  private static List<String> berthJava(Path jar, int round) {
    String java = System.getenv("BERTH_BENCH_JAVA");
    List<String> command = new ArrayList<>(List.of(java == null || java.isBlank()
        ? Path.of(System.getProperty("java.home"), "bin", "java").toString() : java, "-Xmx1g"));
    String alt = System.getenv("BERTH_BENCH_JAVA_OPTS_ALT");
    String opts = round % 2 == 1 && alt != null ? alt : System.getenv("BERTH_BENCH_JAVA_OPTS");
    say("round %d: Berth's JVM flags: %s", round, opts == null ? "" : opts.trim());
    if (opts != null && !opts.isBlank()) {
      command.addAll(List.of(opts.trim().split("\\s+")));
    }
    if (jar != null) {
      command.addAll(List.of("-jar", jar.toString()));
    }
    return command;
  }

  private static void waitFor(BooleanSupplier condition, long seconds, String what) {
    waitFor(condition, seconds, what, 200);
  }

  private static void waitFor(BooleanSupplier condition, long seconds, String what, long pollMillis) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException e) {
        // a transient API error: try again until the deadline
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out after " + seconds + " s waiting for " + what);
      }
      try {
        Thread.sleep(pollMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  private static void exec(List<String> command, int seconds) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(seconds, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(command + " failed:\n" + out);
    }
  }

  private static void say(String format, Object... args) {
    System.out.println(Instant.now() + " " + String.format(format, args));
  }
}
